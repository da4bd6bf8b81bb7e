## Los modelos incorporados, como los describe el selector de modelos (`builtin-<nombre>`)

builtin-translate = codificador–decodificador entrenado con una gramática de juguete francés→inglés: los adjetivos pasan delante del sustantivo y su orden se invierte, así que la atención cruzada no es diagonal
builtin-reverse = codificador–decodificador entrenado que escribe su entrada al revés: la atención cruzada es la antidiagonal
builtin-reverse-nomask = la tarea de invertir entrenada SIN la máscara causal del decodificador: aprende a copiar el token siguiente del futuro visible, así que la pérdida con teacher forcing es ~0 y aun así la generación falla (ver la pestaña Máscaras)
builtin-extrap-sinusoidal = la tarea de invertir con posiciones sinusoidales, entrenada con 3–8 letras y capaz de aceptar hasta 18: ¿hasta dónde extrapola? (pestaña Posiciones)
builtin-extrap-learned = la tarea de invertir con una tabla de posiciones aprendida, entrenada con 3–8 letras y capaz de aceptar hasta 18: ¿hasta dónde extrapola? (pestaña Posiciones)
builtin-extrap-rope = la tarea de invertir con RoPE, entrenada con 3–8 letras y capaz de aceptar hasta 18: ¿hasta dónde extrapola? (pestaña Posiciones)
builtin-extrap-alibi = la tarea de invertir con sesgos ALiBi, entrenada con 3–8 letras y capaz de aceptar hasta 18: ¿hasta dónde extrapola? (pestaña Posiciones)
builtin-extrap-relative = la tarea de invertir con sesgos de posición relativa aprendidos (recortados a distancia 8), entrenada con 3–8 letras y capaz de aceptar hasta 18: ¿hasta dónde extrapola? (pestaña Posiciones)
builtin-copy = codificador–decodificador entrenado que copia su entrada: la atención cruzada es la diagonal
builtin-sort = codificador–decodificador entrenado que ordena letras: cada paso de salida busca la siguiente letra más pequeña
builtin-repeat = modelo solo decodificador entrenado con secuencias aleatorias repetidas: una cabeza de token anterior en la capa 0 y una cabeza de inducción en la capa 1
builtin-sotu-lm = un modelo de lenguaje en inglés entrenado por Glimpse con los discursos del Estado de la Unión (1790–2007): 4 capas, 4 cabezas, d=192, RoPE, BPE a nivel de bytes de 4,096 piezas; perplejidad con datos reservados 56.8
builtin-sotu-mlm = un codificador de lenguaje enmascarado (la tarea de BERT) entrenado por Glimpse con los discursos del Estado de la Unión a partir de los pesos de sotu-lm: escribe <mask> en lugar de una palabra y rellena el hueco desde ambos lados; en discursos reservados pone el token oculto en primer lugar el 41 % de las veces
builtin-lm = modelo de lenguaje a nivel de caracteres entrenado con un texto corto escrito para Glimpse: cada cabeza mira hacia atrás, a letras anteriores, para adivinar la siguiente
builtin-demo-decoder = solo decodificador a nivel de caracteres (tipo GPT): 2 capas, 4 cabezas que comparten 2 cabezas de clave/valor (GQA), RoPE, pre-norm; pesos aleatorios
builtin-demo-encoder = solo codificador a nivel de caracteres (tipo BERT): 2 capas, 4 cabezas, posiciones sinusoidales, post-norm; pesos aleatorios
builtin-demo-translate = codificador–decodificador a nivel de palabras (el transformer original): 2+2 capas, 4 cabezas, posiciones aprendidas, post-norm, atención cruzada; pesos aleatorios
