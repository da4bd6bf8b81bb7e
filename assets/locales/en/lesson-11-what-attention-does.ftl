## Lesson 11: What attention does

lesson-what-attention-does = What attention does

lesson-page-what-each-layer-predicts = What each layer predicts
lesson-page-what-each-layer-predicts-text =
    Where a head looks is not what the model says. The logit lens asks each layer what it would
    say: it reads the residual stream after block l through the final norm and the output layer,
    as if the model stopped there.

    On "The Eiffel Tower is in the city of", SmolLM2's last position shows punctuation and
    filler for most of its depth. " Paris" becomes the top token only at depth 29, with p =
    0.07, and leaves the last block at p = 0.66: the answer becomes readable through
    the output layer only in the last few blocks.

    Click another column to follow that position, or type another answer token: the line under
    the grid is its probability depth by depth.

lesson-page-looking-is-not-using = Looking is not using
lesson-page-looking-is-not-using-text =
    Attention weights say where a head reads, not whether what it reads matters. Here every head
    of SmolLM2 is switched off in turn on "When Mary and John went to the store, John gave a
    drink to", and the change in logit(" Mary") − logit(" John") is its effect.

    Head 11.1 puts 0.86 of its weight on " drink", yet switching it off moves the answer by only
    0.01. Head 23.3 has the largest effect: switching it off moves the answer 3.04 towards "
    John", and its largest weight, 0.74, is on the second " John". Over all heads, looking hard
    and mattering are barely related (rank correlation 0.16).

    82 of the 270 heads put half their weight or more on the first token, "When": sinks. The
    value vectors they read there have a mean length of 1.89 against 8.96 elsewhere, so the
    weight parked there adds little.

lesson-page-who-says-the-name = Who says the name?
lesson-page-who-says-the-name-text =
    Patching finds what carries an answer. The clean text asks for " Mary"; the corrupted one
    says "Mary gave a drink to", so it asks for " John". logit(" Mary") − logit(" John") is 6.12
    clean and −5.49 corrupted.

    Copy one activation of the clean run into the corrupted one and score how much of the clean
    answer returns (1 = all of it). The residual stream at the second " John" restores it fully
    up to block 19; from block 24 the answer sits at the last position instead (0.92): between
    them, heads moved it.

    Head 23.3 restores 0.58 on its own, head 29.1 0.27 and head 20.0 0.22. In the clean run head
    23.3 lowers logit(" John") by 2.49: it finds the name that was already the subject and
    pushes it down, so the other name wins.

lesson-page-induction-causally = Induction, causally
lesson-page-induction-causally-text =
    Eleven words, then the same words again: at the second " copper" SmolLM2 predicts " velvet",
    the word that followed " copper" the first time. In the corrupted text the first " copper"
    is " stone", so nothing says what follows " copper".

    The residual sweep shows the path: the clean " copper" matters at its own position up to
    block 16, then at " velvet" in block 17 (0.53), then at the last position from block 18
    (0.74).

    Head 16.0 restores 0.44 on its own: it copies "the token before me was copper" onto "
    velvet". Head 18.6, an induction head, restores 0.18: from the last " copper" it finds the
    position whose previous token was " copper" and reads " velvet" there. The next page shows
    head 16.0 looking.

lesson-page-the-head-that-reads-the = The head that reads the token before
lesson-page-the-head-that-reads-the-text =
    Head 16.0 on the same words, from the first " velvet": 0.98 of its weight is on " copper",
    the token just before.

    Patching said this head matters; its attention says what it does. Pick other rows of the
    same head: most look one token back.
