## The Positions lab: every positional-encoding scheme, drawn with the functions the model runs

## Section chips (the sections of the lab)

positions-section-sinusoidal = Sinusoidal
positions-section-naive = Ingenua (t, t/N)
positions-section-learned = Tabla aprendida
positions-section-bias = ALiBi y relativa
positions-section-rope = RoPE
positions-section-permutation = Por qué: reordenar
positions-section-extrapolation = Más allá del entrenamiento
positions-section-own = El modelo elegido
positions-section-depth = A través de las capas

## Words several sections share

positions-slider-base = base
positions-slider-n = posiciones N
# $head is a head number
positions-head = cabeza { $head }
# a slider and an axis: the position t
positions-position-t = posición t
# an axis: the offset o between two positions
positions-offset-o = desfase o
positions-axis-position = posición
positions-axis-dimension = dimensión
positions-axis-position-i = posición i
positions-axis-position-j = posición j
# a slider: which attention head
positions-slider-head = cabeza
# a slider: which layer
positions-slider-layer = capa
# a heatmap axis: the query tokens
positions-axis-query = consulta
# a heatmap axis: the key tokens
positions-axis-key = clave

## Sinusoidal: the matrix, its bands and wavelengths, the binary counter, the rotation

positions-sin-first-positions = Las primeras posiciones, escritas
positions-sin-heading = Codificación posicional sinusoidal
positions-sin-slider-d = d (ancho del modelo)
# $d is the model width, $bands = d/2; $shortest, $longest and $limit are numbers already formatted
positions-sin-bands = d = { $d }: { $bands } bandas (pares de dimensiones), longitudes de onda de 2π = { $shortest } a { $longest } posiciones (2π·base = { $limit } es el límite al que tienden)
positions-sin-trained = En un modelo entrenado
# “reverse”, translate, copy and sort are model names; “abcdefgh” is the input
positions-sin-trained-about = “reverse” (y translate, copy, sort) suman estas codificaciones con d = { $d } y base 10000 a sus embeddings de tokens. Su autoatención del codificador, capa 0, sobre “abcdefgh”: con posiciones, las cabezas pueden atender por lugar (a las vecinas, al inicio), no solo por letra.
# names one heatmap for screen readers; reverse is the model name
positions-sin-trained-context = reverse · capa 0 del codificador · cabeza { $head }
positions-sin-band-title = Una banda según la posición
# a slider and an axis: the band number k
positions-sin-band-k = banda k
# $omega and $wavelength are numbers already formatted
positions-sin-band-about = banda { $band } (dimensiones { $dim_sin }, { $dim_cos }): ω_k = { $omega } rad por posición, longitud de onda { $wavelength } posiciones
positions-sin-band-note = Puntos: los valores que el modelo suma en posiciones enteras. Líneas: el seno y el coseno de fondo. Las primeras bandas oscilan rápido; las últimas apenas se mueven en N posiciones.
positions-sin-band-plot = banda { $band }: seno y coseno
positions-sin-axis-pe-value = valor de PE
positions-sin-circle-title = Una banda es un punto en la circunferencia unidad
# a slider: the position whose point is drawn on the circle
positions-sin-circle-position = posición t en la circunferencia
positions-sin-circle-notes-toggle = los ángulos de los apuntes π/6 y 5π/6
# $turned is θ reduced to one turn; $turns is θ / 2π
positions-sin-circle-angle = θ = t·ω_k = { $t } × { $omega } = { $theta } rad = { $turns } vueltas, { $turned } rad dentro de la vuelta actual
positions-sin-circle-point = b_t de la banda { $band } = (sin θ, cos θ) = ({ $sin }, { $cos }): el punto brillante
positions-sin-circle-mirror = El ángulo π − θ (el punto hueco, { $mirror } rad) tiene el mismo seno, { $sin }, y el coseno opuesto, { $cos }. Con solo el seno, ambos ángulos son posibles; el coseno decide cuál.
# $by_sine and $by_point are lists of positions, or the word for none
positions-sin-circle-confused = Entre las posiciones 0 … { $last }, a menos de { $tolerance } de la posición { $t }: por el seno solo, { $by_sine }; por el punto (sin, cos), { $by_point }. Un punto coincide solo a un número entero de vueltas (la longitud de onda de esta banda es { $wavelength } posiciones); las otras bandas las distinguen.
positions-sin-circle-none = ninguna
positions-sin-circle-note = Dibujado con cos en horizontal y sin en vertical, así que θ se mide desde la derecha, en sentido antihorario. Puntos pequeños: cada posición 0 … N−1 de esta banda. La línea discontinua une los dos ángulos con el mismo seno.
# the notes' example; $cos_a and $cos_b carry their signs
positions-sin-circle-notes = El ejemplo de los apuntes: sin(π/6) = { $sin_a } y sin(5π/6) = { $sin_b }, iguales; cos(π/6) = { $cos_a } y cos(5π/6) = { $cos_b } tienen signo opuesto, así que los dos puntos están en lados opuestos.
# names the circle drawing for screen readers
positions-sin-circle-name = Circunferencia unidad de la banda { $band }: la posición { $t } en (sin, cos) = ({ $sin }, { $cos }), su reflejo con el mismo seno y cada otra posición como un punto
positions-sin-wavelength-title = Longitud de onda de cada banda
positions-sin-wavelength-note = Una escalera geométrica: la longitud de onda de cada banda es base^(2/d) veces la anterior, de 2π hacia 2π·base. Las bandas por encima de la línea N no completan ni un ciclo en las N posiciones dibujadas.
positions-sin-wavelength-plot = log₁₀ de la longitud de onda de cada banda
positions-sin-log-wavelength = log₁₀ longitud de onda
positions-sin-chosen-band = banda elegida
positions-sin-axis-wavelength = longitud de onda en posiciones (escala log)
positions-sin-n-positions = N posiciones
positions-sin-wavelength = longitud de onda
positions-sin-bands-series = bandas
positions-sin-rotation-title = Avanzar k posiciones es una rotación
positions-sin-shift-k = desplazamiento k
# $target = $t + $shift
positions-sin-rotation-table = PE({ $target }) junto a R({ $shift })·PE({ $t }), banda por banda
# a table column: the band number
positions-sin-band = banda
# followed by two lines of formulas
positions-sin-angle-addition = Las fórmulas de suma de ángulos, con θ = k·ω para una banda:
# ends with a comma: the rotation block follows below
positions-sin-rotation-block-about = así que cada par (sin, cos) gira con el bloque [[cos θ, sin θ], [−sin θ, cos θ]]. Para la banda { $band }: θ = { $shift }·{ $omega } = { $theta } rad,
positions-sin-rotation-block = R({ $shift }) bloque { $band } =
# $diff is a number already formatted, such as 2.4e-7
positions-sin-rotation-check = máx |PE({ $target }) − R({ $shift })·PE({ $t })| en las { $d } dimensiones = { $diff }
positions-sin-rotation-note = R(k) es diagonal por bloques y depende solo del desplazamiento k, nunca de t: un único mapa lineal fijo adelanta k pasos cada posición, así que una cabeza puede aprender "mira k tokens atrás" una sola vez para toda la entrada.
positions-sin-matrix-title = PE: { $n } posiciones × { $d } dimensiones
positions-sin-matrix-note = Las columnas de la izquierda (bandas rápidas) cambian de fila en fila; las de la derecha (bandas lentas) se quedan cerca de sin = 0, cos = 1.
# names the heatmap for screen readers
positions-sin-matrix-context = PE sinusoidal
positions-sin-counter-title = La analogía del contador binario
positions-sin-counter-period = periodo
positions-sin-counter-bits = Cuenta en binario, bits de menor a mayor. El bit bajo b₀ cambia en cada paso, como las primeras bandas; cada bit superior cambia la mitad de veces, y los bits altos son los más lentos, como las últimas bandas.
positions-sin-counter-smooth = Juntos, los bits dan a cada posición un patrón único. Las sinusoides son la versión suave: en lugar de ondas cuadradas de periodos 2, 4, 8, 16 usan ondas seno y coseno cuyas longitudes de onda crecen geométricamente, y los valores son continuos, así que posiciones cercanas reciben vectores cercanos.
positions-sin-similarity-title = Similitud p_i·p_j de las { $n } posiciones
positions-sin-similarity-note = La diagonal vale d/2 = { $half } (cada banda es un vector unitario). Cada franja diagonal es constante: el producto escalar solo depende de la distancia i − j.
# names the heatmap for screen readers
positions-sin-similarity-context = similitud de PE
positions-sin-offset-title = p_t·p_{"{"}t+o{"}"} según el desfase o
positions-sin-offset-note = Tres posiciones iniciales t, una sola curva: se superponen entre sí y con la forma cerrada discontinua, porque cada banda aporta cos(ω_k·o) sea cual sea t.
# $gap is a number already formatted, such as 3.1e-6
positions-sin-offset-gap = mayor diferencia entre las curvas y Σ_k cos(ω_k·o): { $gap }

## Naive: the raw index t and the normalised index t/(N−1)

positions-naive-heading = Posiciones ingenuas: el índice tal cual, o escalado a [0, 1]
positions-naive-about = Dos formas obvias de decirle al modelo dónde está un token, sumando un número a su embedding. Las dos fallan, de maneras opuestas.
positions-naive-raw-title = Índice crudo: p(t) = t
positions-naive-input-length = longitud de la entrada
# $value and $ratio are numbers already formatted
positions-naive-raw-last = En la última posición t = { $last } el valor crudo es { $value }: cerca de { $ratio }× un valor típico de embedding de token (~±1).
positions-naive-raw-note = Crece sin límite: en entradas largas empequeñece los embeddings de tokens a los que se suma y ahoga qué token es, y las posiciones más allá de la entrada de entrenamiento más larga toman valores que el modelo nunca vio.
# a plot series: the raw index
positions-naive-raw-t = t crudo
positions-naive-raw-plot = índice crudo como valor de posición
positions-naive-raw-plot-note = los embeddings de tokens están en ±1
positions-naive-position-value = valor de posición
positions-naive-embedding-range = embeddings de tokens ~ ±1
positions-naive-normalised-title = Índice normalizado: p(t) = t/(N−1)
positions-naive-normalised-about = Siempre entre 0 y 1, sea cual sea la longitud: el primer token es 0, el último es 1.
positions-naive-normalised-note = Pero la pendiente depende de N: la posición 3 es 0.75 en una entrada de 5 tokens y 0.06 en una de 51. El modelo no puede saber dónde está un token sin conocer N.
positions-naive-normalised-plot = índice normalizado t/(N−1)
positions-naive-step-title = Qué significa un paso: la goma elástica
positions-naive-input-length-n = longitud de la entrada N
# completes positions-naive-step
positions-naive-half-at = 0.5 es la posición { $position }
# completes positions-naive-step
positions-naive-half-between = 0.5 cae entre las posiciones { $before } y { $after }
# $gaps = N − 1; $step is a number already formatted; $half is positions-naive-half-at or positions-naive-half-between
positions-naive-step = N = { $n }: un paso = 1/{ $gaps } = { $step }; { $half }.
positions-naive-step-note = El mismo valor 0.5 es la posición 2 de 5 pero la 25 de 51, y la distancia entre vecinos se reduce al crecer N: un salto fijo como "el token anterior" no tiene un tamaño fijo.
positions-naive-col-step = un paso 1/(N−1)
positions-naive-col-half = posición con valor 0.5
positions-naive-col-value = valor de la posición 2
# a table cell: no position has the value 0.5
positions-naive-none = ninguna
positions-naive-band-about = Cada entrada estirada sobre el mismo [0, 1]; los puntos son sus posiciones.
positions-naive-band-plot = cada entrada estirada sobre [0, 1]
positions-naive-value-half = valor 0.5

## Learned table: the trained rows, their similarities, and past the end of the table

positions-learned-no-table = este modelo no tiene una tabla de posiciones aprendida
positions-learned-past-the-table = posición { $position }: la tabla tiene { $rows } filas (posiciones 0–{ $last }), así que no hay vector para ella; el modelo rechaza entradas de más de { $rows } tokens
# $model is a model name; <bos> and <eos> are token names
positions-learned-about = “{ $model }” aprendió un vector por posición: una tabla de { $rows } filas × { $dims } dimensiones, sumada a los embeddings de tokens. Se entrenó con entradas de { $letters } letras como mucho: el codificador las lee en las posiciones 0–{ $encoder_last }, el decodificador lee <bos> y ellas en 0–{ $decoder_last } (<eos> solo se predice, nunca se lee). Así que solo las filas 0–{ $decoder_last } recibieron gradiente; el resto conserva sus valores iniciales aleatorios, algo encogidos por el decaimiento de pesos (weight decay).
positions-learned-table-title = la tabla: posición × dimensión
# names the heatmap for screen readers
positions-learned-table-context = tabla de posiciones aprendida
# the colour legend of the table
positions-learned-value = valor
positions-learned-similarity-title = similitud pᵢ·pⱼ
# names the heatmap for screen readers
positions-learned-similarity-context = similitud de los vectores de posición aprendidos
# a row of the table
positions-learned-trained = entrenada
# a row of the table
positions-learned-untrained = nunca entrenada: sigue aleatoria
positions-learned-run-on = ejecútalo sobre:
positions-learned-fits = { $tokens } tokens de origen: bien (la tabla tiene { $rows } filas; un texto más largo se corta en el límite con un aviso en el explorador).
# $error is the model’s own message
positions-learned-refuses = el modelo se niega: { $error }

## ALiBi and learned relative biases, added to the scores

# a chip beside “ALiBi”
positions-bias-relative = sesgo relativo aprendido
# $slope is a number already formatted
positions-bias-slope = cabeza { $head }: { $slope }
# $slopes is a list of positions-bias-slope, joined by commas
positions-bias-alibi-about = ALiBi suma −m·|i − j| a cada puntuación: ningún vector de posición, solo una penalización que crece con la distancia, más empinada en unas cabezas que en otras. Pendientes m = 2^(−8(h+1)/H) para H = { $heads }: { $slopes }.
positions-bias-relative-about = Un sesgo relativo aprendido suma b[h, clip(j − i, −K, K)] a cada puntuación: un número entrenado por cabeza y desfase (aquí K = 8), el mismo dondequiera que esté el par.
# a slider: how many positions the bias matrix shows
positions-bias-positions = posiciones
positions-bias-query-position = posición de la consulta
positions-bias-key-position = posición de la clave
# a heatmap axis: one row per head
positions-bias-head-axis = cabeza
positions-bias-offset-axis = desfase j − i
# names the heatmap for screen readers
positions-bias-context = sesgo posicional
# names the heatmap for screen readers
positions-bias-table-context = tabla de sesgos relativos
# a colour legend
positions-bias-legend = sesgo
positions-bias-matrix-title = sesgo de la cabeza { $head }, posición i (consulta) × j (clave)
positions-bias-table-title = tabla aprendida de la capa { $layer }: cabeza × desfase (−K … K)
# $model is a model name; a text field follows
positions-bias-run-on = “{ $model }” (autoatención del codificador) sobre:
positions-bias-scores = puntuaciones QKᵀ/√d_k
positions-bias-plus-bias = + sesgo
positions-bias-softmax-input = = entrada del softmax
positions-bias-weights = pesos

## The picked model: its own positional scheme, read from its weights and config

# $error says why the model is not there
positions-own-no-model = no hay modelo que leer: { $error }
# $model is a model name; $scheme is the scheme’s name as the model code writes it (sinusoidal, learned, RoPE, ALiBi, …)
positions-own-heading = { $model }: posiciones { $scheme }
positions-own-about = El modelo elegido en la barra superior (uno incluido, o un checkpoint abierto con `glimpse --model`): cómo es su propio esquema posicional, leído de sus pesos y su configuración.
# Sinusoidal is the name of the section positions-section-sinusoidal
positions-own-sinusoidal = Sinusoides fijas con base { $base } y d = { $d }: la sección Sinusoidal dibuja exactamente estas.
# names the section positions-section-bias
positions-own-bias = Un sesgo sumado a las puntuaciones de atención según la distancia: la sección ALiBi y relativa lo dibuja.
# names the section positions-section-permutation
positions-own-none = Sin información posicional: el modelo ve su entrada como un conjunto (ver Por qué: reordenar).
positions-own-learned = Una tabla aprendida de { $rows } filas (una por posición) de ancho { $width }. Cada celda de abajo es la similitud coseno de dos filas: las tablas entrenadas acercan las posiciones vecinas, así que se forma una banda a lo largo de la diagonal.
positions-own-rows-compared = filas comparadas
# names the heatmap for screen readers
positions-own-cosine-context = coseno de las dos filas
# a colour legend
positions-own-cosine = coseno
# completes positions-own-rope
positions-own-interleaved = pares intercalados (x₀, x₁), (x₂, x₃), …
# completes positions-own-rope
positions-own-rotate-half = pares rotate-half (x_p, x_{"{"}p + d/2{"}"}), como los escribe el código de Llama de Hugging Face
# completes positions-own-rope
positions-own-no-scaling = sin escalado
# completes positions-own-rope; $factor is a number
positions-own-linear-scaling = escalado lineal: cada θ ÷ { $factor }
# completes positions-own-rope; $factor is a number
positions-own-llama3-scaling = escalado de Llama 3: longitudes de onda largas estiradas ×{ $factor }, las cortas intactas, una mezcla entre medias
# $pairing is positions-own-interleaved or positions-own-rotate-half; $scaling is one of the three scaling messages
positions-own-rope = Consultas y claves se rotan según la posición: el par p gira θ_p = base^(−2p/d_head) radianes por token, con base { $base } y d_head = { $d_head }; { $pairing }; { $scaling }. La puntuación de una consulta y una clave depende entonces solo de su desfase.
positions-own-col-pair = par p
positions-own-col-theta = θ_p (radianes por token)
positions-own-col-wavelength = longitud de onda 2π/θ_p (tokens)

## Longer than trained: five schemes on inputs longer than their training

# a plot series: the model with this positional scheme
positions-extrap-sinusoidal = sinusoidal
# a plot series: the model with this positional scheme (a learned position table)
positions-extrap-learned = aprendida
# a plot series: the model with this positional scheme
positions-extrap-rope = RoPE
# a plot series: the model with this positional scheme
positions-extrap-alibi = ALiBi
# a plot series: the model with this positional scheme (a learned relative bias)
positions-extrap-relative = relativa
positions-extrap-about = Cinco modelos entrenados por Glimpse en la tarea de invertir (reverse) con 3–{ $longest } letras, cada uno con un esquema posicional distinto (mismo tamaño, datos y 3000 pasos), y luego puestos a invertir entradas más largas. Acierto exacto en { $examples } entradas aleatorias por longitud ({ $measured } de { $all } medidas):
positions-extrap-measuring = midiendo: { $measured } de { $all }
positions-extrap-longest = entrada de entrenamiento más larga
positions-extrap-plot = acierto exacto según la longitud de la entrada
positions-extrap-letters = letras
positions-extrap-axis-length = longitud de la entrada (letras)
positions-extrap-axis-exact = acierto exacto
positions-extrap-conclusion = Las posiciones aprendidas y sinusoidales fallan en cuanto la entrada supera todo lo visto (las filas de la tabla aprendida más allá de 8 nunca se entrenaron); RoPE y el sesgo relativo, que codifican desfases, llegan un poco más lejos. ALiBi solo le dice a una cabeza cuán atrás está una clave, algo que una inversión no puede aprovechar: le cuesta incluso en las longitudes de entrenamiento (su fuerte es el modelado del lenguaje, donde lo que importa es la cercanía).

## Why at all: reorder the input, with positions off and on

# $reordered and $sentence are the two sentences the reader typed
positions-perm-not-a-reordering = “{ $reordered }” no es una reordenación de las piezas de palabra de “{ $sentence }”
positions-perm-no-encoder = este modelo no tiene codificador
positions-perm-encoder = codificador:
# $model is a model name
positions-perm-toy = { $model } (de juguete, letras)
# $model is a model name
positions-perm-real = { $model } (real, inglés)
# $model is a model name
positions-perm-toy-about = La autoatención trata su entrada como un conjunto: baraja los tokens y, sin codificaciones posicionales, la salida de cada token es la misma que antes, solo que en su nuevo lugar. El codificador de “{ $model }”, ejecutado con sus codificaciones sinusoidales apagadas y encendidas:
# labels a text field
positions-perm-input = entrada
positions-perm-shuffle = barajar otra vez
# $model is a model name; the model reads English, so the sentences stay English
positions-perm-real-about = Escribe una frase y las mismas palabras en otro orden. El codificador de “{ $model }” ejecuta ambas, con sus embeddings de posición aprendidos apagados y encendidos; su vector de frase es la media de sus salidas.
# labels a text field
positions-perm-sentence = frase
# labels a text field: the sentence with its words in another order
positions-perm-reordered = reordenada
# $off and $on are numbers already formatted
positions-perm-cosines = vectores de frase, similitud coseno: { $off } con las posiciones apagadas, { $on } con ellas encendidas
# $order is a list of numbers
positions-perm-order = reordenada (posiciones originales): { $order }
positions-perm-col-row = fila reordenada
positions-perm-col-token = token
positions-perm-col-from = desde la posición
positions-perm-col-change-off = cambio, posiciones apagadas
positions-perm-col-change-on = cambio, posiciones encendidas
positions-perm-conclusion = Posiciones apagadas: cada fila es su fila original, movida (cambios al nivel del redondeo), y el vector de frase es el mismo. Posiciones encendidas: el mismo token en una posición nueva calcula otra cosa.
positions-perm-dimensions-drawn = dimensiones 0–{ $last } de { $all } dibujadas; la tabla de arriba las compara todas
# positions off, the original order
positions-perm-off-original = apagadas: original
# positions off, the reordered input
positions-perm-off-reordered = apagadas: reordenada
# positions on, the original order
positions-perm-on-original = encendidas: original
# positions on, the reordered input
positions-perm-on-reordered = encendidas: reordenada
# $run is one of the four “off/on” messages above
positions-perm-output = salida del codificador, { $run }

## RoPE: a query and a key on the circle, the score against the offset, the angles, your own vectors, a trained model

positions-rope-heading = RoPE: embedding posicional rotatorio
positions-rope-about = RoPE no suma nada a los embeddings. Dentro de cada capa de atención gira cada par (2p, 2p+1) de una consulta o clave el ángulo θ = i · base^(−2p/d_head) de su posición i. Al rotar tanto q como k, su producto escalar solo cambia según la diferencia de sus ángulos, así que las puntuaciones dependen solo del desfase j − i.
positions-rope-circle-title = 1. Una consulta y una clave en el círculo
# names the editor of the vector q
positions-rope-query-q = consulta q
# names the editor of the vector k
positions-rope-key-k = clave k
# $vector is positions-rope-query-q or positions-rope-key-k; read by screen readers
positions-rope-first-component = { $vector }, primera componente
# $vector is positions-rope-query-q or positions-rope-key-k; read by screen readers
positions-rope-second-component = { $vector }, segunda componente
positions-rope-head-width = ancho de cabeza d_head
positions-rope-pair-p = par p
positions-rope-query-position-i = posición de la consulta i
positions-rope-key-position-j = posición de la clave j
positions-rope-animate = animar: i y j avanzan juntas
# $omega and $turn are numbers already formatted
positions-rope-pair-speed = El par { $pair } gira ω = base^(−2p/d_head) = { $omega } rad por posición (una vuelta completa cada { $turn } posiciones).
# a line in a monospace font; the numbers are already formatted
positions-rope-angles-now = θᵢ = { $theta_i } rad   θⱼ = { $theta_j } rad   ángulo de qᵢ a kⱼ: φ = { $phi } rad ({ $degrees }°)
# monospace, aligned with positions-rope-score-by-offset on the next line: pad with spaces so both “=” line up
positions-rope-score-by-positions = puntuación qᵢᵀ kⱼ (ambos rotados)      = { $score }
# monospace, aligned with positions-rope-score-by-positions; $offset is padded to 3 characters
positions-rope-score-by-offset = qᵀ R(j−i) k (solo desfase j − i = { $offset }) = { $score }
positions-rope-agree = Coinciden: R(θ_i)ᵀ R(θ_j) = R(θ_j − θ_i), y θ_j − θ_i solo depende de j − i. Al animar, las dos flechas giran; φ y la puntuación no se mueven.
# $difference is a number already formatted
positions-rope-differ = Difieren en { $difference }: redondeo de f32 en ángulos grandes.
# the drawing’s name for screen readers
positions-rope-circle-name = consulta y clave rotadas
positions-rope-offset-title = 2. La puntuación solo depende del desfase
# $sign is + or −
positions-rope-offset-about = Izquierda: q en i frente a k en j = i { $sign } { $offset } para cada i (el desfase fijo): una línea plana. Derecha: el desfase o = j − i varía: la puntuación es |q||k| cos φ, y φ gira con o.
# a plot axis
positions-rope-score = puntuación
positions-rope-chosen-i = i elegida
positions-rope-fixed-offset-plot = puntuación con desfase fijo { $offset }
positions-rope-axis-query-position = posición de la consulta i (clave en i + o)
positions-rope-chosen-o = o elegido
positions-rope-offset-plot = puntuación según el desfase
positions-rope-score-at-offset = puntuación con desfase o
positions-rope-axis-offset = desfase o = j − i
positions-rope-angles-title = 3. Los ángulos de cada par y posición
positions-rope-angle-theta = ángulo θ
positions-rope-angles-about = Los ángulos θ = i·ω_p para las posiciones i = 0…{ $last } de una cabeza de ancho { $d_head } (base { $base }), una fila por par p. El par 0 gira 1 rad por posición y da la vuelta cada 6.3 posiciones; los últimos pares apenas se mueven, así que distinguen posiciones muy separadas.
# a heatmap row
positions-rope-pair = par { $pair }
# a heatmap axis
positions-rope-pair-axis = par
# names the heatmap for screen readers
positions-rope-angles-context = ángulos de RoPE
positions-rope-table-title = 4. Rota tus propios vectores
positions-rope-table-about = Escribe un vector por token y su posición. Cada par (x0, x1), (x2, x3), … gira su propio ángulo; las longitudes no cambian.
# a button: one more row
positions-rope-add-token = + token
# a button: one row less
positions-rope-remove-token = − token
# a button: two more columns
positions-rope-add-pair = + par
# a button: two columns less
positions-rope-remove-pair = − par
# a button; “the dog slept” is the English example sentence of the course notes: keep it
positions-rope-notes-example = “the dog slept” de los apuntes
positions-rope-notes-example-hover = sus embeddings en las posiciones 1, 2, 3 (los apuntes cuentan desde 1)
positions-rope-input-x = entrada x
# a table row
positions-rope-token = token { $token }
# read by screen readers
positions-rope-token-position = posición del token { $token }
# read by screen readers: component x0, x1, … of a token
positions-rope-token-component = token { $token } x{ $component }
# position::rope_rotate is a function name
positions-rope-rotated = rotado: position::rope_rotate
# a command follows
positions-rope-cli = Compruébalo en la línea de comandos: guarda las filas como rows.json y ejecuta
# "rotated" is a name in the command’s output: keep it
positions-rope-cli-note = El comando imprime los mismos números bajo "rotated".
positions-rope-error-no-rows = no hay filas
positions-rope-error-empty = las filas están vacías
positions-rope-error-ragged = la fila { $row } tiene { $numbers } números pero la fila 0 tiene { $width }: todas las filas necesitan el mismo ancho
positions-rope-error-odd = las filas tienen { $width } números; RoPE rota pares, así que el ancho debe ser par
positions-rope-error-non-finite = las filas contienen un número no finito
positions-rope-error-count = { $rows } filas pero { $positions } posiciones: cada fila necesita una posición
positions-rope-error-base = la base { $base } debe ser un número mayor que 1
positions-rope-model-title = 5. Un modelo entrenado con RoPE
positions-rope-model-error = no se pudo cargar `{ $model }`: { $error }
# completes positions-rope-model-about
positions-rope-model-rope = rota q y k con RoPE, base { $base }
# completes positions-rope-model-about; $scheme is the scheme’s name as the model code writes it
positions-rope-model-other = usa posiciones { $scheme }
# $positions is positions-rope-model-rope or positions-rope-model-other
positions-rope-model-about = El modelo incluido `{ $model }` (solo decodificador, { $layers } capas × { $heads } cabezas) { $positions }, cabezas de ancho { $width } ({ $pairs } pares). Aprendió una cabeza de token anterior en la capa 0 (desfase −1, esté donde esté el token) y una cabeza de inducción en la capa 1: en la repetición, cada letra atiende a la letra que sigue a su primera aparición.
# labels a text field
positions-rope-text = texto
positions-rope-unknown = { $count } caracteres no están en el alfabeto del modelo (a–z): se muestran como <unk>
positions-rope-truncated = se cortaron { $count } tokens que pasaban del límite de { $limit } del modelo
positions-rope-no-layer = este modelo no tiene esa capa
# names the heatmap for screen readers
positions-rope-model-context = { $model } · capa { $layer } · cabeza { $head }
positions-rope-model-weights = Pesos de autoatención del decodificador, capa { $layer } · cabeza { $head }: las filas son consultas, las columnas claves; las celdas rayadas son el futuro, bloqueado por la máscara causal.
# a colour legend
positions-rope-weight = peso

## A través de las capas: la sonda de posición en el modelo elegido
positions-depth-heading = ¿Sobrevive la posición a la profundidad?
positions-depth-intro = Una sonda lineal intenta leer la posición t de cada token en el flujo residual, capa a capa: estandariza los d números del flujo (a = (x − μ) / σ), resuelve (AᵀA + λI) W = Aᵀ(Y − Ȳ) con Y las posiciones en one-hot sobre tres fragmentos de cada cuatro, y da argmaxₜ (a W + Ȳ)ₜ en el cuarto, reservado. Al lado, la componente posicional: μₜ − μ, el flujo medio en la posición t menos la media de todos, y su parte de la varianza del flujo, Σₜ nₜ ‖μₜ − μ‖² / Σᵢ ‖xᵢ − μ‖² (la posición 0, un token especial o sumidero, se deja fuera).
# $chunks passages of $tokens tokens each
positions-depth-text = Entrada: { $chunks } pasajes del propio texto en inglés de Glimpse, de { $tokens } tokens cada uno (con los tokens especiales del modelo).
positions-depth-symbols = Entrada: { $chunks } secuencias aleatorias de los propios símbolos de este modelo, de { $tokens } tokens cada una: no lee inglés, y con símbolos aleatorios solo la posición ordena una secuencia.
positions-depth-absolute = Este modelo suma su codificación posicional a los embeddings de los tokens una vez, antes del primer bloque: lo que la sonda lea después lo subieron el camino residual y los bloques.
positions-depth-rope = Este modelo no suma ningún vector de posición a su flujo: RoPE gira las consultas y las claves dentro de cada atención. La posición que la sonda lea aquí la escribió la atención en el flujo.
positions-depth-in-attention = Este modelo pone la posición en las puntuaciones de atención (un sesgo o desplazamientos relativos), no en el flujo: la posición que la sonda lea aquí la escribió la atención en el flujo.
# $done of $all passes run
positions-depth-running = Ejecutando el modelo sobre el fragmento { $done } de { $all } …
positions-depth-fitting = Ajustando la sonda: capa { $layer } de { $layers } …
positions-depth-too-few = demasiado pocos fragmentos para una sonda
positions-depth-axis = capa (resid[l])
positions-depth-accuracy-title = posición reservada que lee la sonda
positions-depth-exact = exacta
positions-depth-within = a una o menos
positions-depth-chance = azar
positions-depth-share-title = parte posicional de la varianza del flujo
positions-depth-share = parte posicional
# Percentages; $best is a layer number
positions-depth-verdict = La sonda da la posición exacta del { $first } % de los tokens reservados en resid[0] y del { $last } % en la última capa (lo mejor, { $best_exact } % en resid[{ $best }]; azar { $chance } %). La parte posicional pasa de { $first_share } a { $last_share }. Calculado aquí en { $seconds } s.
