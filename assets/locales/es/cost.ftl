## The Cost lab: what self-attention, recurrence and convolution cost per layer

## Presets and sliders

cost-notes-default = apuntes: L = 100, D = 512, K = 3
cost-notes-long = apuntes: L = 10⁴
# $name is the model's name
cost-picked-model = el modelo elegido ({ $name })
cost-picked-model-hover = su ancho, cabezas, capas y ancho de la red feed-forward
cost-slider-length = L tokens
cost-slider-width = D ancho
cost-slider-kernel = K núcleo
cost-slider-heads = h cabezas
cost-slider-layers = N capas
cost-slider-batch = B lote
cost-export-json = cifras en JSON
cost-intro = Una capa convierte L vectores de ancho D en L vectores. La autoatención compara cada par de tokens (L²·D); una capa recurrente hace un producto D × D en cada uno de L pasos, uno tras otro (L·D²); una convolución de ancho K hace K de ellos por token (K·L·D²). La tabla y la gráfica comparan estos términos, que mezclan los tokens; una capa de atención ejecuta además sus proyecciones Q, K, V, O (4·L·D²), contadas para un bloque más abajo.

## The three layers side by side

cost-header-layer = capa
cost-header-work = trabajo de mezcla por capa
cost-header-steps = pasos en orden
cost-header-path = primer → último token
cost-layer-attention = autoatención
cost-layer-recurrent = recurrente (RNN)
cost-layer-convolution = convolución
# How far a signal travels from the first token to the last
cost-path-attention = 1: cada token alcanza a todos los demás en una capa
# $steps: recurrent steps from the first token to the last
cost-path-recurrent = { $steps }: un paso por token (O(L))
cost-path-never = nunca: un núcleo de ancho 1 no mezcla tokens
# $layers: stacked convolutions needed; $dilated: the same with dilated convolutions
cost-path-convolution = { $layers } capas (O(L/K)); { $dilated } con dilataciones (O(log_K L))
# $l, $d: the sizes; $attention, $recurrent: the multiply-adds of each layer, already written out
cost-verdict-less = L = { $l } < D = { $d }: el término por pares L²·D de la autoatención es menor que el L·D² de la recurrencia ({ $attention } frente a { $recurrent }), y todo se ejecuta a la vez; las proyecciones (4·L·D²) van aparte
cost-verdict-equal = L = D = { $l }: L²·D = L·D², el punto de cruce: más allá el término por pares es el mayor
cost-verdict-greater = L = { $l } > D = { $d }: domina el término L²; el término por pares de la autoatención supera ahora al de la recurrencia ({ $attention } frente a { $recurrent }), aunque aún se ejecuta en un solo paso paralelo

## The plot of work against length

cost-plot-title = log₁₀ multiplicaciones-suma por capa para mezclar
cost-plot-mark = log₁₀ L actual
cost-plot-y = log₁₀ multiplicaciones-suma por capa
cost-plot-now = L actual
cost-series-attention = autoatención L²·D
cost-series-recurrent = recurrente L·D²
cost-series-convolution = convolución K·L·D²

## One block: work, memory, parameters

cost-block-heading = Un bloque a esta longitud (multiplicaciones-suma)
cost-block-projections = proyecciones Q, K, V, O
cost-block-scores = puntuaciones QKᵀ
cost-block-weighted-sum = suma ponderada AV
cost-block-ffn = red feed-forward
# $attention, $square, $ffn: counts already written out with grouped digits
cost-block-notes = El ejemplo de los apuntes (N = 6, D = 512, L = 100) da a la atención 2·N·L²·D = { $attention } y a la red feed-forward "314M". Esa cifra es 2·N·L·D² = { $square }, como si d_ff = D; con d_ff = 2048 es 2·N·L·D·d_ff = { $ffn }. En ambos casos la red feed-forward pesa más que la mezcla de la atención a la longitud de una frase.
cost-memory-heading = Memoria (números guardados; 4 bytes cada uno en f32)
cost-memory-rnn = estados ocultos de la RNN
cost-memory-attention = autoatención: pesos y representaciones
cost-memory-all = todas las matrices de atención de una pasada
cost-memory-one = una matriz de atención (una cabeza, una capa)
# $heads: the heads slider; $d, $dk: D and D/h; $params, $scores, $weights, $one: counts with grouped digits
cost-heads-same-cost = Las cabezas no cuestan nada más: con h = { $heads } cabezas de d_k = D/h = { $dk } cada una, las proyecciones siguen siendo 4·D² = { $params } parámetros y las puntuaciones L²·D = { $scores } multiplicaciones y sumas (h cabezas × L² pares × D/h dimensiones), igual que con una cabeza de { $d }. Solo los pesos de atención se multiplican por h: { $weights } números en la pasada frente a { $one } con una cabeza.
cost-binary-units = Tamaños en unidades decimales (1 MB = 10⁶ bytes) y, tras el punto, binarias (1 MiB = 2²⁰ bytes), las que usan los apuntes: una matriz con L = 1.024 ocupa 4 MiB.
cost-params-heading = Parámetros de un bloque
cost-params-attention = atención W_Q, W_K, W_V, W_O
cost-params-biases = sus sesgos
cost-params-ffn = red feed-forward W₁, W₂
cost-params-norms = dos LayerNorms (γ, β)
cost-params-block = un bloque
# $blocks: number of blocks; $total: parameters, grouped digits; $share: a whole percentage
cost-params-total = N = { $blocks } bloques: { $total } parámetros; la red feed-forward tiene el { $share } % de cada bloque.

## The picked model's parameters, counted

cost-model-none = Elige un modelo en la barra superior para contar sus parámetros.
# $name: the model; $total: its parameters, grouped digits
cost-model-heading = { $name }: { $total } parámetros, contados tensor a tensor
cost-model-counted = Contados a partir de los tensores que lee la pasada hacia delante: los tensores que el archivo de un checkpoint guarda pero la pasada nunca usa (el pooler de BERT) quedan fuera, así que la cuenta del propio archivo puede ser mayor.
cost-model-sizes = D = { $d }, h = { $heads } ({ $kv } clave/valor), d_head = { $d_head }, d_ff = { $d_ff }, { $layers } capas
cost-header-part = parte
cost-header-counted = contados
cost-header-formula = fórmula
# The formula's value equals (or differs from) the count
cost-model-same = = contados
cost-model-differs = ≠ contados
cost-part-embeddings = embeddings
cost-part-attention-weights = pesos de atención
cost-part-attention-biases = sesgos de atención
cost-part-ffn-weights = pesos feed-forward
cost-part-ffn-biases = sesgos feed-forward
cost-part-norms = normas (γ, β)
cost-part-output = capa de salida
# $layers: attention layers in the model
cost-formula-attention = { $layers } capas de atención × 4·D²
# $blocks: blocks in the model
cost-formula-ffn = { $blocks } bloques × 2·D·d_ff
cost-formula-ffn-gated = { $blocks } bloques × 3·D·d_ff (con compuerta)

## Un codificador–decodificador entero: el Transformer original y la memoria de su entrenamiento

cost-original-heading = El Transformer original (2017), contado con las fórmulas de esta pestaña
# $name: base or big; $d, $ff, $heads: its sizes
cost-original-model = { $name }: D = { $d }, d_ff = { $ff }, h = { $heads }
cost-original-encoder = codificador, N = 6 bloques
cost-original-decoder = decodificador, N = 6 bloques
cost-original-total = total
cost-original-reported = según el artículo
# $vocab: the shared vocabulary; $base, $big: the two totals; $embeddings, $encoder, $decoder: base's parts, all in millions
cost-original-notes = Un bloque del decodificador es un bloque del codificador más la atención cruzada (4·D² + 4·D) y una tercera normalización (2·D). Con una sola matriz de embeddings de { $vocab } tokens de pares de bytes, compartida por la entrada del codificador, la del decodificador y la capa de salida, y posiciones sinusoidales (que no tienen parámetros), las fórmulas dan { $base } para base y { $big } para big, frente a los 65 M y 213 M que da el artículo (que no explica cómo contó). Los apuntes reparten base en embeddings 32 M, codificador 31 M y decodificador 37 M: esas partes suman 100 M, no 65 M. Según las fórmulas son { $embeddings }, { $encoder } y { $decoder }.
# $l, $batch, $layers, $heads: the sliders
cost-training-heading = Memoria de un paso de entrenamiento con L = { $l }, B = { $batch }, N = { $layers }, h = { $heads }
cost-training-attention = matrices de atención, una pila
cost-training-attention-all = todas las capas de atención (codificador, decodificador, cruzada)
cost-training-activations = activaciones
cost-training-parameters = parámetros
cost-training-gradients = gradientes
cost-training-optimizer = los dos momentos de Adam
cost-training-here = con estos tamaños
cost-training-notes = la tabla de los apuntes (L = 512, B = 32)
# $params: the parameters counted, in millions
cost-training-why = P = { $params } parámetros: el codificador–decodificador de arriba, con estos D, d_ff y N. Con los tamaños de los apuntes (L = 512, B = 32, base), su tabla y sus fórmulas coinciden en los parámetros, los gradientes y los momentos de Adam (0.25, 0.25 y 0.50 GB), y difieren en dos filas. Atención: B·N·h·L²·4 bytes son 1.61 GB; la tabla dice 4.0 GB, unas 2.5 veces más. La fórmula cuenta una pila de N capas; un codificador–decodificador guarda una matriz por cabeza en 3N capas de atención, 4.83 GB (la segunda fila). Activaciones: B·N·L·D·4 bytes son 0.20 GB; la tabla dice 1.2 GB, seis veces más. Cada capa guarda varios tensores L × D para la pasada hacia atrás (consultas, claves, valores, la salida de la atención y la capa oculta de la red feed-forward, cuatro veces más ancha), no uno. Su total, 6.2 GB, es la suma de sus propias filas.
