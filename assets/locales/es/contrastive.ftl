## The contrastive lab: InfoNCE on a sentence encoder

contrastive-heading = Aprendizaje contrastivo: InfoNCE
contrastive-intro = Cada línea es un par: un ancla y su positivo, una frase que significa lo mismo. El modelo elegido convierte cada frase en un vector z (la media de sus últimos estados ocultos, escalada a longitud 1). Cada ancla se compara con el positivo de cada par: el suyo es la respuesta correcta, los demás son negativos. InfoNCE es la entropía cruzada de esa clasificación a temperatura τ.
contrastive-pairs-label = pares, uno por línea: ancla | positivo
contrastive-hard-label = negativo difícil:
contrastive-hard-use = añadirlo a los candidatos de cada ancla
contrastive-tau = temperatura τ
# $reason says why no model is there
contrastive-no-model = No hay modelo con el que obtener los vectores: { $reason }. Elige all-MiniLM-L6-v2 en la barra superior.
contrastive-not-minilm = { $model } no se entrenó para representar frases: la media de sus estados es solo una representación aproximada. all-MiniLM-L6-v2 se entrenó con esta misma pérdida.
contrastive-embedding = calculando los vectores de las frases: { $done } de { $total }
contrastive-hard-short = difícil
contrastive-axis-anchor = ancla
contrastive-axis-candidate = candidato
contrastive-similarity-title = s_ij = cos(ancla i, candidato j): los positivos en la diagonal
# $tau is the temperature
contrastive-probability-title = softmax de cada fila de s / τ, τ = { $tau }: la respuesta del clasificador
contrastive-p-positive = p(su positivo)
contrastive-loss = pérdida −log p
contrastive-first = positivo en primer lugar
contrastive-yes = sí
contrastive-no = no
# $uniform is log of the number of candidates
contrastive-summary = Pérdida InfoNCE media { $mean } con { $candidates } candidatos por ancla (adivinar al azar daría log { $candidates } = { $uniform }); { $right } de { $anchors } anclas ponen su positivo en primer lugar.
# $anchor is an anchor's number
contrastive-hard-effect = El negativo difícil sube la pérdida media de { $before } a { $after }. Sobre todo para el ancla { $anchor }: de { $from } a { $to } (+{ $rise }). Un negativo tan parecido como el positivo compite en el denominador; entrenar con él separa a los dos.
contrastive-note = Una τ menor afila cada fila: la pérdida solo premia entonces un margen claro entre el positivo y el negativo más cercano. Con N pares en un lote, cada ancla recibe N − 1 negativos gratis: los positivos de los otros pares.
contrastive-error-no-bar = la línea { $line } no tiene | entre el ancla y su positivo
contrastive-error-empty-side = la línea { $line } necesita texto a los dos lados de |
contrastive-error-too-few = escribe al menos dos pares: los negativos de un ancla son los positivos de los otros pares
contrastive-error-too-many = { $count } pares: caben como mucho { $max } en pantalla con cada número
contrastive-error-no-output = el modelo no dio estados ocultos que promediar
