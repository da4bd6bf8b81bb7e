## The masking lab: mask modes on the picked model, padding in a batch, the three families
## of models and teacher forcing. <pad>, <bos> and <eos> are token names: keep them as they are.

masking-section-modes = Mask modes
masking-section-batch = Padding in a batch
masking-section-families = Three families
masking-section-teacher = Teacher forcing
# $model is the name of the model being loaded
masking-loading = loading { $model }…
masking-load-first = load a model first (the model picker above)
# Items of the export menu: the attention weights A saved as a file
masking-export-csv = A (weights) as CSV
masking-export-json = A (weights) as JSON

## Mask modes

masking-mode-none = none
masking-mode-causal = causal
masking-mode-padding = padding
masking-mode-causal-padding = causal + padding
masking-mode-prefix = prefix-LM
masking-mode-custom = custom (click M)
masking-mode-none-explain = Every query sees every key, <pad> included.
masking-mode-causal-explain = A query sees itself and earlier positions only: what a decoder needs so it cannot read the answer it is asked to predict.
masking-mode-padding-explain = Keys that are <pad> are blocked for every query; everything else is visible.
masking-mode-causal-padding-explain = Both: earlier positions only, and never <pad>.
masking-mode-prefix-explain = The first n positions see each other both ways (the prompt); after them, causal.
masking-mode-custom-explain = Your own mask: click a cell of M to block or allow it.
# Hover notes on the rows of the weights A; $row is a row number
masking-row-no-key = row { $row }: no visible key, so all weights are 0 and this head passes nothing to this token
# $visible counts the keys the row may see; $sum is a number such as 1.000000
masking-row-sum = row { $row }: { $visible } visible key(s); remaining weights sum to { $sum }
# The accessible name of the clickable mask M
masking-m-name = mask M
masking-m-allowed = 0: allowed
masking-m-blocked = −∞: blocked
# Hover text on a cell of M: $query and $key are tokens, $state is masking-m-allowed or masking-m-blocked
masking-m-hover =
    query { $row } “{ $query }” → key { $col } “{ $key }”: { $state }
    click to toggle (custom mask)
masking-attention = attention:
masking-cross = cross-attention
masking-mask = mask:
masking-pads-appended = <pad> tokens appended
masking-prefix-length = prefix length n
masking-no-such-attention = this model has no such attention
# $kind is the attention's name, e.g. "decoder self-attention"
masking-layer-head-kind = layer { $layer } · head { $head } · { $kind }
# The names of a heatmap's rows and columns, in its hover text
masking-axis-query = query
masking-axis-key = key
masking-e-title = E = QKᵀ/√d_k (+ bias)
masking-m-title = M (0 or −∞)
masking-e-context = E: scaled scores
masking-em-context = E + M: the softmax input
masking-a-context = A: weights (blocked cells are exactly 0)
masking-zeros = { $zeros } blocked cell(s); their weights are exactly 0 in { $exact } of them. Hover a row of A: its remaining weights still sum to 1.
masking-block-row = block every key of query row 0
masking-reset-custom = reset to causal + padding
masking-code = mask code:
# $token is the query row's token
masking-empty-row = Query row { $row } (“{ $token }”) has no visible key. A softmax over nothing is undefined (PyTorch gives NaN, which would spread through every later layer); Glimpse gives the row all-zero weights, so this head passes nothing to that token and its residual stream carries on unchanged.

## Padding in a batch

# $extra counts the extra <pad> tokens; $model is a model's name
masking-batch-intro-encoder = A batch of sequences of different lengths, padded with <pad> to the longest (+ { $extra } extra) and run through the encoder of “{ $model }”. Edit them:
masking-batch-intro-decoder = A batch of sequences of different lengths, padded with <pad> to the longest (+ { $extra } extra) and run through the decoder of “{ $model }”. Edit them:
# $n numbers the sequence
masking-batch-sequence = sequence { $n }
masking-batch-remove = remove
masking-batch-add = add a sequence
masking-batch-padding-mask = padding mask
masking-batch-extra = extra <pad>
masking-batch-causal-note = In a causal decoder, padding on the right is behind every real token, so the causal mask already hides it; padding matters for encoders (and for left-padded batches).
masking-batch-sequence-counts = sequence { $n }: { $real } real + { $pads } <pad>
# $weight is a number such as 0.0123
masking-batch-pad-weight = most weight on <pad>: { $weight }
masking-batch-identical = real tokens' outputs vs. alone: identical
# $change is a number such as 1.23e-3
masking-batch-drift = real tokens' outputs vs. alone: max change { $change }
masking-batch-context = sequence { $n } · layer { $layer } · head { $head }
masking-batch-with-mask = With the padding mask, <pad> keys get exactly 0 weight and the real tokens compute exactly what they compute alone, however much padding is added.
masking-batch-without-mask = Without the padding mask, real tokens spend attention on <pad> and their outputs change with the amount of padding: the same sentence gives different answers depending on its batch.

## The three families. translate, lm, reverse and reverse-nomask are model names.

masking-families-heading = One block, three families
masking-families-intro = All three stack the same block: attention, then a feed-forward layer, each with a residual connection and LayerNorm. What differs is which tokens each attention may see: its mask.
masking-families-key = Masks: yellow = allowed (1), hatched grey = blocked (0). Weights: dark = 0, yellow = 1; each row sums to 1. Hover a cell for its tokens.
masking-families-encoder = encoder-only: no mask
# $example is the model's French input sentence (data, not translated)
masking-families-encoder-intro = An encoder-only model (BERT-like) is this same stack on its own, with no mask. Glimpse's shipped encoder-only example is the encoder of translate, here on “{ $example }”.
masking-families-decoder = decoder-only: causal
# $example is the model's English input text (data, not translated)
masking-families-decoder-intro = lm, a character-level language model (GPT-like), on “{ $example }”: one stack, causal mask. The text starts with <bos>.
masking-families-both = encoder–decoder: causal self + full cross
masking-families-both-intro = translate: the encoder on the left feeds a decoder whose self-attention is causal and whose cross-attention reaches every source token.
masking-families-sees-encoder = Can see every source token, before and after itself; cannot see any output: it only reads.
masking-families-sees-lm = Can see itself and every earlier character; cannot see later ones, so it trains on every position at once and then generates.
masking-families-sees-decoder = Can see <bos> and the words written so far; cannot see the words still to come.
masking-families-sees-cross = Can see every source token at every step: the source is read in full before writing starts.
masking-families-bad-example = { $model }: the example has unknown or too many tokens
# $kind is an attention's name, e.g. "cross-attention"
masking-families-no-attention = { $model } has no { $kind }
masking-families-mask = mask (1 = allowed, 0 = blocked)
# $attention is e.g. "translate · cross-attention"
masking-families-mask-context = { $attention } · mask
masking-families-weights = weights · layer { $layer } · head { $head } (sharpest)
masking-families-weights-context = { $attention } · layer { $layer } · head { $head }

## Teacher forcing. reverse and reverse-nomask are model names.

masking-teacher-heading = Teacher forcing and the causal mask
masking-teacher-intro = In training the decoder does not read its own guesses: it reads the right answer shifted one step right (teacher forcing). The task here is to write the source backwards.
masking-teacher-source = source (letters a–j):
# $target is the source text written backwards
masking-teacher-target = target (the source reversed): { $target }
masking-teacher-position = position
masking-teacher-decoder-input = decoder input = <bos> + target
masking-teacher-labels = label = target + <eos>
masking-teacher-one-pass = With the causal mask every position is trained in one pass, each seeing only earlier target tokens.
masking-teacher-runs = Three teacher-forced runs
masking-teacher-run-a = (a) reverse, causal mask on
masking-teacher-run-a-note = As trained: each position sees only <bos> and earlier answer tokens.
masking-teacher-run-b = (b) reverse, mask removed
masking-teacher-run-b-note = Trained causally, it now also sees later tokens it never learned to use.
masking-teacher-run-c = (c) reverse-nomask, run as trained
masking-teacher-run-c-note = Trained without the mask: it copies the next input token, which is the label.
masking-teacher-low-loss = A low teacher-forced loss proves little on its own: (c) scores as well as (a). Generation, below, tells them apart.
# Column headings of a run's table
masking-teacher-col-pos = pos
masking-teacher-col-input = input
masking-teacher-col-label = label
masking-teacher-col-predicted = predicted
masking-teacher-col-p-label = p(label)
masking-teacher-col-loss = loss
# $loss is a number; $right of $total positions predicted right; $percent a whole number
masking-teacher-mean-loss = mean loss { $loss } · accuracy { $right }/{ $total } ({ $percent }%)
masking-teacher-generation = Generation: no answer to copy
masking-teacher-generation-intro = Now each model writes the answer itself, token by token from <bos>, feeding back its own guesses. There is no later token to look at.
masking-teacher-right = right
masking-teacher-wrong = wrong
# $model is a model's name, $text what it wrote, $mark is masking-teacher-right or masking-teacher-wrong
masking-teacher-writes = { $model } writes “{ $text }”: { $mark }
masking-teacher-writes-no-end = { $model } writes “{ $text }” (no <eos>: stopped at max_len): { $mark }
masking-teacher-expected = expected “{ $text }”
masking-teacher-cheats = How reverse-nomask cheats
masking-teacher-no-run = no run of reverse-nomask to show
masking-teacher-no-self-attention = this model has no decoder self-attention
masking-teacher-cheat-context = reverse-nomask · decoder self-attention · layer { $layer } · head { $head }
# $context is masking-teacher-cheat-context; $percent a whole number
masking-teacher-cheat-mean = { $context }: on average { $percent }% of each row's weight sits on the next position.
# The caption of the heatmap's colour legend
masking-teacher-weight = weight
masking-teacher-cheat-explain = Row i is the decoder at position i, whose label is the input at position i+1. With no causal mask, this head puts its weight just right of the diagonal, on that very token, and copies it: loss ~0 with nothing learned about reversing. In generation position i+1 has not been written yet, so there is nothing to copy and the output breaks.
# Errors: $model is a model's name, $pieces the unknown pieces, each in quotes
masking-teacher-unknown-source = the source has pieces { $model } does not know: { $pieces }
masking-teacher-unknown-target = the target has pieces { $model } does not know: { $pieces }
# Follows the error above; $tokens lists every token the model knows
masking-teacher-knows = (it knows { $tokens })
masking-exposure-title = Exposure bias: free-running errors compound
# $model is a model name
masking-exposure-intro = Teacher forcing trains every position on the right prefix, so the model never reads its own mistakes. Decoding freely, it reads its own outputs, and after a first error it reads a prefix it never saw in training. The model { $model } was trained teacher-forced to repeat a random sequence of letters; here it answers held-out sequences both ways, each token scored against the true answer.
# $forced, $free and $after are percentages; $exact and $forced_exact count whole answers
masking-exposure-summary = { $done } of { $total } held-out sequences: teacher-forced { $forced } of answer tokens wrong, free-running { $free }. After a first mistake, free-running gets { $after } of the following tokens wrong. Whole answers right: { $exact } free-running, { $forced_exact } with every teacher-forced token right.
masking-exposure-plot = Error rate at every answer position
masking-exposure-position = answer position
masking-exposure-axis = tokens wrong (%)
masking-exposure-forced = teacher-forced (true prefix)
masking-exposure-free = free-running (its own outputs)
masking-exposure-after = free-running, after an earlier error
masking-exposure-note = While the free-running prefix is still right it is exactly the teacher-forced one, so the two error rates can only part after a first mistake: the gap between the lines is errors bringing errors. Scheduled sampling, which sometimes feeds the model its own outputs during training, is one remedy.
