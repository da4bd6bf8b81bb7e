## Lección 6: Atención multicabeza

lesson-multi-head-attention = Atención multicabeza

lesson-page-many-heads-same-cost = Muchas cabezas, el mismo coste
lesson-page-many-heads-same-cost-text =
    Divide d_model en h cabezas de anchura d_k = d_model/h, cada una con sus propias W_Q, W_K,
    W_V; concatena las h salidas y mézclalas con W_O.

    Con d_model = 512 y h = 8, d_k = 64: los parámetros y los FLOPs equivalen a los de una sola
    cabeza de anchura completa, pero cada cabeza puede atender a un sitio distinto.

    La cuadrícula muestra todas las cabezas de sotu-lm, el modelo en inglés que Glimpse entrenó
    con dos siglos de discursos sobre el Estado de la Unión (4 capas × 4 cabezas). Su BPE a
    nivel de byte corta "animal" en " an", "im", "al". En esta frase, el clasificador encuentra
    que la cabeza 0 de la capa 1 mira las otras piezas de la propia palabra del token (0.81), y
    que la cabeza 1 de la capa 1 es la cabeza de token anterior más clara (0.61).

    Sin embargo, la leyenda bajo la cabeza 1 de la capa 1 dice “propia palabra” (0.70): dentro
    de una palabra cortada en piezas, el token anterior es otra pieza de la misma palabra, así
    que una cabeza puede puntuar en los dos patrones. Una etiqueta es el patrón que más muestra
    una cabeza; pasa el ratón por una miniatura para ver todas sus puntuaciones.

lesson-page-a-previous-token-head = Una cabeza de token anterior
lesson-page-a-previous-token-head-text =
    La cabeza 2 de la capa 0 de MiniLM pone todo su peso en el token justo anterior a la
    consulta (puntuación 1.00): la franja justo debajo de la diagonal.

    Nadie la diseñó. El entrenamiento descubrió que conocer el token anterior es útil, y la
    cabeza lo copia en la salida de cada posición. Cada una de las piezas de "unbelievably" (un
    ##bel ##ie ##va ##bly) lee la pieza anterior, así que aquí la misma cabeza es también la
    cabeza de palabra propia más clara (0.71). La fila recuadrada es "##bel": 1.00 en "un".

lesson-page-an-induction-head = Una cabeza de inducción
lesson-page-an-induction-head-text =
    La entrada se repite: "glimpsehow" dos veces. En la capa 1, una consulta de la segunda copia
    (cabeza 0 de la capa 1) atiende al token que siguió a su propia aparición anterior, que es
    el token que debe predecir a continuación: la fila recuadrada, la segunda "l", mira sobre
    todo a la "i" que sigue a la primera "l".

    Puede hacerlo porque la cabeza de la capa 0 ya escribió "mi token anterior era x" en cada
    posición: dos cabezas en dos capas forman un mecanismo de copia.

    Esto es un juguete: un modelo de 2 capas entrenado solo con letras aleatorias repetidas (su
    vocabulario son las 26 letras). Escribe otra cadena repetida en los controles y observa cómo
    la franja fuera de la diagonal se desplaza con el periodo; la página “Inducción con palabras
    reales” encuentra las mismas cabezas en un modelo real.

lesson-page-sharing-keys-and-values-mqa = Compartir claves y valores: MQA y GQA
lesson-page-sharing-keys-and-values-mqa-text =
    En inferencia, cada cabeza guarda en caché sus claves y valores de cada token pasado, y esa
    caché, no la aritmética, es a menudo lo que limita la velocidad y el tamaño del lote.

    La atención multiconsulta (MQA) da a todas las cabezas de consulta una única cabeza de
    clave/valor compartida; la atención de consultas agrupadas (GQA) comparte una cabeza de
    clave/valor dentro de cada grupo de cabezas de consulta. La caché se reduce por el tamaño
    del grupo, con un pequeño coste en calidad.

    Esta página entrena el traductor tres veces desde la misma semilla, 600 pasos cada vez: 4
    cabezas de consulta con 4, 2 y 1 cabezas de clave/valor. La caché por token baja de 128 a 64
    y a 32 números. Ejecutado de forma nativa, con la semilla 1, las traducciones exactas pasan
    del 100 % al 97.9 % y al 93.8 %; en el navegador el redondeo difiere ligeramente y el
    entrenamiento lo amplifica, y otras semillas alteran el orden en unos pocos puntos. Los
    modelos grandes comparten porque, a su tamaño, es la caché y no la aritmética lo que limita
    la decodificación, y se ha medido que la calidad que pierden al compartir es pequeña; una
    tarea de juguete no puede mostrarlo por sí sola.

lesson-page-induction-on-real-words = Inducción con palabras reales
lesson-page-induction-on-real-words-text =
    El laboratorio lee 20 tokens aleatorios del vocabulario de SmolLM2 (palabras y piezas de
    palabras) y después los mismos 20 otra vez. Nada predice la primera copia. La pérdida de
    SmolLM2-135M-Instruct baja de 12.95 nats por token en la primera copia a 3.02 en la segunda:
    copia.

    La copia la hacen las cabezas de inducción. La cabeza 6 de la capa 18 pone en promedio 0.87
    de la atención de cada token de la segunda copia en el token que siguió a su primera
    aparición, que es el token que hay que predecir a continuación. Una cabeza anterior ha
    escrito "mi token anterior era x" en cada posición, así que dos cabezas en dos capas forman
    un mecanismo de copia.

    Elige sotu-lm en la barra superior. Glimpse lo entrenó durante 97 minutos con 2.7 M de
    tokens, y no ha aprendido a copiar: la segunda copia no es más fácil (14.55 y 14.54 nats), y
    ninguna cabeza puntúa por encima de 0.05. El pequeño modelo de repeticiones, entrenado solo
    con repeticiones, copia con una cabeza en la capa 1.

lesson-page-names-come-back = Los nombres vuelven
lesson-page-names-come-back-text =
    Las palabras aleatorias son una prueba; en la prosa, la inducción se ve donde se repiten
    nombres: "The letter was from Hermione Granger, and the parcel was from Harry Potter. When
    Hermione Granger wrote again, Harry Potter answered."

    En esta frase, el clasificador de cabezas (Todas las cabezas) encuentra la cabeza de tipo
    inducción más clara de SmolLM2 en la capa 17, cabeza 5 (puntuación 0.57). La vista la
    muestra desde el segundo " Herm": pone 0.75 de su atención en "ione", la pieza que siguió a
    " Herm" la primera vez, que es la pieza que hay que predecir a continuación.

    Haz clic en el segundo " Gr": la cabeza mira "anger" (0.72). En el segundo " Harry" está
    menos segura: 0.28 en " Potter", y más en el primer token, donde las cabezas aparcan la
    atención que no necesitan. Escribe tu propia frase con un nombre repetido.

lesson-page-switching-heads-off = Apagar cabezas
lesson-page-switching-heads-off-text =
    ¿Necesita un modelo todas sus cabezas? Apaga una (su salida se pone a cero antes de W_O) y
    mide lo que pierde el modelo. La pestaña ordena así todas las cabezas y después las apaga
    juntas, de la menos importante hacia arriba.

    En el traductor, medido sobre 48 frases reservadas: con las 8 cabezas de atención cruzada
    apagadas, la decodificación voraz acierta 0 de ellas (el 100 % con todas las cabezas
    encendidas): sin atención cruzada, el decodificador no puede ver el origen. Aun así, 7 de
    sus 24 cabezas pueden apagarse a la vez con una precisión por token a menos de 1 punto de la
    del modelo completo.

    Haz clic en cualquier cabeza para apagarla o encenderla, y elige otro modelo en la barra
    superior: un LM decodificador se mide sobre el texto de la casilla de entrada.

lesson-page-nine-query-heads-three-caches = Nueve cabezas de consulta, tres cachés
lesson-page-nine-query-heads-three-caches-text =
    SmolLM2 usa atención de consultas agrupadas: en cada una de sus 30 capas, 9 cabezas de
    consulta comparten 3 cabezas de clave/valor, en grupos de 3. El dibujo bajo las cabezas
    muestra qué consulta lee qué clave y qué valor.

    Su caché KV guarda 2 · 3 · 64 = 384 números por token y capa, donde 9 cabezas con sus
    propias claves y valores necesitarían 2 · 9 · 64 = 1,152: un tercio. Aquí también puedes
    apagar cabezas; la pérdida se mide sobre el texto de la casilla de entrada.
