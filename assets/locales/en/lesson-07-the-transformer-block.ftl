## Lesson 7: The transformer block

lesson-the-transformer-block = The transformer block

lesson-page-heads-back-together = Heads back together
lesson-page-heads-back-together-text =
    MultiHead(X) = concat(head₀, …, head_{"{"}h−1{"}"})·W_O. The concatenation puts the h
    outputs of width d_k side by side (width h·d_k = d_model), and W_O mixes what the heads
    found.

    The walkthrough stands at the concat step of the encoder's self-attention; step on to W_O.

lesson-page-add-norm-and-the-feed = Add & Norm and the feed-forward layer
lesson-page-add-norm-and-the-feed-text =
    An encoder block is attention then a feed-forward network, each wrapped in a residual
    connection and a LayerNorm. The original transformer writes it Y = LayerNorm(X + MHSA(X)), Z
    = LayerNorm(Y + FFN(Y)).

    FFN(x) = max(0, xW₁ + b₁)W₂ + b₂, applied to each token on its own, with a hidden width d_ff
    = 4·d_model in the original (2048 for 512). Attention mixes tokens; the FFN transforms each
    one.

    LayerNorm normalises each token over its features, with the token's mean μ and variance σ²,
    a small ε, and a learned scale γ and shift β:

    $$layer-norm$$

    so it does not depend on the batch or on other positions (BatchNorm would, which suits
    variable-length sequences badly).

    The original transformer normalises after the residual sum (post-norm); most modern models
    normalise the input of each sublayer (pre-norm), so that the residual stream itself is never
    normalised: a deep pre-norm stack keeps an identity path from the output back to every
    layer, and it trains more easily. The model on the right is pre-norm, Y = X + MHSA(LN(X)), Z
    = Y + FFN(LN(Y)), and small: d_ff = 64 = 2·d_model.

    The walkthrough goes on past W_O. "x + attn" adds the attention's output to the stream it
    read. "norm₂" is the LayerNorm before the FFN: each token's mean μ and variance σ², the
    normalised row z, the learned γ and β, and the result. "FFN" shows the hidden layer of width
    d_ff; "x + FFN" is the block's output, the next block's input.

lesson-page-cross-attention = Cross-attention
lesson-page-cross-attention-text =
    A decoder block has three sublayers: masked self-attention, then cross-attention, then the
    FFN, each with Add & Norm.

    Cross-attention mixes the two stacks: the decoder asks, the encoder's output (the memory)
    answers: Q = Y W_Q, K = H W_K, V = H W_V. The decoder retrieves source meaning; the final
    projection to the vocabulary picks the word.

    The grid shows every cross-attention head of both decoder layers. The classifier names a
    word-alignment head when each target token puts most of its weight on a source token of its
    own; the clearest here is layer 1, head 2 (0.71). Its bright cells do not run down the
    diagonal: the translation moves the adjectives and flips their order, and the head follows
    the words, not the positions.

lesson-page-one-block-three-families = One block, three families
lesson-page-one-block-three-families-text =
    The same block template makes all three families; what differs is what each attention may
    see.

    Encoder-only (BERT-like): self-attention with no mask. Decoder-only (GPT-like): causal
    self-attention and no cross-attention. Encoder–decoder (the original transformer): an
    unmasked encoder, a causal decoder, and cross-attention between them.

    The panel shows each family's masks and attention on trained models.

lesson-page-from-the-last-layer-to = From the last layer to a word
lesson-page-from-the-last-layer-to-text =
    After the last block (and, in a pre-norm model, one final LayerNorm) each position holds a
    row h of width d. The output layer scores it against every token of the vocabulary, logits =
    h·W_vocabᵀ + b, and a softmax over the whole vocabulary turns the scores into the next
    token's probabilities.

    sotu-lm, the English model Glimpse trained, ties its output matrix to its embedding: W_vocab
    is E, the same 4,096 × 192 matrix that turned tokens into vectors. A token's logit is the
    dot product of h with that token's own embedding, and tying saves 4,096 · 192 = 786,432
    parameters.

    The walkthrough stands at the logits of the last layer, for the columns of the likeliest
    tokens. Step on to softmax (vocab): after "The state of the Union is" the model's most
    likely next token is " the".

lesson-page-deep-stacks-pre-norm-and = Deep stacks: pre-norm and post-norm
lesson-page-deep-stacks-pre-norm-and-text =
    Every sub-layer has a residual connection, and at each one a path can go through the
    sub-layer or around it. An encoder block has two sub-layers, so N blocks open 2^(2N) paths
    from input to output: 4,096 for the original encoder's six blocks. A decoder block has a
    third, cross-attention, so the original decoder's six blocks open 2¹⁸ = 262,144.

    Where the LayerNorm sits decides what depth does. The tab builds two fresh 12-block models
    of the repeat task, identical but for that. Post-norm renormalises the stream after every
    sub-layer, so, with LayerNorm's γ = 1 and β = 0 at initialisation, it leaves every block
    with norm √d. Pre-norm only normalises what each sub-layer reads: the stream is a running
    sum and grows from block to block.

    The gradients at initialisation differ too. Post-norm's are largest at the block nearest the
    output (2.61 there, 0.54 at the smallest): a large first step there unless the learning rate
    warms up. Pre-norm's shrink towards the output (1.92 at the first block, 0.54 at the last),
    with no spike. Move N and watch both.

    Under the plots, sotu-lm, a trained pre-norm model, on the text in the input box: its stream
    grows from block to block too.

lesson-page-deep-stacks-trained = Deep stacks, trained
lesson-page-deep-stacks-trained-text =
    Now train them. The page trains the reverse task's model twice from the same seed, six
    blocks deep in the encoder and in the decoder, once pre-norm and once post-norm, with the
    learning rate at its peak from the first step (no warmup).

    After 1,000 steps pre-norm reverses every held-out sequence (loss about 0.002); post-norm is
    stuck near loss 1.5, under 40 % of letters right and no sequence: the instability the notes
    describe for deep post-norm stacks. The notes see it at 24 to 48 layers; without warmup, six
    blocks are enough here. (Natively 1.53 and 37.8 %; the browser rounds differently and
    training magnifies it, so its last digits differ.)

    Tick warmup and both train (post-norm to loss 0.011, 100 % exact). Drag the blocks to 2 and
    post-norm trains without warmup too: it is depth that makes post-norm fragile. Under the
    table, the trained decoders' streams: pre-norm's grows block by block, post-norm's is reset
    by every LayerNorm, to a size its learned γ and β set.

lesson-page-the-original-transformer-65-m = The original Transformer: 65 M and 213 M
lesson-page-the-original-transformer-65-m-text =
    The paper's base model (D = 512, d_ff = 2048, h = 8, six blocks in the encoder and six in the
    decoder) has 65 M parameters, its big model (D = 1024, d_ff = 4096, h = 16) 213 M. The table at
    the foot of this tab counts both with the block formulas: 63.1 M and 214.2 M, when one
    embedding matrix of 37,000 tokens serves the encoder's input, the decoder's input and the
    output layer.

    A decoder block holds more than an encoder block: its cross-attention adds another 4·D² + 4·D.
    The heads add nothing: h decides how D is cut into pieces, not how many weights there are.

    The notes split base into 32 M of embeddings, 31 M of encoder and 37 M of decoder. Those add
    up to 100 M, not 65 M; the formulas give 18.9 M, 18.9 M and 25.2 M.
