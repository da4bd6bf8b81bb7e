## Lección 3: Autoatención

lesson-self-attention = Autoatención

lesson-page-every-token-sees-every-token = Cada token ve todos los tokens
lesson-page-every-token-sees-every-token-text =
    En la autoatención, Q, K y V vienen todas de la misma secuencia. Cualquier token alcanza a
    cualquier otro en un paso, así que la longitud del camino entre posiciones es O(1), donde
    una RNN necesita O(L) pasos.

    La capa no es lineal en su entrada: los propios pesos dependen de los datos a través de QKᵀ
    y de la softmax.

    A la derecha hay un modelo real: all-MiniLM-L6-v2, un codificador de frases al estilo de
    BERT (6 capas × 12 cabezas, 22.7 M de parámetros) que lee en ambas direcciones. Es lo
    bastante pequeño para descargarlo durante una lección, y sabe inglés. Sus 72 cabezas leen
    una frase que los profesores usan para explicar la atención.

    Encima de la cuadrícula, el clasificador de cabezas de la aplicación indica la cabeza que
    muestra cada patrón con más fuerza en esta entrada. La cabeza 2 de la capa 0 mira el token
    anterior (puntuación 1.00). La cabeza 5 de la capa 4 mira [CLS], el token con el que empieza
    toda entrada (0.90). La cabeza 8 de la capa 1 mira sobre todo el token siguiente (0.57),
    algo que solo puede hacer un modelo sin máscara causal. Abre “Controles de entrada y de
    atención” abajo para escribir tu propia frase.

lesson-page-order-means-nothing-to-attention = El orden no significa nada para la atención
lesson-page-order-means-nothing-to-attention-text =
    Sin información posicional, la autoatención es equivariante por permutaciones: f(πX) = π
    f(X). Baraja los tokens y las salidas son los mismos vectores, barajados de la misma manera.

    Así, "the dog bit the man" y "the man bit the dog" darían a cada palabra la misma salida: la
    capa ve un conjunto, no una secuencia.

    El panel baraja la entrada de un codificador entrenado y compara sus salidas con y sin las
    codificaciones posicionales: sin ellas, las filas solo se reordenan; con ellas, cambian
    todas las filas. La página “¿Quién mordió a quién?” lo hace con un codificador real de
    inglés.

lesson-page-what-it-costs = Lo que cuesta
lesson-page-what-it-costs-text =
    La autoatención compara todos los L² pares de posiciones, cada uno con un producto escalar
    de anchura D: O(L²·D). La recurrencia de una RNN cuesta O(L·D²), y lo mismo las propias
    proyecciones de la atención, Q, K, V y O (4·L·D²).

    El término por pares L²·D es menor que el L·D² de la recurrencia exactamente cuando L < D,
    como en una frase de L = 100 con D = 512. Esa regla compara solo estos dos términos, no
    capas enteras: con sus proyecciones, una capa de atención hace unas dos veces el trabajo de
    una capa RNN simple con estos tamaños, y menos que una LSTM (la página “La calculadora de
    costes” los cuenta). Con L = 10⁴ domina el término L² y la matriz de pesos L×L llena la
    memoria.

    A cambio, todas las posiciones se calculan a la vez: O(1) operaciones secuenciales en lugar
    de las O(L) de la RNN.

    A la derecha, la atención del modelo de caracteres sobre un texto más largo. Calcula las L²
    puntuaciones; después su máscara causal pone a −∞ las que quedan por encima de la diagonal
    (rayadas) antes de la softmax, así que solo las celdas de la diagonal y de debajo reciben
    peso. Aquí la máscara no ahorra ninguna multiplicación, y un codificador usa el cuadrado
    entero. “La calculadora de costes”, más adelante en esta lección, calcula estos costes para
    cualquier L y D.

lesson-page-what-does-it-read = ¿Qué lee "it"?
lesson-page-what-does-it-read-text =
    En "The animal didn't cross the street because it was too tired", un lector sabe que "it" es
    el animal. La cabeza 1 de la capa 3 de MiniLM pone 0.68 de la atención de "it" (la fila de
    "it") en "animal", y 0.05 en "street".

    Ahora cambia "tired" (cansado) por "wide" (ancha) en la entrada: un lector entiende que "it"
    es la calle. El peso de esta cabeza en "animal" baja a 0.28, pero no pasa a "street" (0.12).
    La mayor parte va en cambio a [CLS].

    Así que esta cabeza no sigue al referente del pronombre como lo hace un lector, y ninguna
    cabeza por sí sola es el razonamiento del modelo. Los pesos de atención
    muestran por dónde fluye la información, no por qué decide el modelo lo que decide.

lesson-page-relevance-is-not-symmetric = La relevancia no es simétrica
lesson-page-relevance-is-not-symmetric-text =
    La puntuación de la consulta i frente a la clave j es qᵢ·kⱼ, con q = x W_Q y k = x W_K. W_Q
    y W_K son matrices distintas, así que qᵢ·kⱼ y qⱼ·kᵢ son en general números distintos:
    dejando aparte los sesgos que también llevan las proyecciones de MiniLM, solo coinciden
    siempre si W_Q W_Kᵀ es simétrica.

    En "He sat on the bank of the river", la cabeza 4 de la capa 0 de MiniLM pone 0.71 de la
    atención de "bank" (su fila) en "river": la palabra que dice de qué "bank" se trata (orilla,
    no banco). "river" solo da 0.17 a "bank".

    Estos pesos podrían seguir siendo distintos aunque las dos puntuaciones fueran iguales: la
    softmax normaliza cada fila sobre sus propias claves, así que una misma puntuación pesa más
    en una fila cuyas otras puntuaciones son bajas. Para comparar las puntuaciones mismas,
    cambia el mapa de calor a “antes del softmax (puntuaciones escaladas)”: aquí también
    difieren, 4.98 para (bank, river) frente a 3.08 para (river, bank).

    Lee la matriz por filas, que muestran lo que reúne cada consulta. Después compara la celda
    (bank, river) con la celda (river, bank). Una columna muestra quién escucha a una clave.

lesson-page-who-bit-whom = ¿Quién mordió a quién?
lesson-page-who-bit-whom-text =
    Volvamos al orden, en un modelo real. El panel pasa "the dog bit the man" y "the man bit the
    dog" por all-MiniLM-L6-v2, un codificador BERT, con sus embeddings de posición aprendidos
    desactivados y activados.

    Desactivados, la salida de cada palabra solo se mueve con la palabra, y los vectores de
    frase (la media de las salidas, que es como se usa este modelo) son idénticos: coseno
    1.0000. El modelo no podría saber quién mordió a quién.

    Activados, difieren: coseno 0.9795. La palabra que más cambia es "dog" (0.64): ahora es el
    objeto en lugar del sujeto.

    Escribe tu propio par: la segunda casilla debe usar las mismas palabras.

lesson-page-the-cost-calculator = La calculadora de costes
lesson-page-the-cost-calculator-text =
    La frase de las notas: L = 100 tokens de anchura D = 512. Por capa, las puntuaciones por
    pares de la autoatención requieren L²·D = 5,120,000 multiplicaciones-sumas, la recurrencia
    de una capa recurrente L·D² = 26,214,400 y una convolución de anchura K = 3, K·L·D² =
    78,643,200. El término por pares es el menor, y necesita un paso paralelo donde la RNN
    necesita 100.

    No es la capa de atención entera. Las proyecciones Q, K, V y O suman 4·L·D² = 104,857,600 y
    la suma ponderada A·V otros L²·D = 5,120,000: 115,097,600 en total. Tampoco la recurrencia
    es la capa RNN entera: además multiplica cada entrada por su matriz de entrada, otro L·D²,
    así que una capa RNN simple hace 2·L·D² = 52,428,800 (el T × 2d² de las notas). Capa contra
    capa, la atención hace 2.2 veces el trabajo de la RNN simple con estos tamaños; las cuatro
    puertas de una LSTM hacen que su capa cueste 8·L·D² = 209,715,200, más que la atención. La
    tabla de un bloque, más abajo, detalla cada término.

    Pulsa "notas: L = 10⁴": el término por pares cuesta ahora 5.12 × 10¹⁰ frente a los 2.62144 ×
    10⁹ de la RNN. Supera a la recurrencia exactamente cuando L supera a D: mueve los
    deslizadores y observa cómo se cruzan las líneas en la gráfica.

    La memoria sigue la misma pauta: 51,200 números de estado de la RNN frente a 61,200 de la
    atención con L = 100 (L² + L·D). Las tablas de abajo cuentan los parámetros de un bloque,
    4·D² para la atención y 2·D·d_ff para la capa feed-forward, y los del propio modelo elegido,
    tensor a tensor.

    Mueve el control de cabezas: con h = 8 cabezas de d_k = D/h = 64, las proyecciones mantienen
    4·D² = 1,048,576 parámetros y las puntuaciones L²·D = 5,120,000 multiplicaciones-sumas, como
    con una cabeza de 512; solo los pesos de atención se multiplican por h, 480,000 números en la
    pasada frente a 60,000 con una cabeza. La tabla de memoria da cada tamaño en unidades
    decimales y en las binarias de los apuntes: una matriz L × L con L = 1,024 ocupa 4.2 MB, o
    4.0 MiB.

lesson-page-stacked-attention-without-a = Atención apilada sin capa feed-forward
lesson-page-stacked-attention-without-a-text =
    Apila dos capas de atención sin nada entre ellas. Conocidos los pesos A₁ y A₂,
    Y₂ = A₂·(A₁·X·W_V1)·W_V2 = (A₂A₁)·X·(W_V1·W_V2): una sola mezcla de los tokens, A₂A₁, cuyas
    filas siguen sumando 1, y una sola aplicación lineal de sus números. La página calcula los
    dos lados.

    Lo que impide que la pila sea una aplicación lineal es cómo se obtienen los pesos a partir
    de X. Escala la entrada por c = 2: con los pesos fijos, la salida se duplica, exactamente
    lineal. Con las puntuaciones QKᵀ/√d y sin softmax, cada salida crece por 2⁹ = 512, porque
    cada capa multiplica su entrada por sí misma dos veces: un polinomio, no una aplicación
    lineal. Con softmax las salidas cambian por factores distintos, porque los propios pesos
    cambian de forma.

    En un bloque transformer (lección 7) una capa feed-forward sigue a cada capa de atención y
    añade la no linealidad elemento a elemento (ReLU) que le falta a la atención.
