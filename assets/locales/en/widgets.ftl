## Widgets shared by every view: plots read as a sentence and a table (for screen readers),
## and heatmaps (hover text, accessible names, their tables)

# One line of a plot in words. $name is the line's name; $x the horizontal axis's name
# ("step"); $first, $last, $high, $low are values such as 2.30; $first_at, $last_at,
# $high_at, $low_at are places on the horizontal axis (a number, or a token in quotes).
widgets-plot-line = “{ $name }” from { $first } at { $x } { $first_at } to { $last } at { $x } { $last_at }, highest { $high } at { $x } { $high_at }, lowest { $low } at { $x } { $low_at }
widgets-plot-no-points = “{ $name }” has no points
# A marker line: $what says what is marked ("warm-up ends"), $at where (a number)
widgets-plot-mark = { $what } at { $at }
# The whole plot: $title says what it shows; $parts are the lines and marks, joined by "; "
widgets-plot-summary = { $title }: { $parts }.
widgets-plot-empty = { $title }: nothing drawn yet.
# The name of the table of a plot's numbers
widgets-plot-caption = { $title }, the numbers
# The headers of a plot's table where each row names its line
widgets-plot-line-header = line
widgets-plot-value-header = value

## Heatmaps

# What a heatmap's rows and columns are when the view does not say
widgets-heatmap-row = row
widgets-heatmap-column = column
widgets-heatmap-no-room = cells too small for numbers: zoom in (Ctrl + scroll) or hover a cell
# The heatmap's accessible name; $context says which matrix ("layer 1 · head 2"), or is empty
widgets-heatmap-name = heatmap { $context }
widgets-heatmap-masked-hover = masked (−∞ before softmax, weight exactly 0)
# Hover text: $row_axis and $column_axis are what rows and columns are ("query", "key");
# $row and $column are their positions; $row_token and $column_token their tokens
widgets-heatmap-hover = { $row_axis } { $row } “{ $row_token }” → { $column_axis } { $column } “{ $column_token }”
# $value is a number such as 0.68
widgets-heatmap-value = value { $value }
widgets-heatmap-masked = masked
# A cell read aloud; $value is widgets-heatmap-value or widgets-heatmap-masked
widgets-heatmap-cell = { $row_axis } { $row } “{ $row_token }”, { $column_axis } { $column } “{ $column_token }”, { $value }
# The name of a heatmap's table when the view does not say what the matrix is
widgets-heatmap-values = values
# The heatmap's table's name; $what says what the matrix is
widgets-heatmap-caption = { $what }: a { $row_axis } in each row, a { $column_axis } in each column
# Added to the table's name when the matrix is too large to read out whole
widgets-heatmap-caption-part = (the first { $rows_shown } of { $rows } rows and { $columns_shown } of { $columns } columns)

## Formulas read aloud: e_{"{"}t,i{"}"} is read "e sub t comma i"
math-sub = sub
math-super = super
math-comma = comma
# Display formulas: a fraction whose parts are one word each, and one whose parts are longer
# (the end is said, so the listener hears where the denominator stops)
math-fraction = { $numerator } over { $denominator }
math-fraction-long = the fraction { $numerator }, over { $denominator }, end of fraction
math-root = square root of { $radicand }
math-root-long = square root of { $radicand }, end of root
# A sum with both limits, with only the one below, and with none
math-sum = sum from { $from } to { $to } of
math-sum-over = sum over { $over } of
math-sum-plain = sum of
