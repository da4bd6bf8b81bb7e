## Lesson 1: Why attention

lesson-why-attention = Why attention

lesson-page-the-bottleneck = The bottleneck
lesson-page-the-bottleneck-text =
    Before attention, a recurrent encoder–decoder squeezed its whole input into the encoder's
    last state, a vector of one size whatever the sentence's length: the decoder saw the source
    only through that vector, at every output word. The longer the sentence, the more of it is
    lost in that one vector: this is the bottleneck.

    With attention, every output step t may consult all of the encoder's states hᵢ, not only the
    last. In the additive (Bahdanau) form the decoder's previous state s_{"{"}t−1{"}"} scores
    each source position: e_{"{"}t,i{"}"} = vᵀ tanh(W s_{"{"}t−1{"}"} + U hᵢ).

    The scores become weights a_{"{"}t,i{"}"} = softmax_i(e_{"{"}t,i{"}"}), which are positive
    and sum to 1, and the decoder reads the context, a fresh mixture of the source for every
    output word:

    $$bahdanau-context$$

    On the right is the cross-attention of a small trained translation model. Rows are target
    words (queries), columns are source words (keys); each row is one a_{"{"}t,·{"}"}. This
    model is a transformer: it scores with the scaled dot product qᵀk/√d_k of the next lesson,
    not with Bahdanau's additive form, but its weights are read the same way.

lesson-page-alignment-nobody-taught = Alignment nobody taught
lesson-page-alignment-nobody-taught-text =
    The model was trained only to produce the English sentence; nobody told it which French word
    matches which English word. Yet the weights line up word with word: an alignment map.

    A decoder row is the step that produces the next word, so each row looks at the source word
    it is about to translate. The row of "the", which must produce "european", reads
    "européenne"; the row of "economic", which must produce "area", reads "zone".

    French puts the adjective after the noun: "zone économique européenne" becomes "european
    economic area". The lines cross where the word order differs.

    Try other heads and layers with the controls in the left column, or type another sentence
    from the model's small vocabulary.

lesson-page-ways-to-score-a-query = Ways to score a query against a key
lesson-page-ways-to-score-a-query-text =
    Any function of a query q and a key k that returns a number can score. Luong's variants: dot
    qᵀk; general (bilinear) qᵀWk; concat (additive) vᵀ tanh(Wq + Uk). Transformers use the
    scaled dot product qᵀk/√d_k.

    The table shows all four for one query of the translation model, each followed by its
    softmax. Dot products need q and k of the same width; the bilinear and additive forms have
    their own parameters (here drawn at random, since this model never learned them).

    Pick another query word above the table and compare which key each scoring function prefers.

lesson-page-the-bottleneck-trained = The bottleneck, trained
lesson-page-the-bottleneck-trained-text =
    Now the RNN itself. This page trains two small GRU encoder–decoders on the same toy
    translations, from the same seed: one passes the sentence to the decoder as the encoder's
    last state, a single vector of 8 numbers; the other scores every encoder state at every step
    with Bahdanau's additive attention, e = vᵀ tanh(W s_{"{"}t−1{"}"} + U hᵢ).

    In the desktop app (the browser rounds slightly differently), after 1,500 steps, both
    translate every 2-word phrase; at 7 words the fixed vector gets 4 of 39 held-out sentences
    right and attention 32: the longer the sentence, the less fits through one vector.

    Below the plots both translate "je vois la voiture verte rapide .": the fixed vector says "i
    see the small car .", attention "i see the fast green car .". Drag the decoder step t: each
    row of the map is one a_{"{"}t,·{"}"}; at step 3, producing "fast", it looks at "rapide".
    The table gives the step's scores e and weights. Widen the state to 32 and the bottleneck
    loosens on sentences this short.
