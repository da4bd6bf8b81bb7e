## Lección 4: Codificaciones posicionales

lesson-positional-encodings = Codificaciones posicionales

lesson-page-naive-positions = Posiciones ingenuas
lesson-page-naive-positions-text =
    La idea más simple es sumar el índice t al embedding del token. No está acotado: la posición
    500 es un número enorme al lado de embeddings de tamaño del orden de 1.

    Normalizar a t/(N−1) lo mantiene en [0, 1], pero se estira como una goma elástica: un paso
    significa 1/(N−1), así que el mismo desplazamiento significa cosas distintas en frases de
    distinta longitud.

lesson-page-sinusoidal-encodings = Codificaciones sinusoidales
lesson-page-sinusoidal-encodings-text =
    $$sinusoidal$$

    Cada par es un punto de la circunferencia unidad que gira a su propia velocidad, ω_k =
    10000^(−2k/d). Las longitudes de onda
    2π·10000^(2k/d) van de 2π para el par más rápido a 2π·10000^((d−2)/d) para el más lento:
    unas 35,300 posiciones con d = 32 (el modelo de traducción) y 47,100 con d = 64 (el valor
    por defecto del laboratorio). 2π·10000 ≈ 62,800 es solo el límite cuando d crece.

    A lo largo de las dimensiones, los pares avanzan como las cifras de un cuentakilómetros,
    pero de forma continua: los pares rápidos cambian en cada paso, mientras que los más lentos
    necesitan decenas de miles de posiciones para dar una vuelta.

    El producto escalar de dos codificaciones depende solo del desplazamiento o entre ellas:

    $$sinusoidal-offset$$

    y PE(t+o) es PE(t) rotado por una matriz que depende solo de o. Está definida para cualquier
    t.

lesson-page-rope-rotate-queries-and-keys = RoPE: rotar consultas y claves
lesson-page-rope-rotate-queries-and-keys-text =
    Los embeddings rotatorios dejan X intacta y rotan en cambio q y k: el par p de dimensiones
    (2p, 2p+1) del vector en la posición i gira un ángulo i·ω_p, con ω_p = 10000^(−2p/d), como
    los nombran los deslizadores del panel.

    Las rotaciones conservan las normas y se componen, así que ⟨R(i)q, R(j)k⟩ = qᵀR(j−i)k: la
    puntuación depende solo del desplazamiento j − i, no de dónde esté el par.

    Escribe unos cuantos vectores pequeños y posiciones en el panel y lee los vectores rotados
    en su tabla.

lesson-page-longer-than-trained = Más largo que en el entrenamiento
lesson-page-longer-than-trained-text =
    Una tabla aprendida P tiene N_max filas de anchura d y nada más allá. Los esquemas relativos
    puntúan en cambio el desplazamiento i − j. T5 suma a cada logit un número aprendido, uno por
    cabeza y por intervalo de desplazamientos (el a_{"{"}i−j{"}"} de las notas; los intervalos
    se ensanchan con la distancia). Transformer-XL suma los términos qᵢ·W_R r_{"{"}i−j{"}"} +
    u·kⱼ + v·W_R r_{"{"}i−j{"}"}: r es una codificación sinusoidal fija del desplazamiento, W_R
    una proyección aprendida, y u y v dos vectores aprendidos comunes a todas las consultas.
    ALiBi resta una pendiente fija multiplicada por la distancia.

    El panel ejecuta con entradas más largas modelos entrenados con cada esquema para invertir
    secuencias cortas. Compara dónde cae la tasa de coincidencia exacta de cada uno: posiciones
    que nunca vio y desplazamientos mayores que cualquiera de los que aprendió.

lesson-page-a-band-on-the-unit-circle = Una banda en la circunferencia unidad
lesson-page-a-band-on-the-unit-circle-text =
    Con el seno de una banda solo, dos ángulos pueden esconderse tras un mismo valor: sin(π/6) y
    sin(5π/6) valen ambos 0.5000. Si se añade el coseno de la banda, cada ángulo pasa a ser un
    punto (sin(ω_k t), cos(ω_k t)) de la circunferencia unidad; los dos cosenos, +0.8660 y
    −0.8660, ponen esos ángulos en lados opuestos.

    La página muestra la banda 0, que gira ω_0 = 1 rad por posición. En la posición 2, sin 2 =
    0.9093. A menos de 0.05, las posiciones 20, 27 y 46 tienen el mismo seno; solo la 46, siete
    vueltas enteras después (7·2π ≈ 43.98), es además casi el mismo punto (cos 46 = −0.432
    frente a cos 2 = −0.416). Las bandas más lentas distinguen la 2 de la 46.

    Mueve la posición y la banda, y mira qué posiciones confunde el seno solo.

lesson-page-does-position-survive-depth = ¿Sobrevive la posición a la profundidad?
lesson-page-does-position-survive-depth-text =
    Un modelo con posiciones absolutas (aprendidas o sinusoidales) las suma una vez, abajo;
    después la atención y la capa feed-forward de cada bloque escriben en el mismo flujo
    residual. ¿Sigue ahí la posición arriba? Aquí se mide,
    no se afirma: una sonda lineal ajustada sobre el flujo de 72 pasajes da la posición de cada
    token en otros 24.

    En all-MiniLM-L6-v2 (posiciones aprendidas sumadas abajo) la sonda acierta la posición exacta
    del 82.9 % en los embeddings y del 18.1 % tras la sexta capa, frente al 3.1 % por azar; la
    parte posicional del flujo baja de 0.103 a 0.024. La posición se desvanece a medida que las
    capas mezclan los tokens.

    Elige SmolLM2: RoPE no suma ningún vector de posición, así que la sonda está cerca del azar
    en los embeddings (2.3 %, azar 3.1 %), y la atención escribe algo de posición (como mucho
    13.5 % exacta). Elige reverse: un codificador entrenado cuya tarea necesita la posición la
    conserva, y su parte posicional crece con la profundidad.
