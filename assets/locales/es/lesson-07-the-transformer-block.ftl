## Lección 7: El bloque transformer

lesson-the-transformer-block = El bloque transformer

lesson-page-heads-back-together = Las cabezas, de nuevo juntas
lesson-page-heads-back-together-text =
    MultiHead(X) = concat(head₀, …, head_{"{"}h−1{"}"})·W_O. La concatenación pone una junto a
    otra las h salidas de anchura d_k (anchura h·d_k = d_model), y W_O mezcla lo que encontraron
    las cabezas.

    El recorrido está en el paso concat de la autoatención del codificador; avanza hasta W_O.

lesson-page-add-norm-and-the-feed = Add & Norm y la capa feed-forward
lesson-page-add-norm-and-the-feed-text =
    Un bloque codificador es atención y después una red feed-forward, cada una envuelta en una
    conexión residual y una LayerNorm. El transformer original lo escribe Y = LayerNorm(X +
    MHSA(X)), Z = LayerNorm(Y + FFN(Y)).

    FFN(x) = max(0, xW₁ + b₁)W₂ + b₂, aplicada a cada token por separado, con una anchura oculta
    d_ff = 4·d_model en el original (2048 para 512). La atención mezcla tokens; la FFN
    transforma cada uno.

    LayerNorm normaliza cada token sobre sus características, con la media μ y la varianza σ²
    del token, un ε pequeño, y una escala γ y un desplazamiento β aprendidos:

    $$layer-norm$$

    así que no depende del lote ni de otras posiciones (BatchNorm sí dependería, lo que encaja
    mal con secuencias de longitud variable).

    El transformer original normaliza después de la suma residual (post-norm); la mayoría de los
    modelos modernos normalizan la entrada de cada subcapa (pre-norm), de modo que el propio
    flujo residual nunca se normaliza: una pila pre-norm profunda conserva un camino identidad
    desde la salida hasta cada capa, y se entrena con más facilidad. El modelo de la derecha es
    pre-norm, Y = X + MHSA(LN(X)), Z = Y + FFN(LN(Y)), y pequeño: d_ff = 64 = 2·d_model.

    El recorrido continúa después de W_O. "x + attn" suma la salida de la atención al flujo que
    leyó. "norm₂" es la LayerNorm antes de la FFN: la media μ y la varianza σ² de cada token, la
    fila normalizada z, los γ y β aprendidos, y el resultado. "FFN" muestra la capa oculta de
    anchura d_ff; "x + FFN" es la salida del bloque, la entrada del bloque siguiente.

lesson-page-cross-attention = Atención cruzada
lesson-page-cross-attention-text =
    Un bloque decodificador tiene tres subcapas: autoatención enmascarada, luego atención
    cruzada, luego la FFN, cada una con Add & Norm.

    La atención cruzada mezcla las dos pilas: el decodificador pregunta y la salida del
    codificador (la memoria) responde: Q = Y W_Q, K = H W_K, V = H W_V. El decodificador
    recupera el significado del origen; la proyección final al vocabulario elige la palabra.

    La cuadrícula muestra todas las cabezas de atención cruzada de las dos capas del
    decodificador. El clasificador llama cabeza de alineamiento de palabras a la cabeza en la
    que cada token de destino pone la mayor parte de su peso en un token de origen propio; la
    más clara aquí es la capa 1, cabeza 2 (0.71). Sus celdas brillantes no bajan por la
    diagonal: la traducción mueve los adjetivos e invierte su orden, y la cabeza sigue a las
    palabras, no a las posiciones.

lesson-page-one-block-three-families = Un bloque, tres familias
lesson-page-one-block-three-families-text =
    La misma plantilla de bloque da lugar a las tres familias; lo que cambia es lo que puede ver
    cada atención.

    Solo codificador (tipo BERT): autoatención sin máscara. Solo decodificador (tipo GPT):
    autoatención causal y sin atención cruzada. Codificador–decodificador (el transformer
    original): un codificador sin máscara, un decodificador causal y atención cruzada entre
    ambos.

    El panel muestra las máscaras y la atención de cada familia en modelos entrenados.

lesson-page-from-the-last-layer-to = De la última capa a una palabra
lesson-page-from-the-last-layer-to-text =
    Tras el último bloque (y, en un modelo pre-norm, una LayerNorm final) cada posición contiene
    una fila h de anchura d. La capa de salida la puntúa frente a cada token del vocabulario,
    logits = h·W_vocabᵀ + b, y un softmax sobre todo el vocabulario convierte las puntuaciones
    en las probabilidades del siguiente token.

    sotu-lm, el modelo inglés que entrenó Glimpse, comparte su matriz de salida con su
    embedding: W_vocab es E, la misma matriz de 4,096 × 192 que convertía los tokens en
    vectores. El logit de un token es el producto escalar de h con el embedding de ese mismo
    token, y compartirla ahorra 4,096 · 192 = 786,432 parámetros.

    El recorrido está en los logits de la última capa, para las columnas de los tokens más
    probables. Avanza hasta softmax (vocab): después de "The state of the Union is", el
    siguiente token más probable para el modelo es " the".

lesson-page-deep-stacks-pre-norm-and = Pilas profundas: pre-norm y post-norm
lesson-page-deep-stacks-pre-norm-and-text =
    Cada subcapa tiene una conexión residual, y en cada una un camino puede atravesar la subcapa
    o rodearla. Un bloque codificador tiene dos subcapas, así que N bloques abren 2^(2N) caminos
    de la entrada a la salida: 4,096 para los seis bloques del codificador original. Un bloque
    decodificador tiene una tercera, la atención cruzada, así que los seis bloques del
    decodificador original abren 2¹⁸ = 262,144.

    Dónde está la LayerNorm decide lo que hace la profundidad. La pestaña construye dos modelos
    nuevos de 12 bloques para la tarea de repetir, idénticos salvo en eso. Post-norm renormaliza
    el flujo después de cada subcapa, así que, con γ = 1 y β = 0 en la LayerNorm al inicio, sale
    de cada bloque con norma √d. Pre-norm solo normaliza lo que lee cada subcapa: el flujo es
    una suma acumulada y crece de bloque en bloque.

    Los gradientes en la inicialización también difieren. Los de post-norm son mayores en el
    bloque más cercano a la salida (2.61 allí, 0.54 en el menor): un primer paso grande allí, a
    menos que la tasa de aprendizaje tenga calentamiento. Los de pre-norm disminuyen hacia la
    salida (1.92 en el primer bloque, 0.54 en el último), sin pico. Mueve N y observa ambos.

    Bajo las gráficas, sotu-lm, un modelo pre-norm entrenado, con el texto del cuadro de
    entrada: su flujo también crece de bloque en bloque.

lesson-page-deep-stacks-trained = Pilas profundas, entrenadas
lesson-page-deep-stacks-trained-text =
    Ahora, entrénalos. La página entrena dos veces el modelo de la tarea de invertir desde la
    misma semilla, con seis bloques de profundidad en el codificador y en el decodificador, una
    vez pre-norm y otra post-norm, con la tasa de aprendizaje en su pico desde el primer paso
    (sin calentamiento).

    Tras 1,000 pasos, pre-norm invierte todas las secuencias reservadas (pérdida de unos 0.002);
    post-norm se queda atascado cerca de una pérdida de 1.5, con menos del 40 % de las letras
    bien y ninguna secuencia: la inestabilidad de las pilas post-norm profundas que describen
    los apuntes. Los apuntes la ven con 24 a 48 capas; sin calentamiento, aquí bastan seis
    bloques. (En nativo, 1.53 y 37.8 %; el navegador redondea de otra manera y el entrenamiento
    lo amplifica, así que sus últimas cifras difieren.)

    Marca el calentamiento y ambos se entrenan (post-norm hasta una pérdida de 0.011, 100 %
    exacto). Arrastra los bloques a 2 y post-norm también se entrena sin calentamiento: es la
    profundidad lo que hace frágil a post-norm. Bajo la tabla, los flujos de los decodificadores
    entrenados: el de pre-norm crece bloque a bloque, el de post-norm lo reinicia cada
    LayerNorm, a un tamaño que fijan sus γ y β aprendidos.

lesson-page-the-original-transformer-65-m = El Transformer original: 65 M y 213 M
lesson-page-the-original-transformer-65-m-text =
    El modelo base del artículo (D = 512, d_ff = 2048, h = 8, seis bloques en el codificador y seis
    en el decodificador) tiene 65 M de parámetros, y su modelo grande (D = 1024, d_ff = 4096,
    h = 16), 213 M. La tabla al pie de esta pestaña los cuenta con las fórmulas del bloque: 63.1 M
    y 214.2 M, si una sola matriz de embeddings de 37,000 tokens sirve a la entrada del
    codificador, a la del decodificador y a la capa de salida.

    Un bloque del decodificador tiene más que uno del codificador: su atención cruzada añade otros
    4·D² + 4·D. Las cabezas no añaden nada: h decide cómo se corta D en trozos, no cuántos pesos
    hay.

    Los apuntes reparten base en 32 M de embeddings, 31 M de codificador y 37 M de decodificador.
    Eso suma 100 M, no 65 M; las fórmulas dan 18.9 M, 18.9 M y 25.2 M.
