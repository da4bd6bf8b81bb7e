## El laboratorio de puntuación: una consulta puntuada contra sus claves de cuatro maneras, la
## temperatura del softmax, y por qué la atención de producto escalar escalado divide por √d_k

scoring-title = Puntuación y escala
scoring-no-model = Carga un modelo y escribe un texto para puntuar una de sus consultas.
# $query: el texto del token de consulta; $keys: cuántas claves; $source: de dónde vienen
# (scoring-source).
scoring-caption = Consulta “{ $query }” contra { $keys } claves: { $source }
# $selection: la capa, la cabeza y la atención elegidas ("capa 1 · cabeza 2 · cross-attention");
# $query: la posición de la consulta; $token: su texto.
scoring-source = { $selection }, consulta { $query } “{ $token }”
scoring-query-picker = consulta:
# Entrada del menú de exportación: la tabla de puntuaciones como archivo JSON.
scoring-export-scores-json = puntuaciones como JSON
scoring-no-keys = No hay claves que puntuar: escribe un texto.
scoring-zero-width = Esta cabeza tiene ancho 0: no hay nada que puntuar.
# $query: el ancho de la consulta; $key: el ancho de cada clave.
scoring-width-mismatch = La consulta tiene { $query } números pero cada clave tiene { $key }: no se pueden puntuar juntas.
scoring-not-finite = La consulta o las claves contienen valores NaN o infinitos, así que no hay nada con sentido que puntuar ni dibujar.
# Una clave sin etiqueta.
scoring-key-n = clave { $key }
scoring-temperature = Temperatura
scoring-temperature-needs = Necesita una consulta y claves: carga un modelo y escribe un texto.

## La tabla de puntuaciones

# Las cuatro puntuaciones, como títulos de columna; las fórmulas quedan como están.
scoring-kind-dot = producto q·k
scoring-kind-scaled-dot = producto escalado q·k/√d
scoring-kind-bilinear = bilineal qᵀWk
scoring-kind-additive = aditiva vᵀtanh(Wq+Uk)
scoring-table-explain = La misma consulta puntuada contra las mismas claves de cuatro maneras. El modelo usa el producto escalado; la W bilineal y las W, U, v aditivas son aleatorias aquí (con semilla, entradas ~ N(0, 1/h)), así que compara la forma de cada puntuación, no sus valores.
scoring-table-weight = peso: softmax de la columna con τ = 1. Resaltada: la clave mejor puntuada de cada columna.
scoring-new-params = nuevas W, U, v al azar
scoring-new-params-hover = sortea otros parámetros bilineales y aditivos
# Títulos de columna, también el eje y el nombre de la serie del gráfico de barras.
scoring-key = clave
scoring-weight = peso

## La vista de temperatura

scoring-temperature-title = Temperatura: softmax(s/τ)
scoring-temperature-slider = temperatura τ
scoring-temperature-hover = divide las puntuaciones del producto escalado por τ antes del softmax
scoring-overflow = Las puntuaciones desbordaron a infinito o NaN: nada que dibujar.
# $tau, $entropy, $max: números; $keys: cuántas claves (T).
scoring-entropy = entropía con τ = { $tau }: { $entropy } bits (0 = one-hot … log₂ { $keys } = { $max } = uniforme)
scoring-temperature-explain = Una τ pequeña afila los pesos hacia el argmax; una τ grande los aplana hacia la uniforme.
# La línea discontinua de pesos iguales en el gráfico de barras.
scoring-uniform = uniforme 1/T
scoring-weights-title = pesos del producto escalado con esta τ
scoring-entropy-plot-caption = entropía frente a τ (discontinua: log₂ T, el máximo uniforme)
scoring-entropy-plot-title = entropía frente a τ
scoring-current-log-tau = log₁₀ τ actual
scoring-tau-axis = τ (escala log.)
scoring-entropy-axis = entropía (bits)
scoring-entropy-series = entropía
scoring-current-tau = τ actual
scoring-entropy-now = entropía actual

## Por qué dividir por √d_k

scoring-scaling-title = Por qué dividir por √d_k
scoring-resample = remuestrear
scoring-resample-hover = sortea nuevos q y k (una semilla nueva)
# $done de $widths anchos de clave medidos hasta ahora.
scoring-measuring = midiendo: { $done } de { $widths } anchos
# $samples: cuántas muestras; $seed: la semilla.
scoring-variance-explain = { $samples } muestras de q y k con entradas N(0, 1) i.i.d. (semilla { $seed }). q·k suma d_k productos de varianza 1, así que su varianza es d_k: las cabezas anchas llevarían el softmax hacia one-hot con gradientes que se desvanecen. Dividir por √d_k la mantiene en 1.
# $width: el d_k de la cabeza elegida; $root: su raíz cuadrada.
scoring-head-width = Esta cabeza tiene d_k = { $width }, así que el modelo divide sus puntuaciones por √{ $width } = { $root }.
scoring-variance-title = varianza de las puntuaciones frente a d_k
scoring-d-k-axis = d_k (escala log.)
scoring-variance-axis = varianza (escala log.)
scoring-theory-raw = d_k (teoría, sin escalar)
scoring-theory-scaled = 1 (teoría, escalada)
scoring-chosen-d-k = d_k elegido
scoring-chosen-log-d-k = log₂ d_k elegido
