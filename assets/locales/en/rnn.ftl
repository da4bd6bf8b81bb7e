## The RNN lab: a GRU translator with one context vector against one with additive attention, trained in the page

rnn-heading = Why attention: the bottleneck, trained
# $hidden: the smallest state width
rnn-intro = Two GRU encoder–decoders learn the toy French→English task from the same seed and sentences. The first passes the whole sentence to the decoder as one vector, the encoder's last state h_T (width H). The second scores every encoder state at every step with additive attention and reads a fresh mixture c_t of them. Both cells and the attention have our own backward pass, checked against PyTorch. With H = { $hidden } the one vector cannot hold a long sentence.
rnn-export-json = results as JSON
rnn-fixed-context = fixed context
rnn-additive-attention = additive attention

## Controls

rnn-state-width = state width H
# Before the seed's number
rnn-seed = seed
rnn-train-both = ▶ train both
# $steps: training steps of each model
rnn-train-what = 2 models × { $steps } steps, the same seed and sentences

## Curves and exact match by length

rnn-loss-title = training loss (log₁₀, per word)
rnn-step = step
# $held_out: how many held-out sentences
rnn-by-length-label = exact translations by sentence length ({ $held_out } held out)
rnn-by-length-title = exact translations by sentence length
rnn-words = words
rnn-source-words = source words

## The alignment on the reader's sentence

rnn-your-sentence = On your sentence
rnn-french-sentence = French sentence
rnn-type-a-sentence = type a sentence from the translator's vocabulary
# $words: the words the toy vocabulary lacks
rnn-unknown-words = not in the toy vocabulary: { $words }
# The two models' translations, one under the other: the spaces line them up
rnn-fixed-output = fixed context:      { $output }
rnn-attention-output = additive attention: { $output }
rnn-decoder-step = decoder step t
rnn-output-word = output word
rnn-source-word = source word
rnn-source-word-i = source word i
# $word: the output word produced at decoder step $step
rnn-step-producing = Step { $step }: producing “{ $word }” from s_{ $step }
