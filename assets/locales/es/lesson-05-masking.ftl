## Lección 5: Enmascaramiento

lesson-masking = Enmascaramiento

lesson-page-the-causal-mask = La máscara causal
lesson-page-the-causal-mask-text =
    Un decodificador predice el token i+1 a partir de los tokens hasta i, así que no debe ver el
    futuro. Suma M a las puntuaciones antes de la softmax: M_ij = 0 si j ≤ i, y −∞ en otro caso.

    exp(−∞) = 0, así que todo peso por encima de la diagonal es exactamente cero y cada fila
    sigue sumando 1 sobre las claves visibles.

    Cambia entre los modos de máscara a la derecha; el modelo es el decodificador del modelo de
    traducción, ejecutándose en vivo.

lesson-page-padding-in-a-batch = Relleno en un lote
lesson-page-padding-in-a-batch-text =
    Las frases de un lote tienen longitudes distintas, así que las cortas se rellenan con <pad>.
    Una máscara de relleno P bloquea esas claves para todas las consultas.

    Las dos máscaras se suman: softmax(E + M + P). Sin P, los tokens reales gastarían peso en el
    relleno y sus salidas cambiarían según el lote.

lesson-page-teacher-forcing = Teacher forcing
lesson-page-teacher-forcing-text =
    En el entrenamiento, la entrada del decodificador es el destino desplazado a la derecha, con
    <bos> al principio: la posición i lee los tokens verdaderos anteriores a ella y predice el
    token i.

    Gracias a la máscara causal, todas las posiciones se entrenan en una sola pasada en
    paralelo; ningún token puede leer su propia respuesta.

    En inferencia, el modelo lee en cambio sus propias predicciones. Nunca vio sus errores
    durante el entrenamiento, así que un error puede llevar a otros: el sesgo de exposición
    (exposure bias).

lesson-page-exposure-bias-measured = El sesgo de exposición, medido
lesson-page-exposure-bias-measured-text =
    El final de esta sección mide el sesgo de exposición en el modelo repeat, entrenado con
    teacher forcing para repetir una secuencia aleatoria de letras, sobre 300 secuencias
    reservadas.

    Con teacher forcing, leyendo el prefijo verdadero, falla el 2.1 % de los tokens de la
    respuesta. Decodificando libremente, leyendo sus propias salidas, falla el 13.6 %. Mientras
    su propio prefijo sigue siendo correcto es el del teacher forcing, así que la diferencia
    solo aparece tras un primer error: después de uno, el 94.3 % de los tokens siguientes son
    erróneos. Copia del lugar al que apunta su token equivocado, y cada error trae el siguiente.

    248 de las 300 respuestas salen enteras correctas.
