## Lección 2: La capa de atención

lesson-the-attention-layer = La capa de atención

lesson-page-queries-keys-and-values = Consultas, claves y valores
lesson-page-queries-keys-and-values-text =
    La atención es una búsqueda suave en una base de datos. Una consulta dice qué busca una
    posición, una clave dice qué ofrece una posición, y un valor es lo que entrega cuando hay
    coincidencia.

    Las tres son aplicaciones lineales de las entradas: Q = X W_Q, K = X W_K, V = X W_V. Claves
    y valores están separados porque lo que hace relevante a una palabra no es lo mismo que lo
    que debe aportar.

    Nada obliga a que las dos puntuaciones de un par coincidan: W_Q y W_K son matrices
    distintas, así que qᵢ·kⱼ y qⱼ·kᵢ son en general dos números distintos, y una palabra puede
    pesar mucho a otra mientras la otra apenas la pesa a ella. La lección 3 mide un par así en
    un modelo real.

    El recorrido de la derecha va de X a la salida, una matriz cada vez. Avanza con sus botones
    o con las teclas ← →.

lesson-page-scaled-dot-product-attention = Atención de producto escalar escalado
lesson-page-scaled-dot-product-attention-text =
    Para todas las consultas a la vez:

    $$attention$$

    Por pasos: E = QKᵀ/√d_k, A = softmax(E) fila a fila, Y = A·V. Con N_Q consultas y N_K
    claves, E y A son N_Q×N_K e Y es N_Q×d_v.

    La fila i de A contiene los pesos de la consulta i; la salida i es una media ponderada de
    las filas de valores:

    $$weighted-sum$$

    Un solo producto de matrices trata todas las consultas en paralelo.

    El recorrido está ahora en ÷√d_k. Sigue avanzando por softmax y A·V, y selecciona una
    consulta para ver su suma ponderada desarrollada.

lesson-page-why-divide-by-d-k = Por qué dividir por √d_k
lesson-page-why-divide-by-d-k-text =
    Si las d_k componentes de q y de k son independientes, con media 0 y varianza σ², cada
    producto de componentes correspondientes tiene varianza σ⁴, así que Var(q·k) = d_k σ⁴: las
    puntuaciones crecen con la anchura. La media nula importa: con medias distintas de cero la
    varianza es aún mayor.

    Las puntuaciones grandes saturan la softmax: softmax([2, 1]) ≈ [0.73, 0.27] pero
    softmax([20, 10]) ≈ [0.99995, 0.00005]. Casi todo el peso queda entonces en una sola clave,
    un pequeño cambio en cualquier puntuación apenas mueve los pesos, y el gradiente que llega a
    las puntuaciones es casi cero.

    Dividir por √d_k devuelve la varianza a σ⁴, sea cual sea la anchura. La gráfica de varianza
    del laboratorio muestra las puntuaciones sin escalar y escaladas a medida que crece d_k;
    mueve el deslizador de d_k.

lesson-page-temperature-and-entropy = Temperatura y entropía
lesson-page-temperature-and-entropy-text =
    Escalar equivale a una temperatura: softmax(e/τ). Cuando τ → 0, los pesos se acercan a una
    elección one-hot (atención dura); cuando τ → ∞, se vuelven uniformes.

    La entropía mide cuán repartida está una fila:

    $$entropy$$

    Vale 0 cuando una clave se lo lleva todo, log T cuando las T claves se reparten a partes
    iguales.

    Esta página ejecuta el modelo con τ = 0.3, más concentrado que en su entrenamiento. Abre
    “Controles de entrada y de atención” debajo de este texto, arrastra el deslizador de
    temperatura y observa el mapa de calor y la entropía que aparece encima.

lesson-page-softmax-by-hand = Softmax a mano
lesson-page-softmax-by-hand-text =
    El ejemplo resuelto de las notas: una consulta puntúa tres claves con e = [0, 2, 1]. La
    softmax les da los pesos 0.09, 0.67 y 0.24, así que la salida es 0.09·v₁ + 0.67·v₂ +
    0.24·v₃: sobre todo el segundo valor, un poco de los demás. Cada peso es

    $$softmax$$

    La tabla muestra cada paso: restar la puntuación mayor (no cambia nada, pero ninguna
    exponencial puede desbordarse), exponenciar y dividir por la suma. La entropía de estos
    pesos es 1.20 bits, de un máximo de log₂ 3 = 1.58.

    El jacobiano de abajo indica cómo se mueve cada peso cuando se empuja un poco una
    puntuación:

    $$softmax-jacobian$$

    Cada columna suma 0: los pesos siempre suman 1, así que
    empujar cualquier puntuación eⱼ deja su total sin cambios (Σᵢ ∂αᵢ/∂eⱼ = 0). J = diag(α) −
    ααᵀ es simétrica, así que sus filas también suman 0. Escribe tus propias puntuaciones en la
    casilla.

lesson-page-when-softmax-saturates = Cuando la softmax se satura
lesson-page-when-softmax-saturates-text =
    Las puntuaciones [2, 1] dan los pesos 0.73 y 0.27, y la mayor entrada del jacobiano es α₁α₂
    = 0.197: un pequeño empujón a cualquiera de las dos puntuaciones todavía mueve los pesos.

    Aquí cada puntuación se multiplica por s = 10, así que las puntuaciones son [20, 10]. Los
    pesos son 0.99995 y 0.00005, la softmax actúa como argmax, y el mayor gradiente es 0.000045:
    unas 4,300 veces menor. El aprendizaje a través de esta softmax prácticamente se ha
    detenido.

    La gráfica muestra el mayor gradiente a medida que crece s. Dividir las puntuaciones por
    √d_k las mantiene en el rango donde es grande; arrastra el deslizador.

lesson-page-q-k-and-v-by = Q, K y V a mano
lesson-page-q-k-and-v-by-text =
    Tres consultas y tres claves de anchura d_k = 4, escritas en las casillas. La consulta 1
    puntúa las claves con QKᵀ = [0, 4, 2]; divididas por √4 = 2 son las [0, 2, 1] del ejemplo
    resuelto, así que la consulta 1 reúne 0.09·v₁ + 0.67·v₂ + 0.24·v₃ = [0.33, 0.91].

    Cada fila de A es la softmax de una consulta y suma 1: lo que esa consulta reúne. Las notas
    dibujan Aᵀ en su lugar, una columna por consulta. Cambia a "filas de Aᵀ" y una fila pasa a
    ser una clave: quién la escucha. La clave 2 la leen las tres consultas, 1.63 en total; el
    total de una clave no tiene por qué ser 1.

    Cambia cualquier número, o las dimensiones: Q y K necesitan la misma anchura, y V una fila
    por clave.

lesson-page-routing-0-1-0-3-0-6 = Enrutado: 0.1, 0.3, 0.6
lesson-page-routing-0-1-0-3-0-6-text =
    Los apuntes presentan la autoatención como un enrutado. La salida 1 toma 0.1 del primer
    valor, 0.3 del segundo y 0.6 del tercero; la salida 2 mezcla los mismos tres valores como
    0.5, 0.2 y 0.3. Cada salida es una suma ponderada de un mismo conjunto de valores, cada una
    con sus propios pesos, positivos y que suman 1.

    Aquí esos pesos salen de consultas y claves de verdad. Las claves son vectores unitarios (por
    √3, que la división entre √d_k deshace), así que las puntuaciones de cada consulta son sus
    propios tres números, y cada consulta contiene los logaritmos de sus pesos: la softmax
    convierte ln 0.1, ln 0.3 y ln 0.6 de nuevo en 0.10, 0.30 y 0.60. Los pesos 0.2, 0.7 y 0.1 de
    la tercera salida son nuestros; los apuntes la dejan abierta.

    Los valores son vectores unitarios con un 1 añadido, así que cada fila de la salida es su
    enrutado: la salida 1 es [0.10, 0.30, 0.60, 1.00], y su último número es la suma de los
    pesos. Cambia un valor y cada salida que pasa por él se mueve según su peso.
