## The softmax lab: typed scores to weights, and small Q, K, V by hand

softmax-part-scores = Scores → weights
softmax-part-matrices = Q, K, V by hand
softmax-part-stacking = Two layers stacked
softmax-stack-intro = Two attention layers on top of each other, with nothing between them (no residual, no feed-forward), as in the notes' derivation: a small input X of 4 tokens × 3 numbers and random projections W_Q, W_K, W_V per layer.
softmax-stack-seed = random input and projections, seed
softmax-stack-new = new draw
softmax-stack-collapse-title = With its weights held, the stack is one layer
# $difference is in scientific notation; $low and $high are row sums
softmax-stack-collapse-check = The two layers against the single layer (A₂A₁, W_V1·W_V2): largest difference { $difference }, rounding only. Every row of A₂A₁ sums to 1 (from { $low } to { $high }), so it is itself a table of attention weights.
softmax-stack-collapse-note = Matrix products regroup, so once A₁ and A₂ are known, what the second layer does to the first layer's output is one mixing of the tokens and one linear map of their numbers. The stack gains nothing here: what makes it more than one layer is how A₁ and A₂ are made from X.
softmax-stack-linear-title = Is the stack a linear map of X?
softmax-stack-scale = scale the input: c
softmax-stack-how = weights made how
# $c is the scale
softmax-stack-scaling = f({ $c }·X) against { $c }·f(X)
softmax-stack-sum = f(X + X′) against f(X) + f(X′)
softmax-stack-ratio = f({ $c }·X) ÷ f(X), entry by entry
softmax-stack-held = held (computed once from X)
softmax-stack-scores = QKᵀ/√d, no softmax
softmax-stack-softmax = softmax(QKᵀ/√d)
# one number: every entry scaled alike
softmax-stack-ratio-one = all { $ratio }
softmax-stack-ratio-range = from { $low } to { $high }
# $c9 is c to the ninth power
softmax-stack-linear-reading = The relative errors say which rows are linear: 0 up to rounding only for held weights. Without softmax every entry grows by the same c⁹ = { $c9 } at c = { $c }: the scores multiply X by itself (A₁ grows as c², Y₁ as c³, A₂ as c⁶, Y₂ as c⁹), a polynomial of degree 9, not a linear map, but one that only rescales the pattern. With softmax the entries change by different factors: the weights themselves change shape.
softmax-stack-linear-note = So "stacked attention without softmax collapses into one linear map" holds only when the weights do not depend on the input. The non-linearity of attention is in how the weights are made: the products QKᵀ, then the softmax, which normalises and sharpens them. A feed-forward layer with ReLU after each attention layer adds the element-wise non-linearity the notes call for.

# Hover texts of the ready-made scores' buttons.
softmax-preset-worked = the notes' worked example
softmax-preset-soft = soft: gradients reach both scores
softmax-preset-saturated = ×10 = [20, 10]: saturated, the gradient vanishes
softmax-preset-far = one score far above the rest

# followed by the formula, drawn as a display formula
softmax-scores-intro = Softmax turns any scores e into weights α that are positive and sum to 1. Type scores, or pick an example.
# Label of the box where the scores are typed.
softmax-scores-label = scores e =
softmax-scale = multiply every score by s (s = 1/τ)
# $bits and $max: entropies in bits, already formatted; $count: how many scores.
softmax-entropy = entropy H(α) = −Σ αᵢ log₂ αᵢ = { $bits } bits (0 when one weight takes all, log₂ { $count } = { $max } when all are equal)
softmax-jacobian-title = The Jacobian ∂αᵢ/∂eⱼ = αᵢ(δᵢⱼ − αⱼ)
softmax-jacobian-note = How much weight i moves when score j is nudged (row i, column j). Every column sums to 0: the weights always sum to 1, so what raising score j gives some weights it takes from the others. J is symmetric, so every row sums to 0 too.
softmax-shift-note = Subtracting the largest score first changes nothing (it cancels between top and bottom) but keeps every exponential at most 1, so nothing overflows.

# The end of softmax-largest-gradient ($trend).
softmax-trend-tied = the top scores are tied, so they keep sharing the weight and it does not fall to 0
softmax-trend-apart = as the scores grow apart it falls towards 0
# $value: the largest gradient; $s: the scale; $trend: softmax-trend-tied or softmax-trend-apart.
softmax-largest-gradient = The largest |∂αᵢ/∂eⱼ| is { $value } at s = { $s }: { $trend }
softmax-plot-title = largest |∂α/∂e| as every score is multiplied by s
# The marker of the current scale s on the plot.
softmax-plot-s-now = s now
softmax-plot-x = s (every score multiplied by s)
softmax-plot-y = largest |∂α/∂e|
softmax-plot-line = largest gradient

softmax-matrices-intro = Type small matrices, one row per token: rows separated by ; or new lines, numbers by spaces or commas. Q has one row per query, K and V one row per key.
softmax-q-label = Q (queries × d_k)
softmax-k-label = K (keys × d_k)
softmax-v-label = V (keys × d_v)
softmax-worked-again = the worked example again
softmax-routing = the notes' routing: 0.1, 0.3, 0.6
softmax-routing-hover = Three outputs, each its own mix of the same three values. Each query holds the logarithms of its weights and the keys are one-hot times √3, which the division by √d_k cancels, so softmax gives the weights back exactly. The values are one-hot with a 1 appended: each output shows its mix, and its last number, the sum of its weights, is 1.
softmax-step-scores = 1. S = QKᵀ: every query against every key
# The names of a matrix's rows and columns (read out by screen readers).
softmax-axis-query = query
softmax-axis-key = key
softmax-axis-dimension = dimension
softmax-read-by = read by
softmax-read-rows = rows of A: what a query gathers
softmax-read-columns = rows of Aᵀ: who listens to a key
softmax-step-transposed = 3. Aᵀ: column i is query i's softmax (the notes' layout)
softmax-step-weights = 3. A = softmax of each row of E
softmax-step-context = 4. C = AV: each query's context vector
softmax-query-pick = query:
softmax-key-pick = key:
# $query: the query's name (q1); $index: its number; $terms: "0.50·v1 + 0.50·v2"; $context: the numbers of its context vector.
softmax-gathers = { $query } gathers c{ $index } = { $terms } = [{ $context }]: its weights sum to 1
# $key: the key's name (k1); $readers: "q1 0.50, q2 0.10"; $received: their sum; $total: how many queries.
softmax-listeners = { $key } is read by { $readers }: { $received } in all, of the { $total } the queries hand out. A key's total need not be 1: some keys are read by everyone, some by no one.
softmax-export-steps = steps as JSON

## Why typed scores or matrices cannot be read ($word: what the student typed)

softmax-error-not-finite = `{ $word }` is not a finite number
softmax-error-too-large = `{ $word }` is too large: keep numbers between −1,000,000 and 1,000,000
softmax-error-not-number = `{ $word }` is not a number
softmax-error-no-number = type at least one number, e.g. 0, 2, 1
softmax-error-too-many = { $count } numbers: at most { $max } fit in one readable row
softmax-error-no-row = type at least one row, e.g. 1, 0; 0, 1
# $rows × $cols: the typed matrix's size; $max: the largest size that fits.
softmax-error-too-big = { $rows } × { $cols }: at most { $max } × { $max } fits on screen with every number
softmax-error-ragged = row { $row } has { $count } numbers but row 1 has { $width }: every row needs the same length
softmax-error-widths = each query has { $query } numbers but each key has { $key }: q·k needs the same length
softmax-error-values = { $keys } keys but { $values } values: every key needs its value (one row of V each)
