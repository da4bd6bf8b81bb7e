## Lección 10: Los ejemplos resueltos de los apuntes

lesson-the-notes-worked-examples = Los ejemplos resueltos de los apuntes

lesson-page-0-45-0-45-0 = 0.45, 0.45, 0.05, 0.05
lesson-page-0-45-0-45-0-text =
    El primer ejemplo de los apuntes: al traducir "we are eating bread", el decodificador
    escribe "estamos" con los pesos de atención 0.45, 0.45, 0.05 y 0.05 sobre las cuatro
    palabras de origen, así que su contexto es sobre todo "we are".

    Softmax da exactamente estos pesos cuando las puntuaciones de "we" y "are" están ln 9 ≈
    2.1972 por encima de las otras dos:

    $$estamos$$

    Esas son las puntuaciones del cuadro.

    Cámbialas: sube una puntuación y observa cómo se mueve el peso, y cómo el jacobiano dice
    cuánto.

lesson-page-softmax-0-2-1 = softmax([0, 2, 1])
lesson-page-softmax-0-2-1-text =
    El ejemplo de la hoja de autoatención: las puntuaciones 0, 2 y 1 dan los pesos 0.09, 0.67 y
    0.24, y la salida 0.09·v₁ + 0.67·v₂ + 0.24·v₃.

    La parte “Q, K, V a mano” de esta pestaña pone los mismos números dentro de un producto
    real: una consulta cuyos productos escalares con tres claves, divididos entre √4, son [0, 2,
    1].

lesson-page-start-big-cat = [START] Big cat
lesson-page-start-big-cat-text =
    La máscara causal de los apuntes sobre tres tokens, "[START] Big cat": el decodificador del
    traductor lee exactamente estos, con <bos> como [START], mientras traduce "le grand chat".

    {"["}START] solo puede leerse a sí mismo, así que su fila de A es 1.00 y luego ceros. "big" lee
    {"["}START] y a sí mismo. "cat" lee los tres. Todo peso por encima de la diagonal es exactamente
    0, en cada cabeza y cada capa: M suma −∞ ahí antes del softmax.

    Cambia el modo de máscara a “ninguna” y los ceros se rellenan: cada token leería el que
    viene después, algo que un decodificador no puede tener en tiempo de generación.

lesson-page-d-4-i-can-buy = d = 4: I Can Buy
lesson-page-d-4-i-can-buy-text =
    La codificación sinusoidal más pequeña de los apuntes: d = 4, dos bandas, ω₀ = 1 y ω₁ =
    10000^(−2/4) = 0.01, así que p_t = [sin t, cos t, sin 0.01t, cos 0.01t] con longitudes de
    onda 2π ≈ 6.28 y 200π ≈ 628.32 posiciones.

    "I" en t = 0 recibe [0, 1, 0, 1]; "Can" en t = 1 recibe [0.84, 0.54, 0.01, 1.00]; "Buy" en t
    = 2 recibe [0.91, −0.42, 0.02, 1.00]. La tabla bajo los deslizadores los escribe: la banda
    rápida cambia mucho de un token al siguiente, la lenta apenas se mueve.

    Sube d para ver más bandas, cada una más lenta que la anterior.

lesson-page-rope-on-the-dog-slept = RoPE en "the dog slept"
lesson-page-rope-on-the-dog-slept-text =
    Los apuntes rotan tres vectores de 4 dimensiones de "the dog slept". (Rotan los propios
    embeddings; en un modelo real, RoPE rota cada consulta y cada clave tras su proyección y
    nunca los valores, como muestra la lección de posiciones. La aritmética es la misma.)
    Cuentan las posiciones desde 1, así que "the" gira θ = 1 en su primer par y 0.01 en el
    segundo, "dog" 2 y 0.02, "slept" 3 y 0.03.

    Baja hasta la sección 4 de este panel, “Rota tus propios vectores”: contiene sus números.
    Las filas rotadas son las de los apuntes: [0.402, 0.811, 0.192, 0.802], [−0.845, 0.163,
    0.298, 0.106] y [−0.212, −0.071, 0.879, 0.727]. Las longitudes no cambian: una rotación solo
    gira cada par.

    Pon la primera posición en 0 y "the" no se mueve en absoluto: con las posiciones desde 0,
    como en los modelos, el primer token nunca se rota.

lesson-page-je-suis-tudiant-b-2 = Je suis étudiant, B = 2
lesson-page-je-suis-tudiant-b-2-text =
    La búsqueda en haz de los apuntes: traducir "Je suis étudiant" con B = 2 sobre sus
    probabilidades hechas a mano, escritas aquí como una tabla (… representa cualquier otra
    palabra). Pulsa Paso para seguirla.

    El paso 1 conserva "I" (0.60) y "Me" (0.30). El paso 2 conserva "I am" (0.54) y "Me too"
    (0.18). El paso 3 descarta "Me too". Los apuntes solo dicen que sus continuaciones son poco
    probables; la tabla de aquí da 0.30 a "!" y a ".", así que su mejor continuación solo llega
    a 0.054, por debajo de "I am a" (0.378) y de "I am …" (0.108). El haz termina en "I am a
    student" con probabilidad 0.3024 (log p −1.196).

    La decodificación voraz encuentra la misma frase: en cada paso la palabra más probable
    también está en el mejor camino, así que retrasar la elección no cambia nada. En la tabla de
    la página de búsqueda en haz de la lección Decodificación sí cambia: el "the" (0.5) de la
    voraz lleva como mucho a 0.20, y el "a" (0.4) del haz, a 0.36.

lesson-page-l-100-d-512 = L = 100, D = 512
lesson-page-l-100-d-512-text =
    Los apuntes comparan los términos que mezclan los tokens, con L = 100 tokens de anchura D =
    512: 26,214,400 para la recurrencia de una capa recurrente, 78,643,200 para una convolución
    con K = 3, y 5,120,000 para las puntuaciones por pares de la autoatención. Las proyecciones
    de la atención (4·L·D² = 104,857,600) quedan fuera, así que no es una comparación de capas
    enteras.

    Con L = 10⁴ el orden se invierte: 2.62144 × 10⁹ para la RNN frente a 5.12 × 10¹⁰ para la
    autoatención. La calculadora calcula ambos; los botones ponen los tamaños de los apuntes.

lesson-page-infonce-classify-the-positive = InfoNCE: clasificar el positivo
lesson-page-infonce-classify-the-positive-text =
    La pestaña Contrastivo representa cuatro pares de paráfrasis con all-MiniLM-L6-v2 y compara
    cada ancla con el positivo de cada par. InfoNCE es la entropía cruzada de elegir el correcto:

    $$infonce$$

    aquí con τ = 0.05: los positivos de los otros pares son los negativos, gratis.

    Las dos anclas de música confunden sus positivos: solo 2 de 4 anclas ponen el suyo en primer
    lugar, y la pérdida media es 0.506. Luego el negativo difícil "A man is selling a guitar."
    se une a los candidatos. Su similitud con "A man is playing a guitar." es 0.74, por encima
    del positivo de esa ancla, 0.68, así que la pérdida del ancla 1 sube de 0.772 a 1.822 y la
    media de 0.506 a 0.769.

    Entrenar con un negativo así lo aleja del ancla: casi las mismas palabras, otro significado.
    (Una vez que se une, la suma bajo la fracción también tiene su término exp(s/τ).)
