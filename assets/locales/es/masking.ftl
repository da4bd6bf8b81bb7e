## El laboratorio de máscaras: modos de máscara en el modelo elegido, relleno en un lote, las
## tres familias de modelos y teacher forcing. <pad>, <bos> y <eos> son nombres de tokens.

masking-section-modes = Modos de máscara
masking-section-batch = Relleno en un lote
masking-section-families = Tres familias
masking-section-teacher = Teacher forcing
# $model is the name of the model being loaded
masking-loading = cargando { $model }…
masking-load-first = primero carga un modelo (el selector de modelos de arriba)
# Items of the export menu: the attention weights A saved as a file
masking-export-csv = A (pesos) como CSV
masking-export-json = A (pesos) como JSON

## Modos de máscara

masking-mode-none = ninguna
masking-mode-causal = causal
masking-mode-padding = relleno
masking-mode-causal-padding = causal + relleno
masking-mode-prefix = prefijo-LM
masking-mode-custom = propia (clic en M)
masking-mode-none-explain = Cada consulta ve todas las claves, <pad> incluido.
masking-mode-causal-explain = Una consulta solo se ve a sí misma y a las posiciones anteriores: lo que necesita un decodificador para no leer la respuesta que debe predecir.
masking-mode-padding-explain = Las claves que son <pad> quedan bloqueadas para todas las consultas; todo lo demás es visible.
masking-mode-causal-padding-explain = Ambas: solo posiciones anteriores, y nunca <pad>.
masking-mode-prefix-explain = Las primeras n posiciones se ven entre sí en ambos sentidos (el prompt); después de ellas, causal.
masking-mode-custom-explain = Tu propia máscara: haz clic en una celda de M para bloquearla o permitirla.
# Hover notes on the rows of the weights A; $row is a row number
masking-row-no-key = fila { $row }: ninguna clave visible, así que todos los pesos son 0 y esta cabeza no pasa nada a este token
# $visible counts the keys the row may see; $sum is a number such as 1.000000
masking-row-sum = fila { $row }: { $visible } clave(s) visible(s); los pesos restantes suman { $sum }
# The accessible name of the clickable mask M
masking-m-name = máscara M
masking-m-allowed = 0: permitida
masking-m-blocked = −∞: bloqueada
# Hover text on a cell of M: $query and $key are tokens, $state is masking-m-allowed or masking-m-blocked
masking-m-hover =
    consulta { $row } “{ $query }” → clave { $col } “{ $key }”: { $state }
    clic para alternar (máscara propia)
masking-attention = atención:
masking-cross = atención cruzada
masking-mask = máscara:
masking-pads-appended = tokens <pad> añadidos
masking-prefix-length = longitud del prefijo n
masking-no-such-attention = este modelo no tiene esa atención
# $kind is the attention's name, e.g. "decoder self-attention"
masking-layer-head-kind = capa { $layer } · cabeza { $head } · { $kind }
# The names of a heatmap's rows and columns, in its hover text
masking-axis-query = consulta
masking-axis-key = clave
masking-e-title = E = QKᵀ/√d_k (+ sesgo)
masking-m-title = M (0 o −∞)
masking-e-context = E: puntuaciones escaladas
masking-em-context = E + M: la entrada del softmax
masking-a-context = A: pesos (las celdas bloqueadas son exactamente 0)
masking-zeros = { $zeros } celda(s) bloqueada(s); su peso es exactamente 0 en { $exact } de ellas. Pasa el ratón por una fila de A: sus pesos restantes siguen sumando 1.
masking-block-row = bloquear todas las claves de la fila 0
masking-reset-custom = volver a causal + relleno
masking-code = código de máscara:
# $token is the query row's token
masking-empty-row = La fila de consulta { $row } (“{ $token }”) no tiene ninguna clave visible. Un softmax sobre nada no está definido (PyTorch da NaN, que se propagaría por todas las capas siguientes); Glimpse da a la fila pesos todos cero, así que esta cabeza no pasa nada a ese token y su flujo residual sigue sin cambios.

## Relleno en un lote

# $extra counts the extra <pad> tokens; $model is a model's name
masking-batch-intro-encoder = Un lote de secuencias de distinta longitud, rellenadas con <pad> hasta la más larga (+ { $extra } de más) y pasadas por el codificador de “{ $model }”. Edítalas:
masking-batch-intro-decoder = Un lote de secuencias de distinta longitud, rellenadas con <pad> hasta la más larga (+ { $extra } de más) y pasadas por el decodificador de “{ $model }”. Edítalas:
# $n numbers the sequence
masking-batch-sequence = secuencia { $n }
masking-batch-remove = quitar
masking-batch-add = añadir una secuencia
masking-batch-padding-mask = máscara de relleno
masking-batch-extra = <pad> de más
masking-batch-causal-note = En un decodificador causal, el relleno a la derecha queda detrás de todos los tokens reales, así que la máscara causal ya lo oculta; el relleno importa en los codificadores (y en lotes rellenados por la izquierda).
masking-batch-sequence-counts = secuencia { $n }: { $real } reales + { $pads } <pad>
# $weight is a number such as 0.0123
masking-batch-pad-weight = mayor peso en <pad>: { $weight }
masking-batch-identical = salidas de los tokens reales frente a solos: idénticas
# $change is a number such as 1.23e-3
masking-batch-drift = salidas de los tokens reales frente a solos: cambio máx. { $change }
masking-batch-context = secuencia { $n } · capa { $layer } · cabeza { $head }
masking-batch-with-mask = Con la máscara de relleno, las claves <pad> reciben exactamente 0 de peso y los tokens reales calculan exactamente lo mismo que solos, por mucho relleno que se añada.
masking-batch-without-mask = Sin la máscara de relleno, los tokens reales gastan atención en <pad> y sus salidas cambian con la cantidad de relleno: la misma frase da respuestas distintas según su lote.

## Las tres familias. translate, lm, reverse y reverse-nomask son nombres de modelos.

masking-families-heading = Un bloque, tres familias
masking-families-intro = Las tres apilan el mismo bloque: atención y luego una red feed-forward, cada una con una conexión residual y LayerNorm. Lo que cambia es qué tokens puede ver cada atención: su máscara.
masking-families-key = Máscaras: amarillo = permitida (1), gris rayado = bloqueada (0). Pesos: oscuro = 0, amarillo = 1; cada fila suma 1. Pasa el ratón por una celda para ver sus tokens.
masking-families-encoder = solo codificador: sin máscara
# $example is the model's French input sentence (data, not translated)
masking-families-encoder-intro = Un modelo solo codificador (tipo BERT) es esta misma pila por sí sola, sin máscara. El ejemplo solo codificador que trae Glimpse es el codificador de translate, aquí con “{ $example }”.
masking-families-decoder = solo decodificador: causal
# $example is the model's English input text (data, not translated)
masking-families-decoder-intro = lm, un modelo de lenguaje por caracteres (tipo GPT), con “{ $example }”: una pila, máscara causal. El texto empieza con <bos>.
masking-families-both = codificador–decodificador: auto causal + cruzada completa
masking-families-both-intro = translate: el codificador de la izquierda alimenta un decodificador cuya autoatención es causal y cuya atención cruzada alcanza todos los tokens de origen.
masking-families-sees-encoder = Puede ver todos los tokens de origen, antes y después de sí; no puede ver ninguna salida: solo lee.
masking-families-sees-lm = Puede verse a sí mismo y a todos los caracteres anteriores; no ve los posteriores, así que entrena en todas las posiciones a la vez y luego genera.
masking-families-sees-decoder = Puede ver <bos> y las palabras escritas hasta ahora; no ve las palabras que faltan.
masking-families-sees-cross = Puede ver todos los tokens de origen en cada paso: el origen se lee entero antes de empezar a escribir.
masking-families-bad-example = { $model }: el ejemplo tiene tokens desconocidos o demasiados
# $kind is an attention's name, e.g. "cross-attention"
masking-families-no-attention = { $model } no tiene { $kind }
masking-families-mask = máscara (1 = permitida, 0 = bloqueada)
# $attention is e.g. "translate · cross-attention"
masking-families-mask-context = { $attention } · máscara
masking-families-weights = pesos · capa { $layer } · cabeza { $head } (la más nítida)
masking-families-weights-context = { $attention } · capa { $layer } · cabeza { $head }

## Teacher forcing. reverse y reverse-nomask son nombres de modelos.

masking-teacher-heading = Teacher forcing y la máscara causal
masking-teacher-intro = En el entrenamiento el decodificador no lee sus propias conjeturas: lee la respuesta correcta desplazada un paso a la derecha (teacher forcing, forzado del profesor). La tarea aquí es escribir el origen al revés.
masking-teacher-source = origen (letras a–j):
# $target is the source text written backwards
masking-teacher-target = destino (el origen al revés): { $target }
masking-teacher-position = posición
masking-teacher-decoder-input = entrada del decodificador = <bos> + destino
masking-teacher-labels = etiqueta = destino + <eos>
masking-teacher-one-pass = Con la máscara causal todas las posiciones se entrenan en una sola pasada, cada una viendo solo los tokens de destino anteriores.
masking-teacher-runs = Tres ejecuciones con teacher forcing
masking-teacher-run-a = (a) reverse, con máscara causal
masking-teacher-run-a-note = Como se entrenó: cada posición solo ve <bos> y los tokens anteriores de la respuesta.
masking-teacher-run-b = (b) reverse, sin máscara
masking-teacher-run-b-note = Entrenado de forma causal, ahora también ve tokens posteriores que nunca aprendió a usar.
masking-teacher-run-c = (c) reverse-nomask, como se entrenó
masking-teacher-run-c-note = Entrenado sin la máscara: copia el siguiente token de entrada, que es la etiqueta.
masking-teacher-low-loss = Una pérdida baja con teacher forcing demuestra poco por sí sola: (c) puntúa tan bien como (a). La generación, abajo, los distingue.
# Column headings of a run's table
masking-teacher-col-pos = pos
masking-teacher-col-input = entrada
masking-teacher-col-label = etiqueta
masking-teacher-col-predicted = predicho
masking-teacher-col-p-label = p(etiqueta)
masking-teacher-col-loss = pérdida
# $loss is a number; $right of $total positions predicted right; $percent a whole number
masking-teacher-mean-loss = pérdida media { $loss } · precisión { $right }/{ $total } ({ $percent }%)
masking-teacher-generation = Generación: ninguna respuesta que copiar
masking-teacher-generation-intro = Ahora cada modelo escribe la respuesta por sí mismo, token a token desde <bos>, realimentando sus propias conjeturas. No hay ningún token posterior que mirar.
masking-teacher-right = bien
masking-teacher-wrong = mal
# $model is a model's name, $text what it wrote, $mark is masking-teacher-right or masking-teacher-wrong
masking-teacher-writes = { $model } escribe “{ $text }”: { $mark }
masking-teacher-writes-no-end = { $model } escribe “{ $text }” (sin <eos>: se detuvo en max_len): { $mark }
masking-teacher-expected = se esperaba “{ $text }”
masking-teacher-cheats = Cómo hace trampa reverse-nomask
masking-teacher-no-run = no hay ninguna ejecución de reverse-nomask que mostrar
masking-teacher-no-self-attention = este modelo no tiene autoatención en el decodificador
masking-teacher-cheat-context = reverse-nomask · autoatención del decodificador · capa { $layer } · cabeza { $head }
# $context is masking-teacher-cheat-context; $percent a whole number
masking-teacher-cheat-mean = { $context }: de media, el { $percent }% del peso de cada fila recae en la posición siguiente.
# The caption of the heatmap's colour legend
masking-teacher-weight = peso
masking-teacher-cheat-explain = La fila i es el decodificador en la posición i, cuya etiqueta es la entrada en la posición i+1. Sin máscara causal, esta cabeza pone su peso justo a la derecha de la diagonal, en ese mismo token, y lo copia: pérdida ~0 sin haber aprendido nada de invertir. En la generación la posición i+1 aún no se ha escrito, así que no hay nada que copiar y la salida se rompe.
# Errors: $model is a model's name, $pieces the unknown pieces, each in quotes
masking-teacher-unknown-source = el origen tiene piezas que { $model } no conoce: { $pieces }
masking-teacher-unknown-target = el destino tiene piezas que { $model } no conoce: { $pieces }
# Follows the error above; $tokens lists every token the model knows
masking-teacher-knows = (conoce { $tokens })
masking-exposure-title = Sesgo de exposición: los errores en marcha libre se acumulan
# $model is a model name
masking-exposure-intro = El teacher forcing entrena cada posición sobre el prefijo correcto, así que el modelo nunca lee sus propios errores. Decodificando libremente lee sus propias salidas y, tras un primer error, lee un prefijo que nunca vio en el entrenamiento. El modelo { $model } se entrenó con teacher forcing para repetir una secuencia aleatoria de letras; aquí responde a secuencias reservadas de las dos maneras, y cada token se compara con la respuesta verdadera.
# $forced, $free and $after are percentages; $exact and $forced_exact count whole answers
masking-exposure-summary = { $done } de { $total } secuencias reservadas: con teacher forcing falla el { $forced } de los tokens de la respuesta, en marcha libre el { $free }. Tras un primer error, en marcha libre falla el { $after } de los tokens siguientes. Respuestas enteras correctas: { $exact } en marcha libre, { $forced_exact } con todos los tokens correctos con teacher forcing.
masking-exposure-plot = Tasa de error en cada posición de la respuesta
masking-exposure-position = posición en la respuesta
masking-exposure-axis = tokens erróneos (%)
masking-exposure-forced = teacher forcing (prefijo verdadero)
masking-exposure-free = marcha libre (sus propias salidas)
masking-exposure-after = marcha libre, tras un error anterior
masking-exposure-note = Mientras el prefijo en marcha libre sigue siendo correcto es exactamente el del teacher forcing, así que las dos tasas solo pueden separarse tras un primer error: la distancia entre las líneas son errores que traen errores. El scheduled sampling, que a veces da al modelo sus propias salidas durante el entrenamiento, es un remedio.
