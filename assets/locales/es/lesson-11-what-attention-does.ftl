## Lección 11: Qué hace la atención

lesson-what-attention-does = Qué hace la atención

lesson-page-what-each-layer-predicts = Qué predice cada capa
lesson-page-what-each-layer-predicts-text =
    Dónde mira una cabeza no es lo que dice el modelo. La logit lens (lente de logits) pregunta
    a cada capa qué diría: lee el flujo residual tras el bloque l a través de la normalización
    final y la capa de salida, como si el modelo se detuviera ahí.

    Con "The Eiffel Tower is in the city of", la última posición de SmolLM2 muestra signos de
    puntuación y palabras de relleno durante la mayor parte de su profundidad. " Paris" pasa a
    ser el token más probable solo a la profundidad 29, con p = 0.07, y sale del último bloque
    con p = 0.66: la respuesta solo se vuelve legible
    a través de la capa de salida en los últimos bloques.

    Haz clic en otra columna para seguir esa posición, o escribe otro token de respuesta: la
    línea bajo la cuadrícula es su probabilidad, profundidad a profundidad.

lesson-page-looking-is-not-using = Mirar no es usar
lesson-page-looking-is-not-using-text =
    Los pesos de atención dicen dónde lee una cabeza, no si lo que lee importa. Aquí se apaga
    por turnos cada cabeza de SmolLM2 con "When Mary and John went to the store, John gave a
    drink to", y el cambio en logit(" Mary") − logit(" John") es su efecto.

    La cabeza 11.1 pone 0.86 de su peso en " drink", pero apagarla mueve la respuesta solo 0.01.
    La cabeza 23.3 tiene el mayor efecto: apagarla mueve la respuesta 3.04 hacia " John", y su
    mayor peso, 0.74, está en el segundo " John". Sobre todas las cabezas, mirar mucho e
    importar apenas están relacionados (correlación de rangos 0.16).

    82 de las 270 cabezas ponen la mitad de su peso o más en el primer token, "When": son
    sumideros. Los vectores de valor que leen ahí tienen una longitud media de 1.89 frente a
    8.96 en el resto, así que el peso aparcado ahí aporta poco.

lesson-page-who-says-the-name = ¿Quién dice el nombre?
lesson-page-who-says-the-name-text =
    El parcheo (patching) encuentra lo que transporta una respuesta. El texto limpio pide
    " Mary"; el corrupto dice "Mary gave a drink to", así que pide " John". logit(" Mary") −
    logit(" John") es 6.12 en el limpio y −5.49 en el corrupto.

    Copia una activación de la ejecución limpia en la corrupta y mide cuánto vuelve de la
    respuesta limpia (1 = toda). El flujo residual en el segundo " John" la restaura por
    completo hasta el bloque 19; desde el bloque 24 la respuesta está, en cambio, en la última
    posición (0.92): entre ambos, las cabezas la movieron.

    La cabeza 23.3 restaura 0.58 por sí sola, la cabeza 29.1 0.27 y la cabeza 20.0 0.22. En la
    ejecución limpia, la cabeza 23.3 baja logit(" John") en 2.49: encuentra el nombre que ya era
    el sujeto y lo empuja hacia abajo, así que gana el otro nombre.

lesson-page-induction-causally = Inducción, causalmente
lesson-page-induction-causally-text =
    Once palabras y luego las mismas palabras otra vez: en el segundo " copper", SmolLM2 predice
    " velvet", la palabra que siguió a " copper" la primera vez. En el texto corrupto, el primer
    " copper" es " stone", así que nada dice qué sigue a " copper".

    El barrido residual muestra el camino: el " copper" limpio importa en su propia posición
    hasta el bloque 16, luego en " velvet" en el bloque 17 (0.53), y luego en la última posición
    desde el bloque 18 (0.74).

    La cabeza 16.0 restaura 0.44 por sí sola: copia "el token anterior a mí era copper" en
    " velvet". La cabeza 18.6, una cabeza de inducción, restaura 0.18: desde el último " copper"
    encuentra la posición cuyo token anterior era " copper" y lee " velvet" ahí. La página
    siguiente muestra a la cabeza 16.0 mirando.

lesson-page-the-head-that-reads-the = La cabeza que lee el token anterior
lesson-page-the-head-that-reads-the-text =
    La cabeza 16.0 con las mismas palabras, desde el primer " velvet": 0.98 de su peso está en
    " copper", el token justo anterior.

    El parcheo dijo que esta cabeza importa; su atención dice lo que hace. Elige otras filas de
    la misma cabeza: la mayoría mira un token atrás.
