## El laboratorio de atención: las cuatro vistas del explorador sobre una traza (una cabeza,
## todas las cabezas, la vista de cabezas, el recorrido)

attention-view-head = Una cabeza
attention-view-grid = Todas las cabezas
attention-view-lines = Vista de cabezas
attention-view-walkthrough = Recorrido
# La atención elegida, como título. $kind es el tipo de atención tal como lo nombra el modelo
# ("encoder self-attention", "cross-attention"…).
attention-selection = capa { $layer } · cabeza { $head } · { $kind }
# Entrada del menú de exportación: la atención de esta capa como archivo JSON.
attention-export-layer-json = capa como JSON
# $entropy, $max, $distance: números; $pattern: el patrón de la cabeza y su puntuación
# ("previous token 0.93"); $next: los siguientes mejores patrones con sus puntuaciones.
attention-head-stats = entropía { $entropy } de { $max } bits como máximo · distancia media { $distance } · { $pattern } (siguientes: { $next })
attention-no-walkthrough = no hay recorrido para esta selección

## Una cabeza: el mapa de calor de sus pesos o de la entrada del softmax

attention-head-after-softmax = tras el softmax (pesos)
attention-head-before-softmax = antes del softmax (puntuaciones escaladas)
attention-head-numbers = números en las celdas
attention-head-zoom = zoom
attention-head-zoom-hover = o Ctrl + rueda sobre el mapa de calor; las barras de desplazamiento lo mueven
# El nombre de un valor en la leyenda del mapa de calor, y el mismo en plural.
attention-head-score = puntuación
attention-head-scores = puntuaciones
attention-head-weight = peso
attention-head-weights = pesos
attention-head-explain-scores = Entrada del softmax: QKᵀ/√d_k (÷τ) más el sesgo posicional que haya; las celdas rayadas están enmascaradas (−∞). Rojo es positivo, azul negativo.
attention-head-explain-weights = Pesos de atención A = softmax(QKᵀ/√d_k): cada fila es un token de consulta, cada columna un token de clave; las filas suman 1.
# Una línea en lugar de la frase en una pantalla baja. $what es attention-head-scores o
# attention-head-weights.
attention-head-short = { $what }: las filas son consultas, las columnas claves (pasa el puntero para más)
# Uno de los valores mayores de la consulta elegida: $value en la clave número $key, cuyo texto es $token.
attention-head-readout-key = { $value } en { $key } “{ $token }”
# $query: el número de la consulta; $token: su texto; $what: attention-head-scores o
# attention-head-weights; $best: hasta cuatro attention-head-readout-key unidos por " · ".
attention-head-readout = consulta { $query } “{ $token }” (recuadrada; haz clic en otra fila): { $what } mayores { $best }
# Los nombres de las filas y columnas del mapa de calor de una cabeza (también los leen los lectores de pantalla).
attention-axis-query = consulta
attention-axis-key = clave

## La vista de cabezas: líneas de los tokens de consulta a los de clave, un color por cabeza

attention-lines-heads = cabezas:
# El interruptor de una cabeza; el cuadrado se dibuja en el color de la cabeza.
attention-lines-head = ■ cabeza { $head }
attention-lines-explain = Cada línea une una consulta (izquierda) con una clave (derecha); su opacidad es el peso de atención. Pasa el puntero sobre un token para ver solo sus líneas.

## Todas las cabezas: las cabezas halladas en esta entrada, la cuadrícula de miniaturas y la tabla de cabezas

# Una cabeza por su lugar, como enlace, primera línea de un texto emergente y título.
attention-layer-head = capa { $layer } · cabeza { $head }
attention-finder-title = Cabezas halladas en esta entrada
attention-finder-explain = Para cada patrón, la cabeza que lo muestra con más fuerza. Una puntuación es la atención media en ese lugar; desde 0.50 la mayor parte de la atención de una cabeza va ahí, por debajo la cabeza solo se inclina hacia ahí (en gris). Haz clic en una cabeza para abrirla.
# $kind: el tipo de atención tal como lo nombra el modelo ("decoder self-attention"…).
attention-grid-explain = { $kind }: { $layers } capas × { $heads } cabezas, y la media de las cabezas. Cada miniatura es un mapa consulta × clave (inferno, de negro 0 a amarillo pálido 1; gris rayado = enmascarado). Haz clic en una para abrirla.
attention-grid-head = cabeza { $head }
attention-grid-mean = media
attention-grid-layer = capa { $layer }
# Lo que dice un lector de pantalla de una miniatura (un botón).
attention-grid-thumbnail = capa { $layer } cabeza { $head }
# Lo que dice un lector de pantalla de la miniatura de la media (una imagen).
attention-grid-mean-thumbnail = capa { $layer } media de las cabezas
attention-grid-mean-hover = capa { $layer }: la media de sus { $heads } cabezas
attention-grid-mean-caption = media de las cabezas
# El pie de una cabeza cuando no destaca ningún patrón.
attention-grid-no-pattern = sin patrón claro
# $entropy, $max, $distance: números.
attention-grid-numbers = entropía { $entropy } de { $max } bits como máximo · distancia media { $distance }
attention-table-title = Qué hace cada cabeza (calculado a partir de sus pesos en esta entrada)
attention-table-layer = capa
attention-table-head = cabeza
attention-table-entropy = entropía (bits)
attention-table-max = máximo
attention-table-distance = distancia media
attention-table-pattern = patrón
attention-table-scores = todas las puntuaciones

## El recorrido: softmax(QKᵀ/√d_k)V matriz a matriz, luego el resto del bloque y la capa de
## salida. Las fórmulas quedan como están; solo se traducen sus palabras.

attention-walk-back = ◀ Atrás
attention-walk-next = Siguiente ▶
attention-walk-keys = (teclas ← →)
attention-walk-query = consulta:
# $formula: la fórmula del paso ("S = QKᵀ: 5 × 5").
attention-walk-heading = Paso { $step } de { $steps }: { $formula }
# El nombre de las columnas de una matriz del recorrido (sus filas son attention-axis-query o -key).
attention-walk-axis-column = columna
# Bajo una matriz demasiado ancha para celdas: cada fila se dibuja como una franja fina.
attention-walk-strips = una franja por fila, { $columns } columnas; pasa el puntero para ver los valores exactos
# La fila elegida de una matriz ancha, escrita: $token es su texto, $values sus primeros y
# últimos números ("[0.12, 0.40, …, 1.30]").
attention-walk-row = fila { $row } “{ $token }” = { $values }
# Tras los mayores términos de una suma ponderada: cuántos menores se omiten.
attention-walk-sum-more = + { $count } más

# Los nombres de los pasos cuyo título son palabras (las fichas sobre el paso).
attention-walk-title-mask = + máscara
attention-walk-title-cross-attn = atn. cruzada
attention-walk-title-final-norm = norma final
attention-walk-title-memory = memoria
attention-walk-title-output = salida
attention-walk-title-mlm = transf. MLM
attention-walk-title-softmax-vocab = softmax (vocab.)

attention-walk-x-explain-cross = El flujo del decodificador entra como consultas; las claves y los valores vienen de la salida del codificador (la memoria).
attention-walk-x-explain-pre = La entrada de la capa, una fila por token (tras la LayerNorm).
attention-walk-x-explain-post = La entrada de la capa, una fila por token (el flujo residual).
# $width: el ancho d_k de la cabeza.
attention-walk-qkv-formula = Q = X W_Qᵀ + b_Q, K = X W_Kᵀ + b_K, V = X W_Vᵀ + b_V: cada una de ancho { $width }
attention-walk-qkv-formula-rope = Q = X W_Qᵀ + b_Q, K = X W_Kᵀ + b_K, V = X W_Vᵀ + b_V: cada una de ancho { $width }, luego Q y K rotadas por RoPE
attention-walk-qkv-explain = La cabeza { $head } tiene su propia porción de las proyecciones (d_k = { $width }). Las consultas preguntan, las claves responden, los valores son lo que se transmite.
attention-walk-score-dot = El producto escalar de cada consulta con cada clave: cuánto se parecen.
attention-walk-score-additive = Puntuación aditiva (Bahdanau): una pequeña red de una capa valora cada par consulta–clave.
attention-walk-score-bilinear = Puntuación bilineal (la "general" de Luong): una matriz W aprendida entre consulta y clave.
attention-walk-scale-explain = Dividir por √d_k mantiene la dispersión de las puntuaciones cerca de 1 sea cual sea el ancho de la cabeza, así el softmax no se satura.
attention-walk-scale-explain-tau = Las puntuaciones aditivas y bilineales no se dividen por √d_k: sus pesos aprendidos fijan su propia escala. Solo las divide la temperatura τ (τ = 1 las deja igual).
attention-walk-panel-bias = sesgo posicional
attention-walk-panel-mask = + máscara (−∞ rayado)
# $scaled: el símbolo de las puntuaciones escaladas, "S/√d_k" o "S/τ".
attention-walk-mask-formula = L = { $scaled } + sesgo, con −∞ donde la máscara lo prohíbe
# $why: uno de attention-walk-mask-causal, -cross, -encoder.
attention-walk-mask-explain = { $masked } de { $cells } celdas están enmascaradas ({ $why }): tras el softmax su peso es exactamente 0.
attention-walk-mask-causal = causal: un token solo se ve a sí mismo y a los tokens anteriores
attention-walk-mask-cross = solo relleno: cada token de destino puede leer todos los tokens de origen
attention-walk-mask-encoder = solo relleno: cada token ve todos los tokens
attention-walk-softmax-formula = A = softmax(L), fila a fila: aᵢⱼ = exp(Lᵢⱼ) / Σⱼ' exp(Lᵢⱼ')
attention-walk-softmax-explain = Cada fila se vuelve una distribución de probabilidad sobre las claves que puede ver.
attention-walk-av-explain = La salida de cada consulta es la media de las filas de valores, ponderada por su fila de A (elige una consulta para ver la suma).
attention-walk-concat-explain = Las { $heads } cabezas una junto a otra; las columnas de la cabeza { $head } son las calculadas arriba.
attention-walk-wo-explain = La proyección de salida vuelve a mezclar las cabezas en el ancho del modelo; esto se suma al flujo residual.
attention-walk-panel-output = salida

## El recorrido tras la atención: sumas residuales, normalizaciones, la red feed-forward, y en
## qué se convierte la salida de la pila

attention-walk-layernorm-explain = Cada token se normaliza sobre sus propias d características: resta su media μ, divide por su desviación típica, luego escala por γ y desplaza por β (ambos aprendidos, un número por característica). Los demás tokens y las demás frases no intervienen.
attention-walk-rmsnorm-explain = RMSNorm divide cada token por la raíz de su media cuadrática (sin centrar, sin β) y luego escala por la γ aprendida.
attention-walk-panel-statistics = estadísticas
# Los paneles de la red feed-forward en un modelo con compuerta (Llama).
attention-walk-panel-gate = compuerta x W_gᵀ
attention-walk-panel-up = ensanche x W₁ᵀ
attention-walk-panel-hidden = oculta h
# $act: el nombre de la no linealidad ("SiLU"); $d: el ancho del modelo; $ff: el ancho oculto.
attention-walk-ffn-formula-gated = FFN(x) = ({ $act }(x W_gᵀ) ⊙ x W₁ᵀ) W₂ᵀ: { $d } → d_ff = { $ff } → { $d } (con compuerta)
# $ratio: d_ff / d ("4.0"); $positive: un porcentaje ("52").
attention-walk-ffn-explain = La red feed-forward trabaja sobre cada token por separado: la atención mezcló los tokens, esta transforma cada uno. Se ensancha a d_ff = { $ff } ({ $ratio }·d), aplica la no linealidad y vuelve a estrecharse. Aquí el { $positive }% de los valores ocultos son positivos.
attention-walk-panel-stream = x (el flujo)
attention-walk-residual-pre = La conexión residual: la salida de la subcapa se suma al flujo que leyó, así el flujo lleva la contribución de cada capa anterior por un camino directo. Pre-norm: nada normaliza el flujo en sí.
attention-walk-residual-post = La conexión residual: la salida de la subcapa se suma a su entrada. Post-norm (el transformer original): la suma se normaliza a continuación.
attention-walk-residual-ffn = La segunda conexión residual: la salida de la FFN se une al flujo.
# $norm: "LayerNorm" o "RMSNorm". Lo que normaliza un paso de normalización, antes de su fórmula.
attention-walk-norm-after-attention = { $norm } tras la atención
attention-walk-norm-before-ffn = { $norm } antes de la FFN
attention-walk-norm-after-ffn = { $norm } tras la FFN: la salida del bloque
attention-walk-norm-final = la { $norm } final tras la última capa
attention-walk-cross-formula-pre = x + CrossAttn(LN(x), memoria)
attention-walk-cross-formula-post = LN(x + CrossAttn(x, memoria))
attention-walk-cross-explain = Después, la atención cruzada del decodificador lee la salida del codificador y suma lo que encontró (elige la atención cruzada arriba para recorrerla paso a paso).
attention-walk-panel-cross-output = salida de la atención cruzada
attention-walk-panel-stream-after = flujo después
# Lo que hacen las capas siguientes, al comienzo de una frase ($later en los mensajes de abajo).
attention-walk-later-last = Esta es la última capa
attention-walk-later-one = La capa { $layer } funciona igual sobre esta salida
attention-walk-later-many = Las capas { $first }–{ $last } funcionan igual, cada una sobre la anterior
# $explain: attention-walk-layernorm-explain o -rmsnorm-explain.
attention-walk-final-norm-explain = { $later }; una pila pre-norm nunca normaliza su flujo dentro de los bloques, así que termina con una última { $norm }. { $explain }
attention-walk-memory-explain = { $later }. La salida del codificador es la memoria: la atención cruzada de cada capa del decodificador lee sus claves y valores de estas filas. En este lado no hay capa de vocabulario.
# $model: el nombre del modelo.
attention-walk-encoder-output-explain = { $later }. { $model } no tiene capa de salida (un codificador de frases se queda con las filas de la última capa, promediadas en un vector por frase): estas filas son su resultado.
attention-walk-stack-output-formula = la salida de la pila: { $rows } × { $cols }
attention-walk-mlm-what = la transformación de la cabeza de masked-LM LN(act(h Wᵀ + b))
attention-walk-mlm-explain = La cabeza de masked-LM de BERT primero pasa cada fila por una capa densa más y una LayerNorm. { $explain }
attention-walk-panel-vocab-tied = W_vocab = E (filas del embedding)
attention-walk-panel-vocab = filas de W_vocab
# $vocab: el tamaño del vocabulario; $d: el ancho del modelo.
attention-walk-tied = La matriz de salida está atada (tied): es el propio embedding de tokens E ({ $vocab } × { $d }), así el logit de un token es el producto escalar de h con el vector que lo embebió.
attention-walk-not-tied = La matriz de salida de este modelo es propia ({ $vocab } × { $d }), no atada al embedding.
# $bias: " + b" o nada; $shown: cuántas columnas del vocabulario se dibujan.
attention-walk-logits-formula = logits = h W_vocabᵀ{ $bias }: { $rows } × { $vocab } (las { $shown } columnas mostradas son los tokens más probables)
# $tying: attention-walk-tied o attention-walk-not-tied.
attention-walk-logits-explain = { $later }. Cada fila de la salida h de la pila se puntúa contra cada entrada del vocabulario. { $tying }
attention-walk-reading-next = La fila t es la apuesta del modelo por el token tras la posición t
attention-walk-reading-blanks = La fila t es la apuesta del modelo por el token en la posición t (para eso están los huecos)
attention-walk-vocab-formula = p = softmax(logits) sobre los { $vocab } tokens, fila a fila
# $reading: attention-walk-reading-next o -blanks; $best: pares "token → siguiente token más probable".
attention-walk-vocab-explain = { $reading }. Lo más probable: { $best }.
