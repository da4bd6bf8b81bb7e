## The Cost lab: what self-attention, recurrence and convolution cost per layer

## Presets and sliders

cost-notes-default = notes: L = 100, D = 512, K = 3
cost-notes-long = notes: L = 10⁴
# $name is the model's name
cost-picked-model = the picked model ({ $name })
cost-picked-model-hover = its width, heads, layers and feed-forward width
cost-slider-length = L tokens
cost-slider-width = D width
cost-slider-kernel = K kernel
cost-slider-heads = h heads
cost-slider-layers = N layers
cost-slider-batch = B batch
cost-export-json = figures as JSON
cost-intro = A layer maps L vectors of width D to L vectors. Self-attention compares every pair of tokens (L²·D); a recurrent layer runs a D × D product at each of L steps, one after another (L·D²); a convolution of width K does K of them per token (K·L·D²). The table and the plot compare these terms, which mix the tokens; an attention layer also runs its projections Q, K, V, O (4·L·D²), counted for one block below.

## The three layers side by side

cost-header-layer = layer
cost-header-work = mixing work per layer
cost-header-steps = steps in order
cost-header-path = first → last token
cost-layer-attention = self-attention
cost-layer-recurrent = recurrent (RNN)
cost-layer-convolution = convolution
# How far a signal travels from the first token to the last
cost-path-attention = 1: every token reaches every other in one layer
# $steps: recurrent steps from the first token to the last
cost-path-recurrent = { $steps }: one step per token (O(L))
cost-path-never = never: a kernel of width 1 mixes no tokens
# $layers: stacked convolutions needed; $dilated: the same with dilated convolutions
cost-path-convolution = { $layers } layers (O(L/K)); { $dilated } with dilations (O(log_K L))
# $l, $d: the sizes; $attention, $recurrent: the multiply-adds of each layer, already written out
cost-verdict-less = L = { $l } < D = { $d }: self-attention's pairwise term L²·D is smaller than the recurrence's L·D² ({ $attention } against { $recurrent }), and all of it runs at once; the projections (4·L·D²) come on top
cost-verdict-equal = L = D = { $l }: L²·D = L·D², the crossover: beyond it the pairwise term is the larger
cost-verdict-greater = L = { $l } > D = { $d }: the L² term dominates; self-attention's pairwise term now exceeds the recurrence's ({ $attention } against { $recurrent }), though it still runs in one parallel step

## The plot of work against length

cost-plot-title = log₁₀ multiply-adds per layer for mixing
cost-plot-mark = log₁₀ L now
cost-plot-y = log₁₀ multiply-adds per layer
cost-plot-now = L now
cost-series-attention = self-attention L²·D
cost-series-recurrent = recurrent L·D²
cost-series-convolution = convolution K·L·D²

## One block: work, memory, parameters

cost-block-heading = One block at this length (multiply-adds)
cost-block-projections = projections Q, K, V, O
cost-block-scores = scores QKᵀ
cost-block-weighted-sum = weighted sum AV
cost-block-ffn = feed-forward
# $attention, $square, $ffn: counts already written out with grouped digits
cost-block-notes = The notes' example (N = 6, D = 512, L = 100) gives attention 2·N·L²·D = { $attention } and the feed-forward layer "314M". That figure is 2·N·L·D² = { $square }, as if d_ff = D; with d_ff = 2048 it is 2·N·L·D·d_ff = { $ffn }. Either way the feed-forward layer outweighs attention's mixing at sentence length.
cost-memory-heading = Memory (numbers held; 4 bytes each in f32)
cost-memory-rnn = RNN hidden states
cost-memory-attention = self-attention: weights and representations
cost-memory-all = every attention matrix of a pass
cost-memory-one = one attention matrix (one head, one layer)
# $heads: the heads slider; $d, $dk: D and D/h; $params, $scores, $weights, $one: counts with grouped digits
cost-heads-same-cost = Heads cost nothing extra: with h = { $heads } heads of d_k = D/h = { $dk } each, the projections stay 4·D² = { $params } parameters and the scores L²·D = { $scores } multiply-adds (h heads × L² pairs × D/h dimensions), as with one head of { $d }. Only the attention weights multiply by h: { $weights } numbers for the pass against { $one } with one head.
cost-binary-units = Sizes in decimal units (1 MB = 10⁶ bytes) and, after the dot, binary ones (1 MiB = 2²⁰ bytes), which the notes use: one matrix at L = 1,024 is 4 MiB.
cost-params-heading = Parameters of one block
cost-params-attention = attention W_Q, W_K, W_V, W_O
cost-params-biases = their biases
cost-params-ffn = feed-forward W₁, W₂
cost-params-norms = two LayerNorms (γ, β)
cost-params-block = one block
# $blocks: number of blocks; $total: parameters, grouped digits; $share: a whole percentage
cost-params-total = N = { $blocks } blocks: { $total } parameters; the feed-forward layer holds { $share } % of each block.

## The picked model's parameters, counted

cost-model-none = Pick a model in the top bar to count its parameters.
# $name: the model; $total: its parameters, grouped digits
cost-model-heading = { $name }: { $total } parameters, counted tensor by tensor
cost-model-counted = Counted from the tensors the forward pass reads: tensors a checkpoint's file holds but the pass never uses (BERT's pooler) are left out, so the file's own count can be larger.
cost-model-sizes = D = { $d }, h = { $heads } ({ $kv } key/value), d_head = { $d_head }, d_ff = { $d_ff }, { $layers } layers
cost-header-part = part
cost-header-counted = counted
cost-header-formula = formula
# The formula's value equals (or differs from) the count
cost-model-same = = counted
cost-model-differs = ≠ counted
cost-part-embeddings = embeddings
cost-part-attention-weights = attention weights
cost-part-attention-biases = attention biases
cost-part-ffn-weights = feed-forward weights
cost-part-ffn-biases = feed-forward biases
cost-part-norms = norms (γ, β)
cost-part-output = output layer
# $layers: attention layers in the model
cost-formula-attention = { $layers } attention layers × 4·D²
# $blocks: blocks in the model
cost-formula-ffn = { $blocks } blocks × 2·D·d_ff
cost-formula-ffn-gated = { $blocks } blocks × 3·D·d_ff (gated)

## A whole encoder–decoder: the original Transformer and its training memory

cost-original-heading = The original Transformer (2017), counted by this tab's formulas
# $name: base or big; $d, $ff, $heads: its sizes
cost-original-model = { $name }: D = { $d }, d_ff = { $ff }, h = { $heads }
cost-original-encoder = encoder, N = 6 blocks
cost-original-decoder = decoder, N = 6 blocks
cost-original-total = total
cost-original-reported = reported in the paper
# $vocab: the shared vocabulary; $base, $big: the two totals; $embeddings, $encoder, $decoder: base's parts, all in millions
cost-original-notes = A decoder block is an encoder block plus cross-attention (4·D² + 4·D) and a third norm (2·D). With one embedding matrix of { $vocab } byte-pair tokens, shared by the encoder's input, the decoder's input and the output layer, and sinusoidal positions (which hold no parameters), the formulas give { $base } for base and { $big } for big, against the 65 M and 213 M the paper reports (it does not say how it counted). The notes split base into embeddings 32 M, encoder 31 M and decoder 37 M: those parts add up to 100 M, not 65 M. By the formulas they are { $embeddings }, { $encoder } and { $decoder }.
# $l, $batch, $layers, $heads: the sliders
cost-training-heading = One training step's memory at L = { $l }, B = { $batch }, N = { $layers }, h = { $heads }
cost-training-attention = attention matrices, one stack
cost-training-attention-all = every attention layer (encoder, decoder, cross)
cost-training-activations = activations
cost-training-parameters = parameters
cost-training-gradients = gradients
cost-training-optimizer = Adam's two moments
cost-training-here = at these sizes
cost-training-notes = the notes' table (L = 512, B = 32)
# $params: the parameters counted, in millions
cost-training-why = P = { $params } parameters: the encoder–decoder above, at this D, d_ff and N. At the notes' sizes (L = 512, B = 32, base) their table and their formulas agree on the parameters, the gradients and Adam's moments (0.25, 0.25 and 0.50 GB), and disagree on two rows. Attention: B·N·h·L²·4 bytes is 1.61 GB, the table says 4.0 GB, about 2.5 times more. The formula counts one stack of N layers; an encoder–decoder keeps one matrix per head in 3N attention layers, 4.83 GB (the second row). Activations: B·N·L·D·4 bytes is 0.20 GB, the table says 1.2 GB, six times more. A layer keeps several L × D tensors for the backward pass (queries, keys, values, the attention's output, and the feed-forward layer's hidden one, four times wider), not one. Their total, 6.2 GB, is the sum of their own rows.
