## The Positions lab: every positional-encoding scheme, drawn with the functions the model runs

## Section chips (the sections of the lab)

positions-section-sinusoidal = Sinusoidal
positions-section-naive = Naive (t, t/N)
positions-section-learned = Learned table
positions-section-bias = ALiBi & relative
positions-section-rope = RoPE
positions-section-permutation = Why at all: reorder
positions-section-extrapolation = Longer than trained
positions-section-own = The picked model
positions-section-depth = Through depth

## Words several sections share

positions-slider-base = base
positions-slider-n = positions N
# $head is a head number
positions-head = head { $head }
# a slider and an axis: the position t
positions-position-t = position t
# an axis: the offset o between two positions
positions-offset-o = offset o
positions-axis-position = position
positions-axis-dimension = dimension
positions-axis-position-i = position i
positions-axis-position-j = position j
# a slider: which attention head
positions-slider-head = head
# a slider: which layer
positions-slider-layer = layer
# a heatmap axis: the query tokens
positions-axis-query = query
# a heatmap axis: the key tokens
positions-axis-key = key

## Sinusoidal: the matrix, its bands and wavelengths, the binary counter, the rotation

positions-sin-first-positions = The first positions, written out
positions-sin-heading = Sinusoidal positional encoding
positions-sin-slider-d = d (model width)
# $d is the model width, $bands = d/2; $shortest, $longest and $limit are numbers already formatted
positions-sin-bands = d = { $d }: { $bands } bands (dimension pairs), wavelengths from 2π = { $shortest } to { $longest } positions (2π·base = { $limit } is the limit they approach)
positions-sin-trained = On a trained model
# “reverse”, translate, copy and sort are model names; “abcdefgh” is the input
positions-sin-trained-about = “reverse” (and translate, copy, sort) add these encodings with d = { $d } and base 10000 to their token embeddings. Its encoder self-attention, layer 0, on “abcdefgh”: with positions, heads can attend by place (to neighbours, to the start), not only by letter.
# names one heatmap for screen readers; reverse is the model name
positions-sin-trained-context = reverse · encoder layer 0 · head { $head }
positions-sin-band-title = One band against position
# a slider and an axis: the band number k
positions-sin-band-k = band k
# $omega and $wavelength are numbers already formatted
positions-sin-band-about = band { $band } (dimensions { $dim_sin }, { $dim_cos }): ω_k = { $omega } rad per position, wavelength { $wavelength } positions
positions-sin-band-note = Dots: the values the model adds at whole positions. Lines: the underlying sine and cosine. The first bands wiggle fast; the last barely move across N positions.
positions-sin-band-plot = band { $band }: sine and cosine
positions-sin-axis-pe-value = PE value
positions-sin-circle-title = A band is a point on the unit circle
# a slider: the position whose point is drawn on the circle
positions-sin-circle-position = position t on the circle
positions-sin-circle-notes-toggle = the notes' angles π/6 and 5π/6
# $turned is θ reduced to one turn; $turns is θ / 2π
positions-sin-circle-angle = θ = t·ω_k = { $t } × { $omega } = { $theta } rad = { $turns } turns, { $turned } rad into the current turn
positions-sin-circle-point = b_t for band { $band } = (sin θ, cos θ) = ({ $sin }, { $cos }): the bright point
positions-sin-circle-mirror = The angle π − θ (the hollow point, { $mirror } rad) has the same sine, { $sin }, and the opposite cosine, { $cos }. Given the sine alone, both angles are possible; the cosine settles which.
# $by_sine and $by_point are lists of positions, or the word for none
positions-sin-circle-confused = Among positions 0 … { $last }, within { $tolerance } of position { $t }: by the sine alone, { $by_sine }; by the point (sin, cos), { $by_point }. A point match is a whole number of turns away (this band's wavelength is { $wavelength } positions); the other bands tell those apart.
positions-sin-circle-none = none
positions-sin-circle-note = Drawn with cos across and sin up, so θ is measured from the right, counter-clockwise. Small dots: every position 0 … N−1 of this band. The dashed line joins the two angles with the same sine.
# the notes' example; $cos_a and $cos_b carry their signs
positions-sin-circle-notes = The notes' example: sin(π/6) = { $sin_a } and sin(5π/6) = { $sin_b }, the same; cos(π/6) = { $cos_a } and cos(5π/6) = { $cos_b } differ in sign, so the two points are on opposite sides.
# names the circle drawing for screen readers
positions-sin-circle-name = Unit circle of band { $band }: position { $t } at (sin, cos) = ({ $sin }, { $cos }), its mirror with the same sine, and every other position as a dot
positions-sin-wavelength-title = Wavelength of every band
positions-sin-wavelength-note = A geometric ladder: each band's wavelength is base^(2/d) times the previous one, from 2π up towards 2π·base. Bands above the N line never finish one cycle within the N positions drawn.
positions-sin-wavelength-plot = log₁₀ wavelength of every band
positions-sin-log-wavelength = log₁₀ wavelength
positions-sin-chosen-band = chosen band
positions-sin-axis-wavelength = wavelength in positions (log scale)
positions-sin-n-positions = N positions
positions-sin-wavelength = wavelength
positions-sin-bands-series = bands
positions-sin-rotation-title = Moving k positions is a rotation
positions-sin-shift-k = shift k
# $target = $t + $shift
positions-sin-rotation-table = PE({ $target }) beside R({ $shift })·PE({ $t }), band by band
# a table column: the band number
positions-sin-band = band
# followed by two lines of formulas
positions-sin-angle-addition = The angle-addition formulas, with θ = k·ω for one band:
# ends with a comma: the rotation block follows below
positions-sin-rotation-block-about = so each (sin, cos) pair is turned by the block [[cos θ, sin θ], [−sin θ, cos θ]]. For band { $band }: θ = { $shift }·{ $omega } = { $theta } rad,
positions-sin-rotation-block = R({ $shift }) block { $band } =
# $diff is a number already formatted, such as 2.4e-7
positions-sin-rotation-check = max |PE({ $target }) − R({ $shift })·PE({ $t })| over all { $d } dimensions = { $diff }
positions-sin-rotation-note = R(k) is block-diagonal and depends on the shift k alone, never on t: one fixed linear map moves every position k steps on, so a head can learn "look k tokens back" once for the whole input.
positions-sin-matrix-title = PE: { $n } positions × { $d } dimensions
positions-sin-matrix-note = Left columns (fast bands) change from row to row; right columns (slow bands) stay near sin = 0, cos = 1.
# names the heatmap for screen readers
positions-sin-matrix-context = sinusoidal PE
positions-sin-counter-title = The binary-counter analogy
positions-sin-counter-period = period
positions-sin-counter-bits = Count in binary, bits from low to high. The low bit b₀ flips at every step, like the first bands; each higher bit flips half as often, and the high bits flip slowest, like the last bands.
positions-sin-counter-smooth = Together the bits give every position a unique pattern. Sinusoids are the smooth version: instead of square waves with periods 2, 4, 8, 16 they use sine and cosine waves whose wavelengths grow geometrically, and the values are continuous, so nearby positions get nearby vectors.
positions-sin-similarity-title = Similarity p_i·p_j of all { $n } positions
positions-sin-similarity-note = The diagonal is d/2 = { $half } (each band is a unit vector). Every diagonal stripe is constant: the dot product depends only on the distance i − j.
# names the heatmap for screen readers
positions-sin-similarity-context = PE similarity
positions-sin-offset-title = p_t·p_{"{"}t+o{"}"} against the offset o
positions-sin-offset-note = Three starting positions t, one curve: they lie on top of each other and on the dashed closed form, because each band contributes cos(ω_k·o) whatever t is.
# $gap is a number already formatted, such as 3.1e-6
positions-sin-offset-gap = largest gap between the curves and Σ_k cos(ω_k·o): { $gap }

## Naive: the raw index t and the normalised index t/(N−1)

positions-naive-heading = Naive positions: the index itself, or the index scaled to [0, 1]
positions-naive-about = Two obvious ways to tell the model where a token is, by adding one number to its embedding. Both break, in opposite ways.
positions-naive-raw-title = Raw index: p(t) = t
positions-naive-input-length = input length
# $value and $ratio are numbers already formatted
positions-naive-raw-last = At the last position t = { $last } the raw value is { $value }: about { $ratio }× a typical token-embedding value (~±1).
positions-naive-raw-note = It grows without bound: for long inputs it dwarfs the token embeddings it is added to, drowning out what the token is, and positions beyond the longest training input take values the model has never seen.
# a plot series: the raw index
positions-naive-raw-t = raw t
positions-naive-raw-plot = raw index as the position value
positions-naive-raw-plot-note = token embeddings lie within ±1
positions-naive-position-value = position value
positions-naive-embedding-range = token embeddings ~ ±1
positions-naive-normalised-title = Normalised index: p(t) = t/(N−1)
positions-naive-normalised-about = Always between 0 and 1, whatever the length: the first token is 0, the last is 1.
positions-naive-normalised-note = But the slope depends on N: position 3 is 0.75 in a 5-token input and 0.06 in a 51-token one. The model cannot read off where a token is without knowing N.
positions-naive-normalised-plot = normalised index t/(N−1)
positions-naive-step-title = What one step means: the rubber band
positions-naive-input-length-n = input length N
# completes positions-naive-step
positions-naive-half-at = 0.5 is position { $position }
# completes positions-naive-step
positions-naive-half-between = 0.5 falls between positions { $before } and { $after }
# $gaps = N − 1; $step is a number already formatted; $half is positions-naive-half-at or positions-naive-half-between
positions-naive-step = N = { $n }: one step = 1/{ $gaps } = { $step }; { $half }.
positions-naive-step-note = The same value 0.5 is position 2 of 5 but position 25 of 51, and the distance between neighbours shrinks as N grows: a fixed gap such as "the previous token" has no fixed size.
positions-naive-col-step = one step 1/(N−1)
positions-naive-col-half = position with value 0.5
positions-naive-col-value = value of position 2
# a table cell: no position has the value 0.5
positions-naive-none = none
positions-naive-band-about = Every input stretched over the same [0, 1]; dots are its positions.
positions-naive-band-plot = each input stretched over [0, 1]
positions-naive-value-half = value 0.5

## Learned table: the trained rows, their similarities, and past the end of the table

positions-learned-no-table = this model has no learned position table
positions-learned-past-the-table = position { $position }: the table has { $rows } rows (positions 0–{ $last }), so there is no vector for it; the model refuses inputs longer than { $rows } tokens
# $model is a model name; <bos> and <eos> are token names
positions-learned-about = “{ $model }” learned one vector per position: a table of { $rows } rows × { $dims } dimensions, added to the token embeddings. It was trained on inputs of at most { $letters } letters: the encoder reads them at positions 0–{ $encoder_last }, the decoder reads <bos> and them at 0–{ $decoder_last } (<eos> is only ever predicted, never read). So only rows 0–{ $decoder_last } ever received a gradient; the rest keep their random initial values, shrunk a little by weight decay.
positions-learned-table-title = the table: position × dimension
# names the heatmap for screen readers
positions-learned-table-context = learned position table
# the colour legend of the table
positions-learned-value = value
positions-learned-similarity-title = similarity pᵢ·pⱼ
# names the heatmap for screen readers
positions-learned-similarity-context = similarity of learned position vectors
# a row of the table
positions-learned-trained = trained
# a row of the table
positions-learned-untrained = never trained: still random
positions-learned-run-on = run it on:
positions-learned-fits = { $tokens } source tokens: fine (the table has { $rows } rows; longer text is cut at the limit with a notice in the explorer).
# $error is the model’s own message
positions-learned-refuses = the model refuses: { $error }

## ALiBi and learned relative biases, added to the scores

# a chip beside “ALiBi”
positions-bias-relative = learned relative bias
# $slope is a number already formatted
positions-bias-slope = head { $head }: { $slope }
# $slopes is a list of positions-bias-slope, joined by commas
positions-bias-alibi-about = ALiBi adds −m·|i − j| to every score: no position vectors at all, just a penalty growing with distance, steeper for some heads than others. Slopes m = 2^(−8(h+1)/H) for H = { $heads }: { $slopes }.
positions-bias-relative-about = A learned relative bias adds b[h, clip(j − i, −K, K)] to every score: one trained number per head and offset (K = 8 here), the same wherever the pair sits.
# a slider: how many positions the bias matrix shows
positions-bias-positions = positions
positions-bias-query-position = query position
positions-bias-key-position = key position
# a heatmap axis: one row per head
positions-bias-head-axis = head
positions-bias-offset-axis = offset j − i
# names the heatmap for screen readers
positions-bias-context = positional bias
# names the heatmap for screen readers
positions-bias-table-context = relative bias table
# a colour legend
positions-bias-legend = bias
positions-bias-matrix-title = bias of head { $head }, position i (query) × j (key)
positions-bias-table-title = layer { $layer }'s learned table: head × offset (−K … K)
# $model is a model name; a text field follows
positions-bias-run-on = “{ $model }” (encoder self-attention) on:
positions-bias-scores = scores QKᵀ/√d_k
positions-bias-plus-bias = + bias
positions-bias-softmax-input = = softmax input
positions-bias-weights = weights

## The picked model: its own positional scheme, read from its weights and config

# $error says why the model is not there
positions-own-no-model = no model to read: { $error }
# $model is a model name; $scheme is the scheme’s name as the model code writes it (sinusoidal, learned, RoPE, ALiBi, …)
positions-own-heading = { $model }: { $scheme } positions
positions-own-about = The model picked in the top bar (a built-in, or a checkpoint opened with `glimpse --model`): what its own positional scheme looks like, read from its weights and config.
# Sinusoidal is the name of the section positions-section-sinusoidal
positions-own-sinusoidal = Fixed sinusoids with base { $base } and d = { $d }: the Sinusoidal section draws exactly these.
# names the section positions-section-bias
positions-own-bias = A bias added to the attention scores by distance: the ALiBi & relative section draws it.
# names the section positions-section-permutation
positions-own-none = No positional information: the model sees its input as a set (see Why at all: reorder).
positions-own-learned = A learned table of { $rows } rows (one per position) of width { $width }. Each cell below is the cosine similarity of two rows: trained tables put nearby positions close together, so a band forms along the diagonal.
positions-own-rows-compared = rows compared
# names the heatmap for screen readers
positions-own-cosine-context = cosine of the two rows
# a colour legend
positions-own-cosine = cosine
# completes positions-own-rope
positions-own-interleaved = interleaved pairs (x₀, x₁), (x₂, x₃), …
# completes positions-own-rope
positions-own-rotate-half = rotate-half pairs (x_p, x_{"{"}p + d/2{"}"}), as Hugging Face's Llama code writes it
# completes positions-own-rope
positions-own-no-scaling = no scaling
# completes positions-own-rope; $factor is a number
positions-own-linear-scaling = linear scaling: every θ ÷ { $factor }
# completes positions-own-rope; $factor is a number
positions-own-llama3-scaling = Llama 3 scaling: long wavelengths stretched ×{ $factor }, short ones kept, a blend between
# $pairing is positions-own-interleaved or positions-own-rotate-half; $scaling is one of the three scaling messages
positions-own-rope = Queries and keys are rotated by position: pair p turns by θ_p = base^(−2p/d_head) radians per token, with base { $base } and d_head = { $d_head }; { $pairing }; { $scaling }. The score of a query and a key then depends on their offset only.
positions-own-col-pair = pair p
positions-own-col-theta = θ_p (radians per token)
positions-own-col-wavelength = wavelength 2π/θ_p (tokens)

## Longer than trained: five schemes on inputs longer than their training

# a plot series: the model with this positional scheme
positions-extrap-sinusoidal = sinusoidal
# a plot series: the model with this positional scheme (a learned position table)
positions-extrap-learned = learned
# a plot series: the model with this positional scheme
positions-extrap-rope = RoPE
# a plot series: the model with this positional scheme
positions-extrap-alibi = ALiBi
# a plot series: the model with this positional scheme (a learned relative bias)
positions-extrap-relative = relative
positions-extrap-about = Five models trained by Glimpse on the reverse task with 3–{ $longest } letters, each with a different positional scheme (same size, data and 3000 steps), then asked to reverse longer inputs. Exact-match accuracy on { $examples } random inputs per length ({ $measured } of { $all } measured):
positions-extrap-measuring = measuring: { $measured } of { $all }
positions-extrap-longest = longest training input
positions-extrap-plot = exact match against input length
positions-extrap-letters = letters
positions-extrap-axis-length = input length (letters)
positions-extrap-axis-exact = exact match
positions-extrap-conclusion = Learned and sinusoidal positions fail as soon as the input is longer than anything seen (the learned table's rows past 8 were never trained); RoPE and the relative bias, which encode offsets, carry a little further. ALiBi only tells a head how far back a key is, which a reversal cannot use: it struggles even on the training lengths (its strength is language modelling, where recency is what matters).

## Why at all: reorder the input, with positions off and on

# $reordered and $sentence are the two sentences the reader typed
positions-perm-not-a-reordering = “{ $reordered }” is not a reordering of the word pieces of “{ $sentence }”
positions-perm-no-encoder = this model has no encoder
positions-perm-encoder = encoder:
# $model is a model name
positions-perm-toy = { $model } (toy, letters)
# $model is a model name
positions-perm-real = { $model } (real, English)
# $model is a model name
positions-perm-toy-about = Self-attention treats its input as a set: shuffle the tokens and, without positional encodings, every token's output is the same as before, just in its new place. “{ $model }”'s encoder, run with its sinusoidal encodings off and on:
# labels a text field
positions-perm-input = input
positions-perm-shuffle = shuffle again
# $model is a model name; the model reads English, so the sentences stay English
positions-perm-real-about = Type a sentence and the same words in another order. “{ $model }”'s encoder runs both, with its learned position embeddings off and on; its sentence vector is the mean of its outputs.
# labels a text field
positions-perm-sentence = sentence
# labels a text field: the sentence with its words in another order
positions-perm-reordered = reordered
# $off and $on are numbers already formatted
positions-perm-cosines = sentence vectors, cosine similarity: { $off } with positions off, { $on } with them on
# $order is a list of numbers
positions-perm-order = reordered (original positions): { $order }
positions-perm-col-row = reordered row
positions-perm-col-token = token
positions-perm-col-from = from position
positions-perm-col-change-off = change, positions off
positions-perm-col-change-on = change, positions on
positions-perm-conclusion = Positions off: each row is its original row, moved (changes at rounding level), and the sentence vector is the same. Positions on: the same token at a new position computes something else.
positions-perm-dimensions-drawn = dimensions 0–{ $last } of { $all } drawn; the table above compares all of them
# positions off, the original order
positions-perm-off-original = off: original
# positions off, the reordered input
positions-perm-off-reordered = off: reordered
# positions on, the original order
positions-perm-on-original = on: original
# positions on, the reordered input
positions-perm-on-reordered = on: reordered
# $run is one of the four “off/on” messages above
positions-perm-output = encoder output, { $run }

## RoPE: a query and a key on the circle, the score against the offset, the angles, your own vectors, a trained model

positions-rope-heading = RoPE: rotary position embedding
positions-rope-about = RoPE adds nothing to the embeddings. Inside every attention layer it turns each pair (2p, 2p+1) of a query or key by the angle θ = i · base^(−2p/d_head) of its position i. Rotating both q and k changes their dot product only by the difference of their angles, so scores depend on the offset j − i alone.
positions-rope-circle-title = 1. A query and a key on the circle
# names the editor of the vector q
positions-rope-query-q = query q
# names the editor of the vector k
positions-rope-key-k = key k
# $vector is positions-rope-query-q or positions-rope-key-k; read by screen readers
positions-rope-first-component = { $vector }, first component
# $vector is positions-rope-query-q or positions-rope-key-k; read by screen readers
positions-rope-second-component = { $vector }, second component
positions-rope-head-width = head width d_head
positions-rope-pair-p = pair p
positions-rope-query-position-i = query position i
positions-rope-key-position-j = key position j
positions-rope-animate = animate: i and j step together
# $omega and $turn are numbers already formatted
positions-rope-pair-speed = Pair { $pair } turns by ω = base^(−2p/d_head) = { $omega } rad per position (a full turn every { $turn } positions).
# a line in a monospace font; the numbers are already formatted
positions-rope-angles-now = θᵢ = { $theta_i } rad   θⱼ = { $theta_j } rad   angle from qᵢ to kⱼ: φ = { $phi } rad ({ $degrees }°)
# monospace, aligned with positions-rope-score-by-offset on the next line: pad with spaces so both “=” line up
positions-rope-score-by-positions = score qᵢᵀ kⱼ (both rotated)           = { $score }
# monospace, aligned with positions-rope-score-by-positions; $offset is padded to 3 characters
positions-rope-score-by-offset = qᵀ R(j−i) k (offset j − i = { $offset } only) = { $score }
positions-rope-agree = They agree: R(θ_i)ᵀ R(θ_j) = R(θ_j − θ_i), and θ_j − θ_i depends on j − i only. Animate: both arrows spin, φ and the score stay put.
# $difference is a number already formatted
positions-rope-differ = They differ by { $difference }: f32 rounding at large angles.
# the drawing’s name for screen readers
positions-rope-circle-name = rotated query and key
positions-rope-offset-title = 2. The score depends only on the offset
# $sign is + or −
positions-rope-offset-about = Left: q at i against k at j = i { $sign } { $offset } for every i (the offset fixed): a flat line. Right: the offset o = j − i varies: the score is |q||k| cos φ, and φ turns with o.
# a plot axis
positions-rope-score = score
positions-rope-chosen-i = chosen i
positions-rope-fixed-offset-plot = score at fixed offset { $offset }
positions-rope-axis-query-position = query position i (key at i + o)
positions-rope-chosen-o = chosen o
positions-rope-offset-plot = score against the offset
positions-rope-score-at-offset = score at offset o
positions-rope-axis-offset = offset o = j − i
positions-rope-angles-title = 3. The angles of every pair and position
positions-rope-angle-theta = angle θ
positions-rope-angles-about = The angles θ = i·ω_p for positions i = 0…{ $last } of a head { $d_head } wide (base { $base }), one row per pair p. Pair 0 turns 1 rad per position and wraps every 6.3 positions; the last pairs barely move, so they can tell far-apart positions apart.
# a heatmap row
positions-rope-pair = pair { $pair }
# a heatmap axis
positions-rope-pair-axis = pair
# names the heatmap for screen readers
positions-rope-angles-context = RoPE angles
positions-rope-table-title = 4. Rotate your own vectors
positions-rope-table-about = Type a vector per token and its position. Each pair (x0, x1), (x2, x3), … turns by its own angle; the lengths stay the same.
# a button: one more row
positions-rope-add-token = + token
# a button: one row less
positions-rope-remove-token = − token
# a button: two more columns
positions-rope-add-pair = + pair
# a button: two columns less
positions-rope-remove-pair = − pair
# a button; “the dog slept” is the English example sentence of the course notes: keep it
positions-rope-notes-example = the notes' “the dog slept”
positions-rope-notes-example-hover = their embeddings at positions 1, 2, 3 (the notes count from 1)
positions-rope-input-x = input x
# a table row
positions-rope-token = token { $token }
# read by screen readers
positions-rope-token-position = position of token { $token }
# read by screen readers: component x0, x1, … of a token
positions-rope-token-component = token { $token } x{ $component }
# position::rope_rotate is a function name
positions-rope-rotated = rotated: position::rope_rotate
# a command follows
positions-rope-cli = Check it on the command line: save the rows as rows.json and run
# "rotated" is a name in the command’s output: keep it
positions-rope-cli-note = The command prints the same numbers under "rotated".
positions-rope-error-no-rows = there are no rows
positions-rope-error-empty = the rows are empty
positions-rope-error-ragged = row { $row } has { $numbers } numbers but row 0 has { $width }: every row needs the same width
positions-rope-error-odd = the rows have { $width } numbers; RoPE rotates pairs, so the width must be even
positions-rope-error-non-finite = the rows contain a non-finite number
positions-rope-error-count = { $rows } rows but { $positions } positions: each row needs one position
positions-rope-error-base = base { $base } must be a number greater than 1
positions-rope-model-title = 5. A model trained with RoPE
positions-rope-model-error = could not load `{ $model }`: { $error }
# completes positions-rope-model-about
positions-rope-model-rope = rotates q and k with RoPE, base { $base }
# completes positions-rope-model-about; $scheme is the scheme’s name as the model code writes it
positions-rope-model-other = uses { $scheme } positions
# $positions is positions-rope-model-rope or positions-rope-model-other
positions-rope-model-about = The built-in `{ $model }` model (decoder-only, { $layers } layers × { $heads } heads) { $positions }, heads { $width } wide ({ $pairs } pairs). It learned a previous-token head in layer 0 (offset −1, wherever the token is) and an induction head in layer 1: in the repeat, each letter attends to the letter after its first occurrence.
# labels a text field
positions-rope-text = text
positions-rope-unknown = { $count } characters are not in the model's alphabet (a–z): shown as <unk>
positions-rope-truncated = { $count } tokens past the model's { $limit } were cut off
positions-rope-no-layer = this model has no such layer
# names the heatmap for screen readers
positions-rope-model-context = { $model } · layer { $layer } · head { $head }
positions-rope-model-weights = Decoder self-attention weights, layer { $layer } · head { $head }: rows are queries, columns keys; hatched cells are the future, blocked by the causal mask.
# a colour legend
positions-rope-weight = weight

## Through depth: the position probe on the picked model
positions-depth-heading = Does position survive depth?
positions-depth-intro = A linear probe tries to read each token's position t from the residual stream, layer by layer: it standardises the stream's d numbers (a = (x − μ) / σ), solves (AᵀA + λI) W = Aᵀ(Y − Ȳ) with Y the one-hot positions on three chunks in four, and names argmaxₜ (a W + Ȳ)ₜ on the fourth, held out. Beside it, the positional component: μₜ − μ, the mean stream at position t minus the mean over all, and its share of the stream's variance, Σₜ nₜ ‖μₜ − μ‖² / Σᵢ ‖xᵢ − μ‖² (position 0, a special or sink token, left out).
# $chunks passages of $tokens tokens each
positions-depth-text = Input: { $chunks } passages of Glimpse's own English text, { $tokens } tokens each (the model's special tokens included).
positions-depth-symbols = Input: { $chunks } random sequences of this model's own symbols, { $tokens } tokens each: it does not read English, and with random symbols only position orders a sequence.
positions-depth-absolute = This model adds its positional encoding to the token embeddings once, before the first block: anything the probe reads later, the residual path and the blocks carried up.
positions-depth-rope = This model adds no position vector to its stream: RoPE rotates queries and keys inside each attention. Whatever position the probe reads here, attention wrote into the stream.
positions-depth-in-attention = This model puts position into its attention scores (a bias or relative offsets), not into the stream: whatever position the probe reads here, attention wrote into the stream.
# $done of $all passes run
positions-depth-running = Running the model on chunk { $done } of { $all } …
positions-depth-fitting = Fitting the probe: layer { $layer } of { $layers } …
positions-depth-too-few = too few chunks for a probe
positions-depth-axis = layer (resid[l])
positions-depth-accuracy-title = held-out position read by the probe
positions-depth-exact = exact
positions-depth-within = within one
positions-depth-chance = chance
positions-depth-share-title = positional share of the stream's variance
positions-depth-share = positional share
# Percentages; $best is a layer number
positions-depth-verdict = The probe names the exact position of { $first } % of held-out tokens at resid[0] and { $last } % at the last layer (best { $best_exact } % at resid[{ $best }]; chance { $chance } %). The positional share goes from { $first_share } to { $last_share }. Computed here in { $seconds } s.
