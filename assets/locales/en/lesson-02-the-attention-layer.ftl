## Lesson 2: The attention layer

lesson-the-attention-layer = The attention layer

lesson-page-queries-keys-and-values = Queries, keys and values
lesson-page-queries-keys-and-values-text =
    Attention is a soft database lookup. A query says what a position is looking for, a key says
    what a position offers, and a value is what it hands over when it matches.

    All three are linear maps of the inputs: Q = X W_Q, K = X W_K, V = X W_V. Keys and values
    are separate because what makes a word relevant is not the same as what it should
    contribute.

    Nothing makes a pair's two scores agree: W_Q and W_K are different matrices, so qᵢ·kⱼ and
    qⱼ·kᵢ are in general two different numbers, and one word can weigh another heavily while the
    other barely weighs it back. Lesson 3 measures such a pair on a real model.

    The walkthrough on the right goes from X to the output one matrix at a time. Step with its
    buttons or the ← → keys.

lesson-page-scaled-dot-product-attention = Scaled dot-product attention
lesson-page-scaled-dot-product-attention-text =
    For all queries at once:

    $$attention$$

    In steps: E = QKᵀ/√d_k, A = softmax(E) row by row, Y = A·V. With N_Q queries and N_K keys,
    E and A are N_Q×N_K and Y is N_Q×d_v.

    Row i of A holds the weights of query i; output i is a weighted average of the value rows:

    $$weighted-sum$$

    One matrix product handles every query in parallel.

    The walkthrough now stands at ÷√d_k. Step on through softmax and A·V, and select a query to
    see its weighted sum written out.

lesson-page-why-divide-by-d-k = Why divide by √d_k
lesson-page-why-divide-by-d-k-text =
    If the d_k entries of q and of k are independent, with mean 0 and variance σ², each product
    of matching entries has variance σ⁴, so Var(q·k) = d_k σ⁴: the scores grow with the width.
    The zero mean matters: with non-zero means the variance is larger still.

    Large scores saturate the softmax: softmax([2, 1]) ≈ [0.73, 0.27] but softmax([20, 10]) ≈
    {"["}0.99995, 0.00005]. Nearly all the weight then sits on one key, a small change in any score
    hardly moves the weights, and the gradient that reaches the scores is close to zero.

    Dividing by √d_k brings the variance back to σ⁴ whatever the width. The variance plot in the
    lab shows raw and scaled scores as d_k grows; move the d_k slider.

lesson-page-temperature-and-entropy = Temperature and entropy
lesson-page-temperature-and-entropy-text =
    Scaling is a temperature: softmax(e/τ). As τ → 0 the weights approach a one-hot choice (hard
    attention); as τ → ∞ they become uniform.

    The entropy measures how spread a row is:

    $$entropy$$

    It is 0 when one key takes everything, log T when all T keys share equally.

    This page runs the model at τ = 0.3, sharper than it was trained. Open “Input and attention
    controls” below this text, drag the temperature slider and watch the heatmap and the entropy
    above it.

lesson-page-softmax-by-hand = Softmax by hand
lesson-page-softmax-by-hand-text =
    The notes' worked example: a query scores three keys e = [0, 2, 1]. Softmax gives them the
    weights 0.09, 0.67 and 0.24, so the output is 0.09·v₁ + 0.67·v₂ + 0.24·v₃: mostly the second
    value, a little of the others. Each weight is

    $$softmax$$

    The table shows each step: subtract the largest score (nothing changes, but no exponential
    can overflow), exponentiate, divide by the sum. The entropy of these weights is 1.20 bits,
    of at most log₂ 3 = 1.58.

    The Jacobian below is how each weight moves when a score is nudged:

    $$softmax-jacobian$$

    Each column sums to 0: the weights always sum to 1, so nudging any score eⱼ leaves their
    total unchanged (Σᵢ ∂αᵢ/∂eⱼ = 0). J = diag(α) − ααᵀ is symmetric, so its rows sum to 0 as
    well. Type your own scores in the box.

lesson-page-when-softmax-saturates = When softmax saturates
lesson-page-when-softmax-saturates-text =
    Scores [2, 1] give weights 0.73 and 0.27, and the largest entry of the Jacobian is α₁α₂ =
    0.197: a nudge to either score still moves the weights.

    Here every score is multiplied by s = 10, so the scores are [20, 10]. The weights are
    0.99995 and 0.00005, softmax acts like argmax, and the largest gradient is 0.000045: about
    4,300 times smaller. Learning through this softmax has all but stopped.

    The plot shows the largest gradient as s grows. Dividing the scores by √d_k keeps them in
    the range where it is large; drag the slider.

lesson-page-q-k-and-v-by = Q, K and V by hand
lesson-page-q-k-and-v-by-text =
    Three queries and three keys of width d_k = 4, typed in the boxes. Query 1 scores the keys
    QKᵀ = [0, 4, 2]; divided by √4 = 2 they are the worked example's [0, 2, 1], so query 1
    gathers 0.09·v₁ + 0.67·v₂ + 0.24·v₃ = [0.33, 0.91].

    Each row of A is one query's softmax and sums to 1: what that query gathers. The notes draw
    Aᵀ instead, one column per query. Switch to "rows of Aᵀ" and a row becomes a key: who
    listens to it. Key 2 is read by all three queries, 1.63 in all; a key's total need not be 1.

    Change any number, or the shapes: Q and K need the same width, and V one row per key.

lesson-page-routing-0-1-0-3-0-6 = Routing: 0.1, 0.3, 0.6
lesson-page-routing-0-1-0-3-0-6-text =
    The notes picture self-attention as routing. Output 1 is 0.1 of the first value, 0.3 of the
    second and 0.6 of the third; output 2 mixes the same three values as 0.5, 0.2 and 0.3. Every
    output is a weighted sum of one shared set of values, each with its own weights, positive and
    adding up to 1.

    Here real queries and keys produce those weights. The keys are one-hot (times √3, which the
    division by √d_k undoes), so each query's scores are its own three numbers, and each query
    holds the logarithms of its weights: softmax turns ln 0.1, ln 0.3 and ln 0.6 back into 0.10,
    0.30 and 0.60. The third output's 0.2, 0.7 and 0.1 are ours; the notes leave it open.

    The values are one-hot with a 1 appended, so each output row is its routing: output 1
    is [0.10, 0.30, 0.60, 1.00], its last number the sum of the weights. Change one value and
    every output that routes through it moves by its weight.
