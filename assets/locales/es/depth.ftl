## El laboratorio de profundidad: el flujo residual y los gradientes a través de N bloques,
## pre-norm junto a post-norm, en la inicialización y entrenados lado a lado.

depth-section-init = en la inicialización
depth-section-trained = entrenados lado a lado
# An item of the export menu
depth-export-data = datos como JSON
# The two places the LayerNorm can go, as named in plots' legends
depth-pre-norm = pre-norm
depth-post-norm = post-norm
# A plot's x axis and its name in plot summaries: a block's number
depth-block = bloque
# Written before the seed's number
depth-seed = semilla

## En la inicialización

depth-intro = Apila N bloques y compara dónde va la LayerNorm. Post-norm (el transformer original) normaliza el flujo después de cada subcapa: x ← LN(x + F(x)). Pre-norm (la mayoría de los modelos actuales) normaliza solo lo que lee cada subcapa: x ← x + F(LN(x)), así que el flujo es una suma acumulada y el gradiente tiene un camino intacto por cada conexión residual.
depth-blocks-n = bloques N
# $exponent is 2N; $paths is 2 to that power, with thousands separators
depth-paths = Caminos: cada bloque tiene dos conexiones residuales, y en cada una un camino pasa por la subcapa o la rodea: 2^(2N) = 2^{ $exponent } = { $paths } caminos de la entrada a la salida (el 2¹² = 4,096 de los apuntes es el codificador original: 6 bloques de 2 subcapas).
# $task is a task's name (copy, reverse…), kept in English
depth-fresh = Modelos nuevos, sin entrenar, de la tarea { $task } (d = 32, 4 cabezas), con la misma semilla y los mismos ejemplos para ambas posiciones.
depth-stream-heading = ‖x‖ del flujo residual al entrar en cada bloque (y al salir del último)
depth-gradients-heading = Norma del gradiente de los parámetros de cada bloque en la inicialización
depth-block-nearest = bloque (0 = el más cercano a la entrada)
# A plot's title in its summary; $quantity is a formula such as ‖x‖
depth-by-block = { $quantity } por bloque
# Every variable is a number such as 0.12 or 5.6
depth-summary = Post-norm: ‖x‖ vuelve a √d tras cada bloque; el gradiente es { $post_last } en el bloque más cercano a la salida y { $post_first } en el primero. Pre-norm: ‖x‖ crece de { $stream_first } a { $stream_last }; el gradiente es { $pre_first } en el primer bloque y { $pre_last } en el último.
# $model is a model's name, $norm is depth-pre-norm or depth-post-norm, $d its width
depth-picked = { $model } ({ $norm }, entrenado, { $blocks } bloques, d = { $d }): ‖x‖ al entrar en cada bloque con la entrada
depth-picked-stream = ‖x‖ del flujo del modelo elegido

## Entrenados lado a lado

depth-trained-heading = Entrenados lado a lado
# $task is a task's name (reverse), kept in English
depth-trained-intro = El mismo modelo de la tarea { $task } (d = 32, 4 cabezas, codificador y decodificador de N bloques cada uno), una vez pre-norm y otra post-norm, entrenado durante { $steps } pasos desde la misma semilla con los mismos ejemplos. Con dos bloques entrenan de ambas formas; con seis, post-norm sin calentamiento se estanca y pre-norm no. Activa el calentamiento (la tasa de aprendizaje subiendo durante los primeros 200 pasos) y post-norm vuelve a entrenar.
depth-blocks = bloques
depth-warmup = calentamiento (200 pasos)
# A column of the runs' table: the stream's length at the first block and at the last
depth-growth-column = ‖x‖ primer → último bloque
depth-trained-stream-heading = ‖x‖ del flujo de los decodificadores entrenados, al entrar en cada bloque (y al salir del último)
depth-trained-stream = ‖x‖ del flujo de los decodificadores entrenados
