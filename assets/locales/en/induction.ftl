## The induction lab: the picked model reads random words twice; the loss on the repeat and
## the heads that copy (induction heads).

# An item of the export menu
induction-export-run = run as JSON
induction-intro = The picked model reads a sequence of random words, then the same words again. Nothing predicts the first copy. In the second, a model that has learnt to copy ("after A came B last time, so B comes next") is far less surprised: its induction heads attend from each word to the word that followed that word's earlier occurrence.
induction-words-per-copy = words per copy
# Written before the seed's number
induction-seed = seed
induction-new-words = new words
# SmolLM2, sotu-lm, repeat and lm are model names
induction-pick-decoder = Pick a decoder LM in the top bar: SmolLM2, sotu-lm, repeat or lm.
# $model is a model's name; $first and $second are numbers such as 5.43; $verdict is one of the two below
induction-mean-loss = { $model }: mean loss { $first } nats on the first copy, { $second } on the second ({ $verdict })
# $percent is a whole number
induction-verdict-copies = the repeat is { $percent } % less surprising: the model copies
induction-verdict-no-copy = the repeat hardly helps: this model has not learnt to copy
induction-tokens = the { $count } random tokens, read twice:
induction-plot-title = loss of each prediction
# The plot's x axis, short (in its summary) and long
induction-plot-x-short = position
induction-plot-x = position of the predicted token
induction-plot-y = loss (nats)
induction-plot-series = −ln p(next token)
induction-second-copy = second copy starts
induction-ranking = Heads ranked by induction score
induction-ranking-about = the mean attention each query of the second copy pays to the token right after its earlier occurrence (1 = all of it)
induction-layer-head = layer { $layer } · head { $head }
# $score is a number such as 0.87
induction-best-head = layer { $layer } · head { $head } (induction score { $score }): rows are queries, columns keys
# The names of the heatmap's rows and columns, in its hover text
induction-axis-query = query
induction-axis-key = key
# The caption of the heatmap's colour legend
induction-weight = attention weight
