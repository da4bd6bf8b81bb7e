## Lección 8: Entrenamiento

lesson-training = Entrenamiento

lesson-page-cross-entropy-and-teacher-forcing = Entropía cruzada y teacher forcing
lesson-page-cross-entropy-and-teacher-forcing-text =
    Un modelo aprende de la probabilidad que da al siguiente token correcto. La pérdida de una
    posición es −log p(label): 0 cuando el modelo está seguro y acierta, grande cuando está
    seguro y se equivoca. El entrenamiento minimiza la media sobre todas las posiciones de
    destino de todos los ejemplos.

    Con teacher forcing (forzado del profesor), el decodificador lee la respuesta verdadera
    desplazada un paso a la derecha, así que todas las posiciones se entrenan en una sola
    pasada; la máscara causal impide que cada una vea su propia etiqueta.

    Pulsa ▶ Iniciar: es un codificador–decodificador nuevo que aprende a invertir letras,
    entrenado con la propia retropropagación de Glimpse. Observa cómo cae la pérdida y cómo la
    atención cruzada de abajo se convierte en una antidiagonal: la salida i mira la entrada
    n−1−i.

lesson-page-warmup-and-clipping = Calentamiento y recorte
lesson-page-warmup-and-clipping-text =
    Los primeros gradientes son grandes y ruidosos, y las medias móviles de Adam aún no son
    fiables, así que la tasa de aprendizaje empieza pequeña y va subiendo (calentamiento). El
    transformer original usaba, en el paso s con w pasos de calentamiento,

    $$warmup$$

    una subida lineal durante w pasos y después un descenso como 1/√s.

    Este laboratorio calienta linealmente durante 200 pasos hasta 3·10⁻³ y después decae
    siguiendo un coseno: la curva bajo “Tasa de aprendizaje”. Elige ahí el programa de Noam o
    una tasa constante, o cambia el pico y el calentamiento; la línea de estado bajo Iniciar
    muestra la tasa del último paso.

    El recorte de gradiente reescala todo el gradiente cuando su norma supera 1 (el deslizador
    de recorte), así que un lote malo no puede lanzar los pesos lejos. La gráfica de la norma
    del gradiente muestra la norma antes del recorte: pulsa ▶ Iniciar y observa cómo se dispara
    al principio y luego se estabiliza.

lesson-page-another-task-another-pattern = Otra tarea, otro patrón
lesson-page-another-task-another-pattern-text =
    El mismo modelo y la misma pérdida aprenden lo que pidan los datos. Al ordenar, cada salida
    debe encontrar la siguiente entrada más pequeña, esté donde esté, y la atención cruzada
    aprende eso en lugar de una diagonal.

    Cambia la tarea, el esquema posicional o la anchura en los controles del laboratorio y pulsa
    ▶ Iniciar: la precisión en los datos reservados dice si el modelo generaliza a entradas que
    nunca vio.

lesson-page-without-warmup = Sin calentamiento
lesson-page-without-warmup-text =
    Los apuntes dicen que un transformer entrenado con una tasa alta sin calentamiento se rezaga
    o diverge. Pruébalo: esta página pone la tasa pico en 3·10⁻², diez veces la predeterminada
    del laboratorio, sin calentamiento. Pulsa Iniciar.

    Tras 600 pasos, la pérdida de esta ejecución sigue en 1.76 (la media de los últimos 50
    pasos) y no invierte ninguna secuencia reservada: los primeros pasos grandes lanzaron los
    pesos a un lugar del que no se ha recuperado en 600 pasos.

    Ahora arrastra el calentamiento a 200 pasos, lo que inicia una nueva ejecución, y vuelve a
    pulsar Iniciar: las curvas anteriores se quedan en las gráficas. Con calentamiento, la misma
    tasa pico alcanza una pérdida de 0.31 tras 600 pasos y el 72 % de las secuencias exactamente
    bien. La mayor norma del gradiente baja de 36.1 a 12.1.

    Con el pico predeterminado de 3·10⁻³, este modelo pequeño aprende igual de bien sin
    calentamiento que con él: el calentamiento importa cuando la tasa es alta o el modelo
    profundo.

lesson-page-pre-training-by-filling-blanks = Preentrenamiento rellenando huecos
lesson-page-pre-training-by-filling-blanks-text =
    Un decodificador aprende de texto plano prediciendo cada token siguiente a partir de los
    anteriores. BERT aprende del mismo tipo de texto de otra manera, el modelado de lenguaje
    enmascarado: elige el 15 % de las posiciones y predice el token original de cada una a partir
    de todo lo que la rodea, a ambos lados. De las posiciones elegidas, el 80 % se sustituye por
    <mask>, el 10 % por un token al azar y el 10 % se queda como estaba, para que el modelo no
    pueda suponer que solo <mask> requiere pensar. La pérdida es la entropía cruzada solo en las
    posiciones elegidas: la media sobre las posiciones elegidas i de −log p(x_i | la ventana
    alterada).

    sotu-mlm es un codificador que Glimpse entrenó así con los discursos del Estado de la Unión,
    sin máscara causal: cada token lee todos los demás. Partió de los pesos de sotu-lm (el mismo
    tokenizador, más <mask>) y leyó 8.2 M tokens en 4,000 pasos, 29 minutos en dos núcleos.

    El laboratorio rellena el hueco de “The <mask> of the Union is strong.”: “ state” sale
    primero con p = 0.49. Escribe tu propia frase con <mask> en lugar de cualquier palabra, o de
    varias: cada hueco se rellena a partir de la misma pasada única.

    La prueba de su receta de entrenamiento con discursos reservados (2008–2026; las cifras
    vienen con el modelo, y el comando glimpse train-lm las reproduce) sitúa el token oculto en
    primer lugar el 41 % de las veces. Su perplejidad en los tokens ocultos es 23.8, frente a
    145.5 de un bigrama de Kneser–Ney que solo ve el vecino de la izquierda y 950.6 de las
    frecuencias de palabras por sí solas.

lesson-page-the-blank-reads-both-ways = El hueco lee en ambos sentidos
lesson-page-the-blank-reads-both-ways-text =
    La misma frase en el explorador, en la fila de <mask> (consulta 1). En la capa 3, cabeza 1,
    el hueco pone 0.99 de su atención en “ Union”, tres tokens a su derecha: la palabra que hace
    probable “state” viene después del hueco. Un decodificador no podría leerla; su máscara
    causal pone exactamente a 0 cada peso a la derecha de la consulta.

    Prueba las otras cabezas (Todas las cabezas las muestra todas a la vez), o cambia la frase
    en el panel de entrada y deja un <mask> en ella: algunas cabezas leen hacia la izquierda,
    otras hacia la derecha, y los candidatos vienen de ambos lados.

lesson-page-training-memory-at-l-512 = Memoria de entrenamiento con L = 512
lesson-page-training-memory-at-l-512-text =
    La tabla de memoria de los apuntes para un paso de entrenamiento del modelo base con L = 512 y
    un lote de 32: matrices de atención 4.0 GB, activaciones 1.2 GB, parámetros 0.25 GB,
    gradientes 0.25 GB y momentos de Adam 0.5 GB, unos 6.2 GB en total.

    La tabla al pie de esta pestaña calcula cada fila con la fórmula que los apuntes escriben a su
    lado. Parámetros, gradientes y los dos momentos de Adam coinciden. Dos filas no. B·N·h·L²·4
    bytes son 1.61 GB, no 4.0: la fórmula cuenta una pila de N capas, y contar todas las capas de
    atención del codificador–decodificador (3N) da 4.83 GB. B·N·L·D·4 bytes son 0.20 GB, no 1.2:
    la fórmula guarda un tensor L × D por capa, y la pasada hacia atrás necesita varios.

    Duplica L: las filas de atención crecen cuatro veces, las activaciones el doble y el resto
    nada.

lesson-page-how-many-heads = ¿Cuántas cabezas?
lesson-page-how-many-heads-text =
    Los apuntes dan una ablación atribuida a Attention Is All You Need: d_model = 512 cortado en
    1, 2, 4, 8, 16 o 32 cabezas, con la calidad subiendo hasta 8 cabezas y bajando después,
    mientras los parámetros y las multiplicaciones-sumas no cambian: d_k = d_model / h se
    reduce al crecer h. La tabla del propio artículo no tiene ninguna ejecución de 2 cabezas y
    una cima más plana: 1 cabeza queda 0.9 BLEU por detrás de la mejor, 16 cabezas empatan con
    8 en 25.8 y 32 cabezas pierden 0.4. Ambas ponen lo mejor en el centro del rango, pero en
    el artículo las pérdidas en los extremos son pequeñas.

    Esta pestaña repite el experimento con el modelo de caracteres de Glimpse, de 64 de ancho:
    seis ejecuciones de 500 pasos desde la misma semilla, una por número de cabezas, entrenadas
    aquí una tras otra (unos minutos). Con la semilla 1 la pérdida en validación es 1.86 con una
    cabeza, 1.79 con cuatro y 2.00 con treinta y dos, cuyas cabezas comparan cada una los
    caracteres con solo d_k = 64 / 32 = 2 números. Las treinta y dos cabezas además entrenan más
    despacio que la única, con las mismas multiplicaciones-sumas.

    Prueba la semilla 2: el centro del rango sigue ganando, por algo más o algo menos.
