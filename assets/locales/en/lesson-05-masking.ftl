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
