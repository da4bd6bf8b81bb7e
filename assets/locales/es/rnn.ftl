## The RNN lab: a GRU translator with one context vector against one with additive attention, trained in the page

rnn-heading = Por qué atención: el cuello de botella, entrenado
# $hidden: the smallest state width
rnn-intro = Dos codificadores–decodificadores GRU aprenden la tarea de juguete francés→inglés con la misma semilla y las mismas frases. El primero pasa toda la frase al decodificador como un solo vector, el último estado del codificador h_T (ancho H). El segundo puntúa cada estado del codificador en cada paso con atención aditiva y lee una mezcla nueva c_t de ellos. Ambas celdas y la atención tienen nuestra propia pasada hacia atrás, contrastada con PyTorch. Con H = { $hidden } un solo vector no puede contener una frase larga.
rnn-export-json = resultados en JSON
rnn-fixed-context = contexto fijo
rnn-additive-attention = atención aditiva

## Controls

rnn-state-width = ancho del estado H
# Before the seed's number
rnn-seed = semilla
rnn-train-both = ▶ entrenar ambos
# $steps: training steps of each model
rnn-train-what = 2 modelos × { $steps } pasos, la misma semilla y las mismas frases

## Curves and exact match by length

rnn-loss-title = pérdida de entrenamiento (log₁₀, por palabra)
rnn-step = paso
# $held_out: how many held-out sentences
rnn-by-length-label = traducciones exactas por longitud de frase ({ $held_out } de validación)
rnn-by-length-title = traducciones exactas por longitud de frase
rnn-words = palabras
rnn-source-words = palabras de origen

## The alignment on the reader's sentence

rnn-your-sentence = En tu frase
rnn-french-sentence = Frase en francés
rnn-type-a-sentence = escribe una frase con el vocabulario del traductor
# $words: the words the toy vocabulary lacks
rnn-unknown-words = no está en el vocabulario de juguete: { $words }
# The two models' translations, one under the other: the spaces line them up
rnn-fixed-output = contexto fijo:    { $output }
rnn-attention-output = atención aditiva: { $output }
rnn-decoder-step = paso t del decodificador
rnn-output-word = palabra de salida
rnn-source-word = palabra de origen
rnn-source-word-i = palabra de origen i
# $word: the output word produced at decoder step $step
rnn-step-producing = Paso { $step }: produce “{ $word }” a partir de s_{ $step }
