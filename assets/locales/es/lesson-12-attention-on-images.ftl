## Lesson 12: Attention on images

lesson-attention-on-images = Atención sobre imágenes

lesson-page-an-image-as-tokens = Una imagen como tokens
lesson-page-an-image-as-tokens-text =
    La atención necesita tokens, y una imagen tiene píxeles. Un Vision Transformer hace tokens
    con cuadrados: corta la imagen en parches de P × P, pone los píxeles de cada parche en un
    vector y lo proyecta linealmente a d números, como se haría con el embedding de una palabra.
    Delante va un token de clase aprendido, y cada token recibe una posición aprendida.

    La imagen de los apuntes es de 224 × 224 con tres colores, en parches de 16 × 16: 14 × 14 =
    196 parches, 197 tokens con el token de clase, cada parche 16 · 16 · 3 = 768 números. Cada
    cabeza puntúa entonces 38,809 pares. Cambia los tamaños al pie de la pestaña y mira los
    recuentos, y lo que se descarta cuando P no divide la imagen.

    El modelo de esta pestaña es mucho menor: imágenes grises de 16 × 16 en parches de 4 × 4,
    17 tokens. Bajo la imagen están sus 16 vectores de parche y los 17 tokens que lee el
    codificador.

lesson-page-where-the-class-token-looks = Dónde mira el token de clase
lesson-page-where-the-class-token-looks-text =
    La página entrena el modelo en "¿está el cuadrado mayor a la izquierda o a la derecha del
    menor?": una imagen nueva de dos cuadrados en cada paso, 32 por paso. La respuesta necesita
    dos sitios a la vez, y solo se lee el último vector del token de clase, así que tiene que
    reunir ambos cuadrados mediante la atención.

    Con la semilla 1, tras 1,600 pasos (segundos aquí) acierta el 97.5 % de 1,000 imágenes
    reservadas. En su última capa el token de clase pone 1.00 de su peso, en media sobre las
    cabezas, en los parches que contienen un cuadrado, en cada una de las seis imágenes de la
    galería. Elige una sola cabeza: unas miran el cuadrado pequeño, otras el grande.

    Antes de entrenar, el mismo mapa es el de un modelo nuevo, repartido casi por igual.

lesson-page-soft-and-hard-attention = Atención suave y dura
lesson-page-soft-and-hard-attention-text =
    Los modelos de subtítulos de los apuntes atienden a regiones de la imagen de dos maneras. La
    atención suave toma todas las regiones, ponderadas: la salida es Σ peso × valor, una función
    suave que el descenso de gradiente puede entrenar. La atención dura toma una sola región,
    sacada al azar con probabilidad igual a su peso.

    La pestaña dibuja las dos con los mismos pesos. Pulsa "sacar otra vez": cada sorteo toma un
    parche, normalmente uno con mucho peso en el mapa suave, a veces otro. En media sobre muchos
    sorteos, la atención dura da la salida suave; un solo sorteo es lo que ve un modelo duro.
    Ningún gradiente atraviesa una elección al azar, así que un modelo duro aprende dónde mirar
    con estimaciones muestreadas (REINFORCE); el resto, la red de la imagen y el decodificador,
    sigue aprendiendo por retropropagación.

lesson-page-attention-inside-a-cnn = Atención dentro de una CNN
lesson-page-attention-inside-a-cnn-text =
    La atención no necesita parches. El mapa de características de una red convolucional ya
    tiene un vector por píxel, C canales en cada uno de los H × W lugares. Un bloque de
    autoatención dentro de la red saca de él consultas, claves y valores con convoluciones
    1 × 1, que aplican una misma matriz pequeña en cada píxel: cada píxel se vuelve un token, y
    los N = H · W se puntúan entre sí.

    La sección «Autoatención dentro de una red convolucional» lo hace con la imagen de la
    pestaña: una convolución 3 × 3 con cuatro canales fijados a mano (tinta, entorno, dos
    bordes) y después el bloque con C′ = 2. Con «la tinta busca tinta», el píxel de la fila 4,
    columna 3, dentro del cuadrado grande, pone 0.69 de su peso fuera de su propia ventana
    3 × 3, y 0.14 en el cuadrado pequeño de la otra esquina. Una convolución llega un píxel
    más lejos por capa: harían falta 9 convoluciones 3 × 3 apiladas para ver ese cuadrado desde
    allí. Cambia a «cada borde busca los suyos» y haz clic en un píxel de un borde superior:
    los bordes superiores de los dos cuadrados reciben mucho más peso que cualquier borde
    inferior.

    El precio es la matriz N × N: 256 × 256 = 65,536 puntuaciones para este mapa de 16 × 16,
    mientras que las cuatro convoluciones 1 × 1 guardan 42 números. Con un mapa de 224 × 224
    serían 50,176 × 50,176 = 2,517,630,976 puntuaciones en cada bloque, una de las razones por
    las que un Vision Transformer hace tokens de parches y no de píxeles.
