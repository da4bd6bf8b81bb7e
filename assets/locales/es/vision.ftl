## The vision tab: a small Vision Transformer trained here, its patches and attention, and
## the ViT arithmetic for any image size.

vision-intro = Un Vision Transformer lee una imagen como tokens: la corta en parches de P × P, aplana los píxeles de cada parche en un vector, lo proyecta linealmente (e = x W_E + b_E), pone delante un token de clase aprendido [CLS], suma una posición aprendida a cada token y pasa bloques codificadores en los que cada token atiende a todos los demás. La respuesta se lee del último vector del token de clase. Aquí la imagen tiene 16 × 16 píxeles en parches de 4 × 4: 16 tokens de parche y el token de clase, de 32 de ancho, 2 capas de 4 cabezas.
vision-train-heading = Entrenar el modelo
vision-task-larger = qué cuadrado es mayor
vision-task-count = contar los cuadrados
vision-task-larger-about = Dos cuadrados de tamaños distintos en cualquier lugar de la imagen: ¿está el mayor a la izquierda o a la derecha del menor? La respuesta depende de dos sitios a la vez, así que el token de clase tiene que reunir ambos.
vision-task-count-about = De uno a cuatro cuadrados pequeños en cualquier lugar: ¿cuántos hay? El token de clase tiene que repartir su atención entre todos.
vision-train-start = entrenar
# $steps the steps of a run, $parameters the model's count
vision-train-what = { $steps } pasos de 32 imágenes generadas cada uno, AdamW; { $parameters } parámetros
vision-train-untrained = Aún sin entrenar: la atención de abajo es la de un modelo nuevo, con sus pesos iniciales aleatorios.
vision-train-loss = pérdida de entrenamiento (entropía cruzada, medias de 20 pasos)
vision-train-accuracy = exactitud en validación (200 imágenes)
# $accuracy a percentage
vision-train-done = Tras { $steps } pasos: { $accuracy } % de aciertos en { $images } imágenes reservadas con las que nunca entrenó ({ $seconds } s de entrenamiento aquí).
vision-image-heading = Una imagen, sus parches y su atención
vision-gallery = elige una imagen:
vision-gallery-image = { $index }
vision-draw = dibujar
vision-clear = borrar
vision-layer = capa
vision-head = cabeza
vision-head-mean = media
vision-query = consulta
vision-query-hint = Haz clic en un parche de la imagen para ver su atención; la del token de clase es de donde se lee la respuesta. En modo dibujo un clic cambia un píxel.
vision-class-token = token de clase [CLS]
vision-patch = parche { $patch }
vision-image-caption = la imagen en parches de 4 × 4
vision-image-name = la imagen, 16 × 16 píxeles en parches de 4 × 4; haz clic en un parche para hacerlo la consulta
vision-image-name-drawing = la imagen, 16 × 16 píxeles, en modo dibujo: haz clic para cambiar un píxel
# $query is "class token [CLS]" or "patch 5"
vision-soft-caption = suave: pesos de { $query }
vision-hard-caption = dura: un parche sacado con esos pesos
# $kind is soft or hard
vision-weights-name = atención { $kind } de { $query } sobre los 16 parches
vision-weight-item = parche { $patch } { $weight }
vision-weights-words = { $query } pone más peso en { $top }; en el token de clase { $itself }.
vision-hard-again = sacar otra vez
# $u the uniform number drawn
vision-hard-class = Este sorteo (u = { $u }) cayó en el propio token de clase.
vision-hard-patch = Este sorteo (u = { $u }) tomó el parche { $patch }, cuyo peso suave es { $weight }.
vision-hard-none = Sin sorteo: los pesos no sirven.
vision-hard-about = La atención suave devuelve Σ peso × valor sobre todos los tokens: una función suave de los pesos, que se entrena por descenso de gradiente. La atención dura, como en los modelos de subtítulos que describen los apuntes, lee una sola región, sacada con probabilidad igual a su peso: cada sorteo es un parche, la media de muchos sorteos es la salida suave, y entrenarla necesita estimar el gradiente por muestreo (REINFORCE) en vez de retropropagar a través de la elección.
# $class is the class's name (left, right, 1, 2 …)
vision-answer = El modelo dice: { $class } (p = { $p }).
vision-answer-truth = { " " }La respuesta: { $class }.
vision-vectors = Lo que lee el codificador: { $patches } parches como vectores de { $pixels } píxeles (izquierda), y el token de clase y los parches proyectados a { $d } números con sus posiciones sumadas (derecha; pasa el ratón para ver los valores).
vision-axis-patch = parche
vision-axis-pixel = píxel
vision-axis-token = token
vision-axis-dimension = dimensión
vision-arithmetic-heading = Parches para cualquier imagen
vision-arithmetic-height = alto
vision-arithmetic-width = ancho
vision-arithmetic-channels = canales
vision-arithmetic-patch = parche P
vision-arithmetic-notes = los 224 × 224 de los apuntes, P = 16
vision-arithmetic-result = { $down } × { $across } = { $patches } parches, { $tokens } tokens con el token de clase; cada parche un vector de { $patch } · { $patch } · { $channels } = { $numbers } números antes de su proyección; cada cabeza puntúa { $pairs } pares de tokens.
vision-arithmetic-leftover = P no divide la imagen: { $rows } fila(s) y { $cols } columna(s) de píxeles ({ $pixels } píxeles) quedan fuera de la rejilla y se descartan.
vision-arithmetic-here = El modelo de arriba: 16 × 16 × 1 en parches de 4 × 4, 16 parches y 17 tokens de 16 números cada uno.
vision-cnn-heading = Autoatención dentro de una red convolucional
vision-cnn-intro = Una red convolucional también puede usar atención, sin parches. Una convolución 3 × 3 convierte la imagen en un mapa de características X de C canales, un vector por píxel. Tres convoluciones 1 × 1 (la misma matriz pequeña en cada píxel) dan Q = W_Q * X + b_Q, K = W_K * X + b_K y V = W_V * X + b_V, de C′ canales cada una. Aplanadas a C′ × N, con N = H · W píxeles, cada píxel puntúa a todos los demás, S = Q′ᵀK′ / √C′; A = softmax(S) fila a fila; O′ = V′Aᵀ vuelve a la forma de la imagen, una cuarta convolución 1 × 1 la devuelve a C canales, O = W_O * O′ + b_O, y la conexión residual suma la entrada, O_final = O + X. Una convolución ve la ventana 3 × 3 de su píxel; un paso de atención ve la imagen entera.
vision-cnn-choice = convoluciones 1 × 1:
vision-cnn-ink = la tinta busca tinta
vision-cnn-edges = cada borde busca los suyos
vision-cnn-random = aleatorias
vision-cnn-seed = semilla
vision-cnn-scale = escala de W_Q y W_K
vision-cnn-query = píxel de consulta
vision-cnn-hint = Haz clic en un píxel de la imagen izquierda para que sea la consulta. «La tinta busca tinta»: Q y K leen el canal de tinta, así que un píxel de un cuadrado coincide por igual con todos los píxeles entintados, cerca o lejos. «Cada borde busca los suyos»: leen los dos canales de borde, así que un borde superior coincide con los bordes superiores y evita los inferiores. «Aleatorias»: las de una red sin entrenar. La escala multiplica W_Q y W_K: las puntuaciones crecen con su cuadrado, y con 0 cada píxel pesa igual a los N.
vision-cnn-pixel = fila { $row }, columna { $column }
vision-cnn-image-caption = la imagen; la ventana 3 × 3 que ve una convolución
vision-cnn-image-name = la imagen, 16 × 16 píxeles; el píxel de consulta { $pixel } está marcado dentro de la ventana 3 × 3 que ve allí una convolución; haz clic en un píxel para que sea la consulta
vision-cnn-weights-caption = { $pixel }: sus pesos sobre todos los píxeles
vision-cnn-weights-name = atención del píxel en { $pixel } sobre los 256 píxeles de la imagen
vision-cnn-legend = peso
vision-cnn-words = El píxel en { $pixel } pone { $beyond } de su peso fuera de su ventana 3 × 3, donde una convolución allí no ve. Su mayor peso, { $weight }, está en { $top }; repartido por igual, cada píxel recibiría { $uniform }.
vision-cnn-shapes = Formas: X es { $c } × { $h } × { $w }; Q, K y V son { $reduced } × { $h } × { $w }, aplanadas a { $reduced } × { $n } (N = { $h } · { $w } = { $n }); S y A son { $n } × { $n } = { $scores } números; O′ es { $reduced } × { $n }, vuelta a { $reduced } × { $h } × { $w }; O y O_final son de nuevo { $c } × { $h } × { $w }. Las cuatro convoluciones 1 × 1 guardan { $parameters } números con cualquier tamaño de imagen, mientras S crece como N².
vision-cnn-features = El mapa de características X (los cuatro canales de la convolución 3 × 3):
vision-cnn-output = Tras el bloque, O_final = O + X (tinta y entorno ganan lo que cada píxel reunió):
vision-cnn-channel-ink = tinta
vision-cnn-channel-surround = entorno (media 3 × 3)
vision-cnn-channel-top = borde superior + / inferior −
vision-cnn-channel-left = borde izquierdo + / derecho −
