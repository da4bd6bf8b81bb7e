## Lesson 6: Multi-head attention

lesson-multi-head-attention = Multi-head attention

lesson-page-many-heads-same-cost = Many heads, same cost
lesson-page-many-heads-same-cost-text =
    Split d_model into h heads of width d_k = d_model/h, each with its own W_Q, W_K, W_V;
    concatenate the h outputs and mix them with W_O.

    With d_model = 512 and h = 8, d_k = 64: the parameters and FLOPs equal one head of full
    width, but each head can attend somewhere else.

    The grid shows every head of sotu-lm, the English model Glimpse trained on two centuries of
    State of the Union addresses (4 layers × 4 heads). Its byte-level BPE cuts "animal" into "
    an", "im", "al". On this sentence the classifier finds layer 1, head 0 looking at the other
    pieces of the token's own word (0.81), and layer 1, head 1 as the clearest previous-token
    head (0.61).

    Yet the caption under layer 1, head 1 says own word (0.70): inside a word cut into pieces,
    the previous token is another piece of the same word, so one head can score on both. A label
    is the pattern a head shows most; hover a thumbnail for all its scores.

lesson-page-a-previous-token-head = A previous-token head
lesson-page-a-previous-token-head-text =
    Layer 0, head 2 of MiniLM puts all its weight on the token just before the query (score
    1.00): the stripe just below the diagonal.

    Nobody designed it. Training found that knowing the previous token is useful, and the head
    copies it into each position's output. The pieces of "unbelievably" (un ##bel ##ie ##va
    ##bly) each read the piece before them, so the same head is also the clearest own-word head
    here (0.71). The outlined row is "##bel": 1.00 on "un".

lesson-page-an-induction-head = An induction head
lesson-page-an-induction-head-text =
    The input repeats: "glimpsehow" twice. In layer 1, a query in the second copy (layer 1, head
    0) attends to the token that followed its own earlier occurrence, which is the token it
    should predict next: the outlined row, the second "l", looks most at the "i" after the first
    "l".

    It can do that because the layer-0 head already wrote "my previous token was x" into every
    position: two heads in two layers form a copy mechanism.

    This is a toy: a 2-layer model trained only on repeated random letters (its vocabulary is
    the 26 letters). Type another repeated string in the controls and watch the off-diagonal
    stripe move with the period; the page “Induction on real words” finds the same heads in a real
    model.

lesson-page-sharing-keys-and-values-mqa = Sharing keys and values: MQA and GQA
lesson-page-sharing-keys-and-values-mqa-text =
    At inference every head caches its keys and values for every past token, and that cache, not
    the arithmetic, often limits speed and batch size.

    Multi-query attention (MQA) gives all query heads one shared key/value head; grouped-query
    attention (GQA) shares one key/value head within each group of query heads. The cache
    shrinks by the group size, at a small cost in quality.

    This page trains the translator three times from the same seed, 600 steps each: 4 query
    heads with 4, 2 and 1 key/value heads. The cache per token falls from 128 to 64 to 32
    numbers. Natively, from seed 1, exact translations go from 100 % to 97.9 % to 93.8 %; in the
    browser the rounding differs slightly and training magnifies it, and other seeds shuffle the
    order by a few points. Large models share because at their size the cache, not the
    arithmetic, limits decoding, and the quality they lose by sharing has been measured to be
    small; a toy task cannot show that on its own.

lesson-page-induction-on-real-words = Induction on real words
lesson-page-induction-on-real-words-text =
    The lab reads 20 random tokens of SmolLM2's vocabulary (words and pieces of words), then the
    same 20 again. Nothing predicts the first copy. SmolLM2-135M-Instruct's loss falls from
    12.95 nats per token on the first copy to 3.02 on the second: it copies.

    The copying is done by induction heads. Layer 18, head 6 puts on average 0.87 of the
    attention of each token of the second copy on the token that followed its first occurrence,
    which is the token to predict next. An earlier head has written "my previous token was x"
    into every position, so two heads in two layers form a copy mechanism.

    Pick sotu-lm in the top bar. Glimpse trained it for 97 minutes on 2.7 M tokens, and it has
    not learnt to copy: the second copy is no easier (14.55 and 14.54 nats), and no head scores
    above 0.05. The small repeat model, trained only on repeats, copies with one head in layer
    1.

lesson-page-names-come-back = Names come back
lesson-page-names-come-back-text =
    Random words are a test; in prose, induction shows where names repeat: "The letter was from
    Hermione Granger, and the parcel was from Harry Potter. When Hermione Granger wrote again,
    Harry Potter answered."

    The head classifier (All heads) finds SmolLM2's clearest induction-like head on this
    sentence in layer 17, head 5 (score 0.57). The view shows it from the second " Herm": it
    puts 0.75 of its attention on "ione", the piece that followed " Herm" the first time, which
    is the piece to predict next.

    Click the second " Gr": the head looks at "anger" (0.72). At the second " Harry" it is less
    sure: 0.28 on " Potter", more on the first token, where heads park attention they have no
    use for. Type your own sentence with a repeated name.

lesson-page-switching-heads-off = Switching heads off
lesson-page-switching-heads-off-text =
    Does a model need all its heads? Switch one off (its output set to zero before W_O) and
    measure what the model loses. The tab ranks every head that way, then switches them off
    together from the least important up.

    On the translator, measured on 48 held-out sentences: with all 8 cross-attention heads off,
    greedy decoding gets 0 of them right (100 % with every head on): without cross-attention the
    decoder cannot see the source. Yet 7 of its 24 heads can go together with token accuracy
    within 1 point of the full model's.

    Click any head to switch it off or on, and pick another model in the top bar: a decoder LM
    is measured on the text in the input box.

lesson-page-nine-query-heads-three-caches = Nine query heads, three caches
lesson-page-nine-query-heads-three-caches-text =
    SmolLM2 uses grouped-query attention: in each of its 30 layers, 9 query heads share 3
    key/value heads, in groups of 3. The drawing under the heads shows which query reads which
    key and value.

    Its KV cache holds 2 · 3 · 64 = 384 numbers per token and layer, where 9 heads with their
    own keys and values would need 2 · 9 · 64 = 1,152: a third. Switch heads off here too; the
    loss is measured on the text in the input box.
