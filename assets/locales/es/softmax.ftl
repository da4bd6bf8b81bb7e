## El laboratorio de softmax: de puntuaciones escritas a pesos, y Q, K, V pequeñas a mano

softmax-part-scores = Puntuaciones → pesos
softmax-part-matrices = Q, K, V a mano
softmax-part-stacking = Dos capas apiladas
softmax-stack-intro = Dos capas de atención una sobre otra, sin nada entre ellas (ni residual ni feed-forward), como en la derivación de los apuntes: una entrada pequeña X de 4 tokens × 3 números y proyecciones aleatorias W_Q, W_K, W_V en cada capa.
softmax-stack-seed = entrada y proyecciones aleatorias, semilla
softmax-stack-new = otro sorteo
softmax-stack-collapse-title = Con sus pesos fijos, la pila es una sola capa
# $difference is in scientific notation; $low and $high are row sums
softmax-stack-collapse-check = Las dos capas frente a la capa única (A₂A₁, W_V1·W_V2): mayor diferencia { $difference }, solo redondeo. Cada fila de A₂A₁ suma 1 (de { $low } a { $high }), así que es a su vez una tabla de pesos de atención.
softmax-stack-collapse-note = Los productos de matrices se reagrupan, así que, conocidos A₁ y A₂, lo que la segunda capa hace con la salida de la primera es una sola mezcla de los tokens y una sola aplicación lineal de sus números. Aquí la pila no gana nada: lo que la hace más que una capa es cómo se obtienen A₁ y A₂ a partir de X.
softmax-stack-linear-title = ¿Es la pila una aplicación lineal de X?
softmax-stack-scale = escala de la entrada: c
softmax-stack-how = cómo se obtienen los pesos
# $c is the scale
softmax-stack-scaling = f({ $c }·X) frente a { $c }·f(X)
softmax-stack-sum = f(X + X′) frente a f(X) + f(X′)
softmax-stack-ratio = f({ $c }·X) ÷ f(X), elemento a elemento
softmax-stack-held = fijos (calculados una vez desde X)
softmax-stack-scores = QKᵀ/√d, sin softmax
softmax-stack-softmax = softmax(QKᵀ/√d)
# one number: every entry scaled alike
softmax-stack-ratio-one = todos { $ratio }
softmax-stack-ratio-range = de { $low } a { $high }
# $c9 is c to the ninth power
softmax-stack-linear-reading = Los errores relativos dicen qué filas son lineales: 0 salvo redondeo solo con los pesos fijos. Sin softmax cada elemento crece por el mismo c⁹ = { $c9 } con c = { $c }: las puntuaciones multiplican X por sí misma (A₁ crece como c², Y₁ como c³, A₂ como c⁶, Y₂ como c⁹), un polinomio de grado 9, no una aplicación lineal, pero que solo reescala el patrón. Con softmax los elementos cambian por factores distintos: los propios pesos cambian de forma.
softmax-stack-linear-note = Así que «la atención apilada sin softmax se reduce a una aplicación lineal» solo es cierto cuando los pesos no dependen de la entrada. La no linealidad de la atención está en cómo se obtienen los pesos: los productos QKᵀ y luego el softmax, que los normaliza y los afila. Una capa feed-forward con ReLU tras cada capa de atención añade la no linealidad elemento a elemento que piden los apuntes.

# Textos emergentes de los botones de puntuaciones ya preparadas.
softmax-preset-worked = el ejemplo resuelto de los apuntes
softmax-preset-soft = suave: los gradientes llegan a ambas puntuaciones
softmax-preset-saturated = ×10 = [20, 10]: saturada, el gradiente se desvanece
softmax-preset-far = una puntuación muy por encima del resto

# followed by the formula, drawn as a display formula
softmax-scores-intro = Softmax convierte cualquier puntuación e en pesos α positivos que suman 1. Escribe puntuaciones o elige un ejemplo.
# Etiqueta de la casilla donde se escriben las puntuaciones.
softmax-scores-label = puntuaciones e =
softmax-scale = multiplica cada puntuación por s (s = 1/τ)
# $bits y $max: entropías en bits, ya formateadas; $count: cuántas puntuaciones.
softmax-entropy = entropía H(α) = −Σ αᵢ log₂ αᵢ = { $bits } bits (0 cuando un peso se lo lleva todo, log₂ { $count } = { $max } cuando todos son iguales)
softmax-jacobian-title = El jacobiano ∂αᵢ/∂eⱼ = αᵢ(δᵢⱼ − αⱼ)
softmax-jacobian-note = Cuánto se mueve el peso i al empujar la puntuación j (fila i, columna j). Cada columna suma 0: los pesos siempre suman 1, así que lo que subir la puntuación j da a unos pesos se lo quita a los demás. J es simétrica, así que cada fila también suma 0.
softmax-shift-note = Restar primero la puntuación más alta no cambia nada (se cancela entre numerador y denominador), pero deja cada exponencial en 1 como mucho, así que nada desborda.

# El final de softmax-largest-gradient ($trend).
softmax-trend-tied = las puntuaciones más altas están empatadas, así que siguen repartiéndose el peso y no cae a 0
softmax-trend-apart = a medida que las puntuaciones se separan, cae hacia 0
# $value: el mayor gradiente; $s: la escala; $trend: softmax-trend-tied o softmax-trend-apart.
softmax-largest-gradient = El mayor |∂αᵢ/∂eⱼ| es { $value } con s = { $s }: { $trend }
softmax-plot-title = mayor |∂α/∂e| al multiplicar cada puntuación por s
# La marca de la escala s actual en el gráfico.
softmax-plot-s-now = s actual
softmax-plot-x = s (cada puntuación multiplicada por s)
softmax-plot-y = mayor |∂α/∂e|
softmax-plot-line = mayor gradiente

softmax-matrices-intro = Escribe matrices pequeñas, una fila por token: filas separadas por ; o saltos de línea, números por espacios o comas. Q tiene una fila por consulta; K y V, una fila por clave.
softmax-q-label = Q (consultas × d_k)
softmax-k-label = K (claves × d_k)
softmax-v-label = V (claves × d_v)
softmax-worked-again = volver al ejemplo resuelto
softmax-routing = el enrutado de los apuntes: 0.1, 0.3, 0.6
softmax-routing-hover = Tres salidas, cada una con su propia mezcla de los mismos tres valores. Cada consulta contiene los logaritmos de sus pesos y las claves son vectores unitarios por √3, que la división entre √d_k anula, así que la softmax devuelve exactamente los pesos. Los valores son vectores unitarios con un 1 añadido: cada salida muestra su mezcla, y su último número, la suma de sus pesos, es 1.
softmax-step-scores = 1. S = QKᵀ: cada consulta contra cada clave
# Los nombres de las filas y columnas de una matriz (los leen los lectores de pantalla).
softmax-axis-query = consulta
softmax-axis-key = clave
softmax-axis-dimension = dimensión
softmax-read-by = leer por
softmax-read-rows = filas de A: lo que reúne una consulta
softmax-read-columns = filas de Aᵀ: quién escucha a una clave
softmax-step-transposed = 3. Aᵀ: la columna i es el softmax de la consulta i (como en los apuntes)
softmax-step-weights = 3. A = softmax de cada fila de E
softmax-step-context = 4. C = AV: el vector de contexto de cada consulta
softmax-query-pick = consulta:
softmax-key-pick = clave:
# $query: el nombre de la consulta (q1); $index: su número; $terms: "0.50·v1 + 0.50·v2"; $context: los números de su vector de contexto.
softmax-gathers = { $query } reúne c{ $index } = { $terms } = [{ $context }]: sus pesos suman 1
# $key: el nombre de la clave (k1); $readers: "q1 0.50, q2 0.10"; $received: su suma; $total: cuántas consultas hay.
softmax-listeners = { $key } la leen { $readers }: { $received } en total, de los { $total } que reparten las consultas. El total de una clave no tiene por qué ser 1: a algunas claves las leen todas, a otras ninguna.
softmax-export-steps = pasos en JSON

## Por qué no se pueden leer las puntuaciones o matrices escritas ($word: lo que escribió el estudiante)

softmax-error-not-finite = `{ $word }` no es un número finito
softmax-error-too-large = `{ $word }` es demasiado grande: usa números entre −1 000 000 y 1 000 000
softmax-error-not-number = `{ $word }` no es un número
softmax-error-no-number = escribe al menos un número, p. ej. 0, 2, 1
softmax-error-too-many = { $count } números: como mucho caben { $max } en una fila legible
softmax-error-no-row = escribe al menos una fila, p. ej. 1, 0; 0, 1
# $rows × $cols: el tamaño de la matriz escrita; $max: el mayor tamaño que cabe.
softmax-error-too-big = { $rows } × { $cols }: como mucho cabe { $max } × { $max } en pantalla con todos los números
softmax-error-ragged = la fila { $row } tiene { $count } números, pero la fila 1 tiene { $width }: todas las filas deben tener la misma longitud
softmax-error-widths = cada consulta tiene { $query } números, pero cada clave tiene { $key }: q·k necesita la misma longitud
softmax-error-values = { $keys } claves pero { $values } valores: cada clave necesita su valor (una fila de V cada una)
