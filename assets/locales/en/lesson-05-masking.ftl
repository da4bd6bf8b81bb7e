## Lesson 5: Masking

lesson-masking = Masking

lesson-page-the-causal-mask = The causal mask
lesson-page-the-causal-mask-text =
    A decoder predicts token i+1 from tokens up to i, so it must not see the future. Add M to
    the scores before the softmax: M_ij = 0 if j ≤ i, else −∞.

    exp(−∞) = 0, so every weight above the diagonal is exactly zero and each row still sums to 1
    over the visible keys.

    Switch between the mask modes on the right; the model is the translation model's decoder,
    running live.

lesson-page-padding-in-a-batch = Padding in a batch
lesson-page-padding-in-a-batch-text =
    Sentences in a batch have different lengths, so the short ones are filled with <pad>. A
    padding mask P blocks those keys for every query.

    Both masks add up: softmax(E + M + P). Without P, real tokens would spend weight on padding
    and their outputs would change with the batch.

lesson-page-teacher-forcing = Teacher forcing
lesson-page-teacher-forcing-text =
    In training the decoder input is the target shifted right, with <bos> first: position i
    reads the true tokens before it and predicts token i.

    Thanks to the causal mask every position trains in one parallel pass; no token can read its
    own answer.

    At inference the model reads its own guesses instead. It never saw its mistakes in training,
    so one error can lead to more: exposure bias.

lesson-page-exposure-bias-measured = Exposure bias, measured
lesson-page-exposure-bias-measured-text =
    The end of this section measures exposure bias on the repeat model, trained teacher-forced
    to repeat a random sequence of letters, over 300 held-out sequences.

    Teacher-forced, reading the true prefix, it gets 2.1 % of the answer tokens wrong.
    Decoding freely, reading its own outputs, it gets 13.6 % wrong. While its own prefix is
    still right it is the teacher-forced one, so the gap opens only after a first mistake: after
    one, 94.3 % of the following tokens are wrong. It copies from the place its wrong token
    points to, and each error brings the next.

    248 of the 300 answers come out entirely right.
