## Lesson 3: Self-attention

lesson-self-attention = Self-attention

lesson-page-every-token-sees-every-token = Every token sees every token
lesson-page-every-token-sees-every-token-text =
    In self-attention Q, K and V all come from the same sequence. Any token reaches any other in
    one step, so the path length between positions is O(1), where an RNN needs O(L) steps.

    The layer is not linear in its input: the weights themselves depend on the data through QKᵀ
    and the softmax.

    On the right is a real model: all-MiniLM-L6-v2, a BERT-style sentence encoder (6 layers × 12
    heads, 22.7 M parameters) that reads in both directions. It is small enough to download
    during a lesson, and it knows English. Its 72 heads read a sentence teachers use for
    attention.

    Above the grid, the app's head classifier lists the head that shows each pattern most
    strongly on this input. Layer 0, head 2 looks at the previous token (score 1.00). Layer 4,
    head 5 looks at [CLS], the token that starts every input (0.90). Layer 1, head 8 mostly
    looks at the next token (0.57), which only a model without a causal mask can do. Open “Input
    and attention controls” below to type your own sentence.

lesson-page-order-means-nothing-to-attention = Order means nothing to attention
lesson-page-order-means-nothing-to-attention-text =
    Without positional information, self-attention is permutation equivariant: f(πX) = π f(X).
    Shuffle the tokens and the outputs are the same vectors, shuffled the same way.

    So "the dog bit the man" and "the man bit the dog" would give every word the same output:
    the layer sees a set, not a sequence.

    The panel shuffles the input of a trained encoder and compares its outputs with and without
    the positional encodings: without them the rows are only reordered; with them every row
    changes. The page “Who bit whom?” does it on a real English encoder.

lesson-page-what-it-costs = What it costs
lesson-page-what-it-costs-text =
    Self-attention compares all L² pairs of positions, each with a dot product of width D:
    O(L²·D). An RNN's recurrence costs O(L·D²), and so do attention's own projections Q, K, V
    and O (4·L·D²).

    The pairwise term L²·D is smaller than the recurrence's L·D² exactly when L < D, as in a
    sentence of L = 100 with D = 512. That rule compares these two terms only, not whole layers:
    with its projections, an attention layer does about twice the work of a plain RNN layer at
    these sizes, and less than an LSTM's (the page “The cost calculator” counts them). At L =
    10⁴ the L² term dominates and the L×L weight matrix fills memory.

    In exchange, all positions are computed at once: O(1) sequential operations instead of the
    RNN's O(L).

    On the right, the character model's attention on a longer text. It computes all L² scores;
    its causal mask then sets those above the diagonal (hatched) to −∞ before the softmax, so
    only the cells on and below it get weight. The mask saves no multiplications here, and an
    encoder uses the whole square. “The cost calculator”, later in this lesson, computes these
    costs for any L and D.

lesson-page-what-does-it-read = What does "it" read?
lesson-page-what-does-it-read-text =
    In "The animal didn't cross the street because it was too tired", a reader knows that "it"
    is the animal. Layer 3, head 1 of MiniLM puts 0.68 of the attention of "it" (the row of
    "it") on "animal", and 0.05 on "street".

    Now change "tired" to "wide" in the input: a reader takes "it" to be the street. This head's
    weight on "animal" falls to 0.28, but it does not move to "street" (0.12). Most of it goes
    to [CLS] instead.

    So this head does not follow the pronoun's referent the way a reader does, and no single
    head is the model's reasoning. Attention weights show where information flows, not
    why the model decides.

lesson-page-relevance-is-not-symmetric = Relevance is not symmetric
lesson-page-relevance-is-not-symmetric-text =
    The score of query i against key j is qᵢ·kⱼ, with q = x W_Q and k = x W_K. W_Q and W_K are
    different matrices, so qᵢ·kⱼ and qⱼ·kᵢ are in general different numbers: leaving out the
    biases MiniLM's projections also carry, they always agree only if W_Q W_Kᵀ is symmetric.

    In "He sat on the bank of the river", layer 0, head 4 of MiniLM gives "bank" (its row) 0.71
    of its attention on "river": the word that says which bank is meant. "river" gives only 0.17
    to "bank".

    These weights could still differ if the two scores were equal: the softmax normalises each
    row over its own keys, so one score weighs more in a row whose other scores are low. To
    compare the scores themselves, switch the heatmap to “before softmax (scaled scores)”: here
    they differ too, 4.98 for (bank, river) against 3.08 for (river, bank).

    Read the matrix by rows, which shows what each query gathers. Then compare the cell (bank,
    river) with the cell (river, bank). A column shows who listens to one key.

lesson-page-who-bit-whom = Who bit whom?
lesson-page-who-bit-whom-text =
    Back to order, on a real model. The panel runs "the dog bit the man" and "the man bit the
    dog" through all-MiniLM-L6-v2, a BERT encoder, with its learned position embeddings switched
    off and on.

    Off, each word's output only moves with the word, and the sentence vectors (the mean of the
    outputs, which is how this model is used) are identical: cosine 1.0000. The model could not
    tell who bit whom.

    On, they differ: cosine 0.9795. "dog" changes most (0.64): it is now the object instead of
    the subject.

    Type your own pair: the second box must use the same words.

lesson-page-the-cost-calculator = The cost calculator
lesson-page-the-cost-calculator-text =
    The notes' sentence: L = 100 tokens of width D = 512. Per layer, self-attention's pairwise
    scores take L²·D = 5,120,000 multiply-adds, a recurrent layer's recurrence L·D² = 26,214,400
    and a convolution of width K = 3, K·L·D² = 78,643,200. The pairwise term is the smallest,
    and it needs one parallel step where the RNN needs 100.

    It is not the whole attention layer. The projections Q, K, V and O add 4·L·D² = 104,857,600
    and the weighted sum A·V another L²·D = 5,120,000: 115,097,600 in all. Nor is the recurrence
    the whole RNN layer: it also multiplies every input by its input matrix, another L·D², so a
    plain RNN layer does 2·L·D² = 52,428,800 (the notes' T × 2d²). Layer against layer,
    attention does 2.2 times the plain RNN's work at these sizes; an LSTM's four gates make its
    layer 8·L·D² = 209,715,200, more than attention's. The table of one block below lists each
    term.

    Press "notes: L = 10⁴": the pairwise term now costs 5.12 × 10¹⁰ against the RNN's 2.62144 ×
    10⁹. It overtakes the recurrence exactly when L passes D: move the sliders and watch the
    lines cross in the plot.

    Memory follows: 51,200 numbers of RNN state against 61,200 for attention at L = 100 (L² +
    L·D). The tables below count a block's parameters, 4·D² for attention and 2·D·d_ff for the
    feed-forward layer, and the picked model's own, tensor by tensor.

    Move the heads slider: with h = 8 heads of d_k = D/h = 64, the projections keep 4·D² =
    1,048,576 parameters and the scores L²·D = 5,120,000 multiply-adds, as with one head of 512;
    only the attention weights multiply by h, 480,000 numbers for the pass against 60,000 with
    one head. The memory table gives each size in decimal and in the notes' binary units: one
    L × L matrix at L = 1,024 is 4.2 MB, or 4.0 MiB.

lesson-page-stacked-attention-without-a = Stacked attention without a feed-forward layer
lesson-page-stacked-attention-without-a-text =
    Stack two attention layers with nothing between them. Once the weights A₁ and A₂ are known,
    Y₂ = A₂·(A₁·X·W_V1)·W_V2 = (A₂A₁)·X·(W_V1·W_V2): one mixing of the tokens, A₂A₁, whose rows
    still sum to 1, and one linear map of their numbers. The page computes both sides.

    What keeps the stack from being one linear map is how the weights are made from X. Scale the
    input by c = 2: with the weights held, the output doubles, exactly linear. With the scores
    QKᵀ/√d and no softmax, every output grows by 2⁹ = 512, since each layer multiplies its input
    by itself twice: a polynomial, not a linear map. With softmax the outputs change by
    different factors, because the weights themselves change shape.

    In a transformer block (lesson 7) a feed-forward layer follows each attention layer and adds
    the element-wise non-linearity (ReLU) that attention lacks.
