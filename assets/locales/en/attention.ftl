## The Attention lab: the explorer's four views of one trace (one head, all heads, the head
## view, the walkthrough)

attention-view-head = One head
attention-view-grid = All heads
attention-view-lines = Head view
attention-view-walkthrough = Walkthrough
# The selected attention, as a heading. $kind is the attention's kind as the model names it
# ("encoder self-attention", "cross-attention"…).
attention-selection = layer { $layer } · head { $head } · { $kind }
# Export menu entry: this layer's attention as a JSON file.
attention-export-layer-json = layer as JSON
# $entropy, $max, $distance: numbers; $pattern: the head's pattern and its score ("previous
# token 0.93"); $next: the next best patterns with their scores.
attention-head-stats = entropy { $entropy } of at most { $max } bits · mean distance { $distance } · { $pattern } (next: { $next })
attention-no-walkthrough = no walkthrough for this selection

## One head: the heatmap of its weights or of the softmax's input

attention-head-after-softmax = after softmax (weights)
attention-head-before-softmax = before softmax (scaled scores)
attention-head-numbers = numbers in cells
attention-head-zoom = zoom
attention-head-zoom-hover = or Ctrl + scroll over the heatmap; scroll bars pan
# The heatmap legend's name for one value, and the same in the plural.
attention-head-score = score
attention-head-scores = scores
attention-head-weight = weight
attention-head-weights = weights
attention-head-explain-scores = Softmax input: QKᵀ/√d_k (÷τ) plus any positional bias; hatched cells are masked (−∞). Red is positive, blue negative.
attention-head-explain-weights = Attention weights A = softmax(QKᵀ/√d_k): each row is a query token, each column a key token; rows sum to 1.
# One line instead of the sentence on a short screen. $what is attention-head-scores or
# attention-head-weights.
attention-head-short = { $what }: rows are queries, columns keys (hover for more)
# One of the selected query's largest values: $value on key number $key, whose text is $token.
attention-head-readout-key = { $value } on { $key } “{ $token }”
# $query: the query's number; $token: its text; $what: attention-head-scores or
# attention-head-weights; $best: up to four attention-head-readout-key joined by " · ".
attention-head-readout = query { $query } “{ $token }” (outlined; click a row for another): largest { $what } { $best }
# The names of a head heatmap's rows and columns (also read out by screen readers).
attention-axis-query = query
attention-axis-key = key

## The head view: lines from query tokens to key tokens, one colour per head

attention-lines-heads = heads:
# A head's switch; the square is drawn in the head's colour.
attention-lines-head = ■ head { $head }
attention-lines-explain = Each line joins a query (left) to a key (right); its opacity is the attention weight. Hover a token to see only its lines.

## All heads: the heads found on this input, the grid of thumbnails and the table of heads

# A head by its place, as a link, a hover's first line and the heading.
attention-layer-head = layer { $layer } · head { $head }
attention-finder-title = Heads found on this input
attention-finder-explain = For each pattern, the head that shows it most strongly. A score is the mean attention on that place; from 0.50 most of a head's attention goes there, below that the head only leans that way (greyed). Click a head to open it.
# $kind: the attention's kind as the model names it ("decoder self-attention"…).
attention-grid-explain = { $kind }: { $layers } layers × { $heads } heads, and the mean over heads. Each thumbnail is a query × key map (inferno, black 0 to pale yellow 1; hatched grey = masked). Click one to open it.
attention-grid-head = head { $head }
attention-grid-mean = mean
attention-grid-layer = layer { $layer }
# What a screen reader says of a thumbnail (a button).
attention-grid-thumbnail = layer { $layer } head { $head }
# What a screen reader says of the mean's thumbnail (an image).
attention-grid-mean-thumbnail = layer { $layer } mean of heads
attention-grid-mean-hover = layer { $layer }: the mean of its { $heads } heads
attention-grid-mean-caption = mean of heads
# A head's caption when no pattern stands out.
attention-grid-no-pattern = no clear pattern
# $entropy, $max, $distance: numbers.
attention-grid-numbers = entropy { $entropy } of at most { $max } bits · mean distance { $distance }
attention-table-title = What each head does (computed from its weights on this input)
attention-table-layer = layer
attention-table-head = head
attention-table-entropy = entropy (bits)
attention-table-max = of at most
attention-table-distance = mean distance
attention-table-pattern = pattern
attention-table-scores = all scores

## The walkthrough: softmax(QKᵀ/√d_k)V one matrix at a time, then the rest of the block and
## the output layer. Formulas stay as they are; only their words are translated.

attention-walk-back = ◀ Back
attention-walk-next = Next ▶
attention-walk-keys = (← → keys)
attention-walk-query = query:
# $formula: the step's formula ("S = QKᵀ: 5 × 5").
attention-walk-heading = Step { $step } of { $steps }: { $formula }
# The name of a walkthrough matrix's columns (its rows are attention-axis-query or -key).
attention-walk-axis-column = column
# Under a matrix too wide for cells: each row is drawn as a thin strip.
attention-walk-strips = one strip per row, { $columns } columns; hover for exact values
# The selected row of a wide matrix written out: $token is its text, $values its first and
# last numbers ("[0.12, 0.40, …, 1.30]").
attention-walk-row = row { $row } “{ $token }” = { $values }
# After the largest terms of a weighted sum: how many smaller ones were left out.
attention-walk-sum-more = + { $count } more

# The names of the steps whose titles are words (the chips above the step).
attention-walk-title-mask = + mask
attention-walk-title-cross-attn = cross-attn
attention-walk-title-final-norm = final norm
attention-walk-title-memory = memory
attention-walk-title-output = output
attention-walk-title-mlm = MLM transform
attention-walk-title-softmax-vocab = softmax (vocab)

attention-walk-x-explain-cross = The decoder's stream enters as queries; keys and values come from the encoder's output (the memory).
attention-walk-x-explain-pre = The layer's input, one row per token (after LayerNorm).
attention-walk-x-explain-post = The layer's input, one row per token (the residual stream).
# $width: the head's width d_k.
attention-walk-qkv-formula = Q = X W_Qᵀ + b_Q, K = X W_Kᵀ + b_K, V = X W_Vᵀ + b_V: each { $width } wide
attention-walk-qkv-formula-rope = Q = X W_Qᵀ + b_Q, K = X W_Kᵀ + b_K, V = X W_Vᵀ + b_V: each { $width } wide, then Q and K rotated by RoPE
attention-walk-qkv-explain = Head { $head } has its own slice of the projections (d_k = { $width }). Queries ask, keys answer, values are what gets passed on.
attention-walk-score-dot = Each query's dot product with every key: how well they match.
attention-walk-score-additive = Additive (Bahdanau) scoring: a small one-layer network rates each query–key pair.
attention-walk-score-bilinear = Bilinear (Luong "general") scoring: a learned matrix W between query and key.
attention-walk-scale-explain = Dividing by √d_k keeps the scores' spread near 1 whatever the head width, so the softmax is not saturated.
attention-walk-scale-explain-tau = Additive and bilinear scores are not divided by √d_k: their learned weights set their own scale. Only the temperature τ divides them (τ = 1 leaves them unchanged).
attention-walk-panel-bias = positional bias
attention-walk-panel-mask = + mask (−∞ hatched)
# $scaled: the scaled scores' symbol, "S/√d_k" or "S/τ".
attention-walk-mask-formula = L = { $scaled } + bias, with −∞ where the mask forbids
# $why: one of attention-walk-mask-causal, -cross, -encoder.
attention-walk-mask-explain = { $masked } of { $cells } cells are masked ({ $why }): after the softmax their weight is exactly 0.
attention-walk-mask-causal = causal: a token sees only itself and earlier tokens
attention-walk-mask-cross = padding only: every target token may read every source token
attention-walk-mask-encoder = padding only: every token sees every token
attention-walk-softmax-formula = A = softmax(L), row by row: aᵢⱼ = exp(Lᵢⱼ) / Σⱼ' exp(Lᵢⱼ')
attention-walk-softmax-explain = Each row becomes a probability distribution over the keys it may see.
attention-walk-av-explain = Each query's output is the weighted average of the value rows, weighted by its row of A (select a query to see the sum).
attention-walk-concat-explain = All { $heads } heads side by side; head { $head }'s columns are the ones computed above.
attention-walk-wo-explain = The output projection mixes the heads back into the model's width; this is added to the residual stream.
attention-walk-panel-output = output

## The walkthrough after the attention: residual adds, normalisations, the feed-forward layer,
## and what the stack's output becomes

attention-walk-layernorm-explain = Each token is normalised over its own d features: subtract its mean μ, divide by its standard deviation, then scale by γ and shift by β (both learned, one number per feature). Other tokens and other sentences play no part.
attention-walk-rmsnorm-explain = RMSNorm divides each token by the root of its mean square (no centring, no β), then scales by the learned γ.
attention-walk-panel-statistics = statistics
# The feed-forward layer's panels in a gated (Llama) model.
attention-walk-panel-gate = gate x W_gᵀ
attention-walk-panel-up = up x W₁ᵀ
attention-walk-panel-hidden = hidden h
# $act: the non-linearity's name ("SiLU"); $d: the model's width; $ff: the hidden width.
attention-walk-ffn-formula-gated = FFN(x) = ({ $act }(x W_gᵀ) ⊙ x W₁ᵀ) W₂ᵀ: { $d } → d_ff = { $ff } → { $d } (gated)
# $ratio: d_ff / d ("4.0"); $positive: a percentage ("52").
attention-walk-ffn-explain = The feed-forward layer works on each token alone: attention mixed the tokens, this transforms each one. It widens to d_ff = { $ff } ({ $ratio }·d), applies the non-linearity, and narrows back. { $positive }% of the hidden values are positive here.
attention-walk-panel-stream = x (the stream)
attention-walk-residual-pre = The residual connection: the sub-layer's output is added to the stream it read, so the stream carries every earlier layer's contribution on a direct path. Pre-norm: nothing normalises the stream itself.
attention-walk-residual-post = The residual connection: the sub-layer's output is added to its input. Post-norm (the original transformer): the sum is normalised next.
attention-walk-residual-ffn = The second residual connection: the FFN's output joins the stream.
# $norm: "LayerNorm" or "RMSNorm". What a normalisation step normalises, before its formula.
attention-walk-norm-after-attention = { $norm } after the attention
attention-walk-norm-before-ffn = { $norm } before the FFN
attention-walk-norm-after-ffn = { $norm } after the FFN: the block's output
attention-walk-norm-final = the final { $norm } after the last layer
attention-walk-cross-formula-pre = x + CrossAttn(LN(x), memory)
attention-walk-cross-formula-post = LN(x + CrossAttn(x, memory))
attention-walk-cross-explain = Next the decoder's cross-attention reads the encoder's output and adds what it found (pick cross-attention above to walk it step by step).
attention-walk-panel-cross-output = cross-attention output
attention-walk-panel-stream-after = stream after
# What the later layers do, at the start of a sentence ($later in the messages below).
attention-walk-later-last = This is the last layer
attention-walk-later-one = Layer { $layer } runs the same way on this output
attention-walk-later-many = Layers { $first }–{ $last } run the same way, each on the one before
# $explain: attention-walk-layernorm-explain or -rmsnorm-explain.
attention-walk-final-norm-explain = { $later }; a pre-norm stack never normalises its stream inside the blocks, so it ends with one last { $norm }. { $explain }
attention-walk-memory-explain = { $later }. The encoder's output is the memory: every decoder layer's cross-attention reads its keys and values from these rows. There is no vocabulary layer on this side.
# $model: the model's name.
attention-walk-encoder-output-explain = { $later }. { $model } has no output layer (a sentence encoder keeps the last layer's rows, averaged into one sentence vector): these rows are its result.
attention-walk-stack-output-formula = the stack's output: { $rows } × { $cols }
attention-walk-mlm-what = the masked-LM head's transform LN(act(h Wᵀ + b))
attention-walk-mlm-explain = BERT's masked-LM head first passes each row through one more dense layer and LayerNorm. { $explain }
attention-walk-panel-vocab-tied = W_vocab = E (embedding rows)
attention-walk-panel-vocab = W_vocab rows
# $vocab: the vocabulary's size; $d: the model's width.
attention-walk-tied = The output matrix is tied: it is the token embedding E itself ({ $vocab } × { $d }), so a token's logit is the dot product of h with the vector that embedded it.
attention-walk-not-tied = This model's output matrix is its own ({ $vocab } × { $d }), not tied to the embedding.
# $bias: " + b" or nothing; $shown: how many vocabulary columns are drawn.
attention-walk-logits-formula = logits = h W_vocabᵀ{ $bias }: { $rows } × { $vocab } (the { $shown } columns shown are the likeliest tokens)
# $tying: attention-walk-tied or attention-walk-not-tied.
attention-walk-logits-explain = { $later }. Each row of the stack's output h is scored against every vocabulary entry. { $tying }
attention-walk-reading-next = Row t is the model's guess for the token after position t
attention-walk-reading-blanks = Row t is the model's guess for the token at position t (the blanks are what it is for)
attention-walk-vocab-formula = p = softmax(logits) over all { $vocab } tokens, row by row
# $reading: attention-walk-reading-next or -blanks; $best: "token → likeliest next token" pairs.
attention-walk-vocab-explain = { $reading }. The most likely: { $best }.
