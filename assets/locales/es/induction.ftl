## El laboratorio de inducción: el modelo elegido lee palabras al azar dos veces; la pérdida en
## la repetición y las cabezas que copian (cabezas de inducción).

# An item of the export menu
induction-export-run = ejecución como JSON
induction-intro = El modelo elegido lee una secuencia de palabras al azar y luego las mismas palabras otra vez. Nada predice la primera copia. En la segunda, un modelo que ha aprendido a copiar ("la última vez después de A vino B, así que ahora viene B") se sorprende mucho menos: sus cabezas de inducción atienden desde cada palabra a la palabra que siguió a la aparición anterior de esa palabra.
induction-words-per-copy = palabras por copia
# Written before the seed's number
induction-seed = semilla
induction-new-words = otras palabras
# SmolLM2, sotu-lm, repeat and lm are model names
induction-pick-decoder = Elige un LM decodificador en la barra superior: SmolLM2, sotu-lm, repeat o lm.
# $model is a model's name; $first and $second are numbers such as 5.43; $verdict is one of the two below
induction-mean-loss = { $model }: pérdida media { $first } nats en la primera copia, { $second } en la segunda ({ $verdict })
# $percent is a whole number
induction-verdict-copies = la repetición sorprende un { $percent } % menos: el modelo copia
induction-verdict-no-copy = la repetición apenas ayuda: este modelo no ha aprendido a copiar
induction-tokens = los { $count } tokens al azar, leídos dos veces:
induction-plot-title = pérdida de cada predicción
# The plot's x axis, short (in its summary) and long
induction-plot-x-short = posición
induction-plot-x = posición del token predicho
induction-plot-y = pérdida (nats)
induction-plot-series = −ln p(siguiente token)
induction-second-copy = empieza la segunda copia
induction-ranking = Cabezas ordenadas por puntuación de inducción
induction-ranking-about = la atención media que cada consulta de la segunda copia presta al token justo después de su aparición anterior (1 = toda)
induction-layer-head = capa { $layer } · cabeza { $head }
# $score is a number such as 0.87
induction-best-head = capa { $layer } · cabeza { $head } (puntuación de inducción { $score }): las filas son consultas, las columnas claves
# The names of the heatmap's rows and columns, in its hover text
induction-axis-query = consulta
induction-axis-key = clave
# The caption of the heatmap's colour legend
induction-weight = peso de atención
