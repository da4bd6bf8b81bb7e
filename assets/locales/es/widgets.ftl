## Widgets shared by every view: plots read as a sentence and a table (for screen readers),
## and heatmaps (hover text, accessible names, their tables)

# One line of a plot in words. $name is the line's name; $x the horizontal axis's name
# ("step"); $first, $last, $high, $low are values such as 2.30; $first_at, $last_at,
# $high_at, $low_at are places on the horizontal axis (a number, or a token in quotes).
widgets-plot-line = “{ $name }” va de { $first } en { $x } { $first_at } a { $last } en { $x } { $last_at }, máximo { $high } en { $x } { $high_at }, mínimo { $low } en { $x } { $low_at }
widgets-plot-no-points = “{ $name }” no tiene puntos
# A marker line: $what says what is marked ("warm-up ends"), $at where (a number)
widgets-plot-mark = { $what } en { $at }
# The whole plot: $title says what it shows; $parts are the lines and marks, joined by "; "
widgets-plot-summary = { $title }: { $parts }.
widgets-plot-empty = { $title }: aún no hay nada dibujado.
# The name of the table of a plot's numbers
widgets-plot-caption = { $title }, los números
# The headers of a plot's table where each row names its line
widgets-plot-line-header = línea
widgets-plot-value-header = valor

## Heatmaps

# What a heatmap's rows and columns are when the view does not say
widgets-heatmap-row = fila
widgets-heatmap-column = columna
widgets-heatmap-no-room = celdas demasiado pequeñas para los números: amplía (Ctrl + rueda) o pasa el ratón por una celda
# The heatmap's accessible name; $context says which matrix ("layer 1 · head 2"), or is empty
widgets-heatmap-name = mapa de calor { $context }
widgets-heatmap-masked-hover = enmascarada (−∞ antes del softmax, peso exactamente 0)
# Hover text: $row_axis and $column_axis are what rows and columns are ("query", "key");
# $row and $column are their positions; $row_token and $column_token their tokens
widgets-heatmap-hover = { $row_axis } { $row } “{ $row_token }” → { $column_axis } { $column } “{ $column_token }”
# $value is a number such as 0.68
widgets-heatmap-value = valor { $value }
widgets-heatmap-masked = enmascarada
# A cell read aloud; $value is widgets-heatmap-value or widgets-heatmap-masked
widgets-heatmap-cell = { $row_axis } { $row } “{ $row_token }”, { $column_axis } { $column } “{ $column_token }”, { $value }
# The name of a heatmap's table when the view does not say what the matrix is
widgets-heatmap-values = valores
# The heatmap's table's name; $what says what the matrix is
widgets-heatmap-caption = { $what }: { $row_axis } por fila, { $column_axis } por columna
# Added to the table's name when the matrix is too large to read out whole
widgets-heatmap-caption-part = (las primeras { $rows_shown } de { $rows } filas y { $columns_shown } de { $columns } columnas)

## Formulas read aloud: e_{"{"}t,i{"}"} is read "e sub t comma i"
math-sub = subíndice
math-super = superíndice
math-comma = coma
# Display formulas: a fraction whose parts are one word each, and one whose parts are longer
# (the end is said, so the listener hears where the denominator stops)
math-fraction = { $numerator } entre { $denominator }
math-fraction-long = la fracción { $numerator }, entre { $denominator }, fin de la fracción
math-root = raíz cuadrada de { $radicand }
math-root-long = raíz cuadrada de { $radicand }, fin de la raíz
# A sum with both limits, with only the one below, and with none
math-sum = suma desde { $from } hasta { $to } de
math-sum-over = suma sobre { $over } de
math-sum-plain = suma de
