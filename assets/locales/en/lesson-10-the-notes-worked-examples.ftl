## Lesson 10: The notes' worked examples

lesson-the-notes-worked-examples = The notes' worked examples

lesson-page-0-45-0-45-0 = 0.45, 0.45, 0.05, 0.05
lesson-page-0-45-0-45-0-text =
    The notes' first example: translating "we are eating bread", the decoder writes "estamos"
    with the attention weights 0.45, 0.45, 0.05 and 0.05 on the four source words, so its
    context is mostly "we are".

    Softmax gives exactly these weights when the scores of "we" and "are" stand ln 9 ≈ 2.1972
    above the other two:

    $$estamos$$

    Those are the scores in the box.

    Change them: raise one score and watch the weight move, and the Jacobian say by how much.

lesson-page-softmax-0-2-1 = softmax([0, 2, 1])
lesson-page-softmax-0-2-1-text =
    The self-attention handout's example: scores 0, 2 and 1 give the weights 0.09, 0.67 and
    0.24, and the output 0.09·v₁ + 0.67·v₂ + 0.24·v₃.

    The “Q, K, V by hand” part of this tab puts the same numbers inside a real product: a query
    whose dot products with three keys, divided by √4, are [0, 2, 1].

lesson-page-start-big-cat = [START] Big cat
lesson-page-start-big-cat-text =
    The notes' causal mask on three tokens, "[START] Big cat": the translator's decoder reads
    exactly these, with <bos> as [START], while it translates "le grand chat".

    {"["}START] may read only itself, so its row of A is 1.00 then zeros. "big" reads [START] and
    itself. "cat" reads all three. Every weight above the diagonal is exactly 0, in every head
    and layer: M adds −∞ there before the softmax.

    Switch the mask mode to “none” and the zeros fill in: each token would read the one after
    it, which a decoder cannot have at generation time.

lesson-page-d-4-i-can-buy = d = 4: I Can Buy
lesson-page-d-4-i-can-buy-text =
    The notes' smallest sinusoidal encoding: d = 4, two bands, ω₀ = 1 and ω₁ = 10000^(−2/4) =
    0.01, so p_t = [sin t, cos t, sin 0.01t, cos 0.01t] with wavelengths 2π ≈ 6.28 and 200π ≈
    628.32 positions.

    "I" at t = 0 gets [0, 1, 0, 1]; "Can" at t = 1 gets [0.84, 0.54, 0.01, 1.00]; "Buy" at t = 2
    gets [0.91, −0.42, 0.02, 1.00]. The table under the sliders writes them out: the fast band
    changes a lot from one token to the next, the slow one hardly moves.

    Drag d up to see more bands, each slower than the last.

lesson-page-rope-on-the-dog-slept = RoPE on "the dog slept"
lesson-page-rope-on-the-dog-slept-text =
    The notes rotate three 4-dimensional vectors of "the dog slept". (They rotate the
    embeddings themselves; RoPE in a real model rotates each query and key after its
    projection and never the values, as the Positions lesson shows. The arithmetic is the
    same.) They count positions
    from 1, so "the" turns by θ = 1 in its first pair and 0.01 in its second, "dog" by 2 and
    0.02, "slept" by 3 and 0.03.

    Scroll down to section 4 of this panel, “Rotate your own vectors”: it holds their numbers.
    The rotated rows are the notes' own: [0.402, 0.811, 0.192, 0.802], [−0.845, 0.163, 0.298,
    0.106] and [−0.212, −0.071, 0.879, 0.727]. The lengths do not change: a rotation only turns
    each pair.

    Set the first position to 0 and "the" does not move at all: with positions from 0, as in the
    models, the first token is never rotated.

lesson-page-je-suis-tudiant-b-2 = Je suis étudiant, B = 2
lesson-page-je-suis-tudiant-b-2-text =
    The notes' beam search: translating "Je suis étudiant" with B = 2 on their hand-made
    probabilities, typed here as a table (… stands for every other word). Press Step to follow
    it.

    Step 1 keeps "I" (0.60) and "Me" (0.30). Step 2 keeps "I am" (0.54) and "Me too" (0.18).
    Step 3 drops "Me too". The notes only call its continuations unlikely; the table here gives
    "!" and "." 0.30 each, so its best continuation reaches only 0.054, below "I am a" (0.378)
    and "I am …" (0.108). The beam ends on "I am a student" with probability 0.3024 (log p −1.196).

    Greedy decoding finds the same sentence: at every step the likeliest word is also on the
    best path, so delaying the choice changes nothing. On the table of the Decoding lesson's
    beam page it does: greedy's "the" (0.5) leads to at most 0.20, beam's "a" (0.4) to 0.36.

lesson-page-l-100-d-512 = L = 100, D = 512
lesson-page-l-100-d-512-text =
    The notes compare the terms that mix tokens, at L = 100 tokens of width D = 512: 26,214,400
    for a recurrent layer's recurrence, 78,643,200 for a convolution with K = 3, and 5,120,000
    for self-attention's pairwise scores. Attention's projections (4·L·D² = 104,857,600) are
    left out, so this is not a comparison of whole layers.

    At L = 10⁴ the order flips: 2.62144 × 10⁹ for the RNN against 5.12 × 10¹⁰ for
    self-attention. The calculator computes both; the buttons set the notes' sizes.

lesson-page-infonce-classify-the-positive = InfoNCE: classify the positive
lesson-page-infonce-classify-the-positive-text =
    The Contrastive tab embeds four pairs of paraphrases with all-MiniLM-L6-v2 and compares
    every anchor with every pair's positive. InfoNCE is the cross-entropy of picking the right
    one:

    $$infonce$$

    here at τ = 0.05: the other pairs' positives are the negatives, for free.

    The two music anchors confuse each other's positives: only 2 of 4 anchors rank their own
    first, and the mean loss is 0.506. Then the hard negative "A man is selling a guitar." joins
    the candidates. Its similarity to "A man is playing a guitar." is 0.74, above that anchor's
    positive at 0.68, so anchor 1's loss rises from 0.772 to 1.822 and the mean from 0.506 to
    0.769.

    Training on such a negative pushes it away from the anchor: nearly the same words, another
    meaning. (Once it joins, the sum under the fraction has its term exp(s/τ) as well.)
