## Lección 1: Por qué atención

lesson-why-attention = Por qué atención

lesson-page-the-bottleneck = El cuello de botella
lesson-page-the-bottleneck-text =
    Antes de la atención, un codificador–decodificador recurrente comprimía toda su entrada en
    el último estado del codificador, un vector del mismo tamaño fuera cual fuera la longitud de
    la frase: el decodificador solo veía el origen a través de ese vector, en cada palabra de
    salida. Cuanto más larga la frase, más se pierde en ese único vector: ese es el cuello de
    botella.

    Con la atención, cada paso de salida t puede consultar todos los estados del codificador hᵢ,
    no solo el último. En la forma aditiva (Bahdanau), el estado anterior del decodificador
    s_{"{"}t−1{"}"} puntúa cada posición de origen: e_{"{"}t,i{"}"} = vᵀ tanh(W s_{"{"}t−1{"}"}
    + U hᵢ).

    Las puntuaciones se convierten en pesos a_{"{"}t,i{"}"} = softmax_i(e_{"{"}t,i{"}"}), que
    son positivos y suman 1, y el decodificador lee el contexto, una mezcla nueva del origen
    para cada palabra de salida:

    $$bahdanau-context$$

    A la derecha está la atención cruzada de un pequeño modelo de traducción entrenado. Las
    filas son palabras de destino (consultas) y las columnas, palabras de origen (claves); cada
    fila es un a_{"{"}t,·{"}"}. Este modelo es un transformer: puntúa con el producto escalar
    escalado qᵀk/√d_k de la próxima lección, no con la forma aditiva de Bahdanau, pero sus pesos
    se leen de la misma manera.

lesson-page-alignment-nobody-taught = Un alineamiento que nadie enseñó
lesson-page-alignment-nobody-taught-text =
    El modelo se entrenó solo para producir la frase en inglés; nadie le dijo qué palabra
    francesa corresponde a qué palabra inglesa. Aun así, los pesos emparejan palabra con
    palabra: un mapa de alineamiento.

    Una fila del decodificador es el paso que produce la palabra siguiente, así que cada fila
    mira la palabra de origen que está a punto de traducir. La fila de "the", que debe producir
    "european", lee "européenne"; la fila de "economic", que debe producir "area", lee "zone".

    El francés pone el adjetivo después del sustantivo: "zone économique européenne" se
    convierte en "european economic area". Las líneas se cruzan donde el orden de las palabras
    difiere.

    Prueba otras cabezas y capas con los controles de la columna izquierda, o escribe otra frase
    con el pequeño vocabulario del modelo.

lesson-page-ways-to-score-a-query = Formas de puntuar una consulta frente a una clave
lesson-page-ways-to-score-a-query-text =
    Cualquier función de una consulta q y una clave k que devuelva un número puede servir de
    puntuación. Las variantes de Luong: producto escalar (dot) qᵀk; general (bilineal) qᵀWk;
    concat (aditiva) vᵀ tanh(Wq + Uk). Los transformers usan el producto escalar escalado
    qᵀk/√d_k.

    La tabla muestra las cuatro para una consulta del modelo de traducción, cada una seguida de
    su softmax. Los productos escalares necesitan q y k de la misma anchura; las formas bilineal
    y aditiva tienen sus propios parámetros (aquí elegidos al azar, ya que este modelo nunca los
    aprendió).

    Elige otra palabra de consulta encima de la tabla y compara qué clave prefiere cada función
    de puntuación.

lesson-page-the-bottleneck-trained = El cuello de botella, entrenado
lesson-page-the-bottleneck-trained-text =
    Ahora la propia RNN. Esta página entrena dos pequeños codificadores–decodificadores GRU con
    las mismas traducciones de juguete y desde la misma semilla: uno pasa la frase al
    decodificador como el último estado del codificador, un único vector de 8 números; el otro
    puntúa cada estado del codificador en cada paso con la atención aditiva de Bahdanau, e = vᵀ
    tanh(W s_{"{"}t−1{"}"} + U hᵢ).

    En la aplicación de escritorio (el navegador redondea de forma algo distinta), tras 1,500
    pasos ambos traducen todas las frases de 2 palabras; con 7 palabras, el vector fijo acierta
    4 de 39 frases reservadas y la atención, 32: cuanto más larga es la frase, menos cabe por un
    solo vector.

    Debajo de las gráficas, ambos traducen "je vois la voiture verte rapide .": el vector fijo
    dice "i see the small car .", la atención "i see the fast green car .". Arrastra el paso t
    del decodificador: cada fila del mapa es un a_{"{"}t,·{"}"}; en el paso 3, al producir
    "fast", mira "rapide". La tabla da las puntuaciones e y los pesos del paso. Ensancha el
    estado a 32 y el cuello de botella se afloja en frases así de cortas.
