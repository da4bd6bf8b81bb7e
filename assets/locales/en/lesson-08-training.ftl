## Lesson 8: Training

lesson-training = Training

lesson-page-cross-entropy-and-teacher-forcing = Cross-entropy and teacher forcing
lesson-page-cross-entropy-and-teacher-forcing-text =
    A model learns from the probability it gives the right next token. The loss of one position
    is −log p(label): 0 when the model is sure and right, large when it is sure and wrong.
    Training minimises the mean over every target position of every example.

    Under teacher forcing the decoder reads the true answer shifted one step right, so all
    positions are trained in one pass; the causal mask keeps each from seeing its own label.

    Press ▶ Start: this is a fresh encoder–decoder learning to reverse letters, trained by
    Glimpse's own backward pass. Watch the loss fall and the cross-attention below turn into an
    anti-diagonal: output i looks at input n−1−i.

lesson-page-warmup-and-clipping = Warmup and clipping
lesson-page-warmup-and-clipping-text =
    Early gradients are large and noisy, and Adam's running averages are not yet reliable, so
    the learning rate starts small and warms up. The original transformer used, at step s with
    w warmup steps,

    $$warmup$$

    a linear rise for w steps, then decay as 1/√s.

    This lab warms up linearly over 200 steps to 3·10⁻³, then decays along a cosine: the curve
    under “Learning rate”. Choose Noam's schedule or a constant rate there, or change the peak
    and the warmup; the status line under Start shows the rate of the last step.

    Gradient clipping rescales the whole gradient when its norm exceeds 1 (the clip slider), so
    one bad batch cannot throw the weights far. The gradient norm plot shows the norm before
    clipping: press ▶ Start and watch it spike early and settle.

lesson-page-another-task-another-pattern = Another task, another pattern
lesson-page-another-task-another-pattern-text =
    The same model and loss learn whatever the data asks. On sorting, each output must find the
    next-smallest input wherever it is, and the cross-attention learns that instead of a
    diagonal.

    Change the task, the positional scheme or the width in the lab's controls and press ▶ Start:
    the held-out accuracy says whether the model generalises to inputs it never saw.

lesson-page-without-warmup = Without warmup
lesson-page-without-warmup-text =
    The notes say a transformer trained at a high rate without warmup lags or diverges. Try it:
    this page sets the peak rate to 3·10⁻², ten times the lab's default, with no warmup. Press
    Start.

    After 600 steps this run's loss is still 1.76 (the mean of the last 50 steps) and it
    reverses no held-out sequence: the first large steps threw the weights somewhere it has not
    recovered from in 600 steps.

    Now drag the warmup to 200 steps, which starts a new run, and press Start again: the old
    curves stay on the plots. With warmup the same peak rate reaches a loss of 0.31 after 600
    steps and 72 % of sequences exactly right. The largest gradient norm falls from 36.1 to
    12.1.

    At the default peak of 3·10⁻³ this small model learns as well without warmup as with it:
    warmup matters when the rate is high or the model deep.

lesson-page-pre-training-by-filling-blanks = Pre-training by filling blanks
lesson-page-pre-training-by-filling-blanks-text =
    A decoder learns from plain text by predicting each next token from the ones before it. BERT
    learns from the same kind of text another way, masked-language modelling: choose 15 % of the
    positions and predict the original token at each from everything around it, on both sides.
    Of the chosen positions 80 % are replaced by <mask>, 10 % by a random token and 10 % are
    left as they were, so the model cannot assume that only <mask> needs thought. The loss is
    the cross-entropy at the chosen positions only: the mean over the chosen positions i of
    −log p(x_i | the corrupted window).

    sotu-mlm is an encoder trained this way by Glimpse on the State of the Union addresses, with
    no causal mask: every token reads every other. It started from sotu-lm's weights (the same
    tokenizer, plus <mask>) and read 8.2 M tokens in 4,000 steps, 29 minutes on two cores.

    The lab fills the blank in “The <mask> of the Union is strong.”: “ state” comes first with p
    = 0.49. Write your own sentence with <mask> for any word, or several of them: every blank is
    filled from the same single pass.

    Its training recipe's test on held-out speeches (2008–2026; the figures ship with the model,
    and the command glimpse train-lm reproduces them) ranks the hidden token first 41 % of the
    time. Its perplexity on the hidden tokens is 23.8, against 145.5 for a Kneser–Ney bigram
    that sees only the left neighbour and 950.6 for word frequencies alone.

lesson-page-the-blank-reads-both-ways = The blank reads both ways
lesson-page-the-blank-reads-both-ways-text =
    The same sentence in the explorer, at the row of <mask> (query 1). In layer 3, head 1 the
    blank puts 0.99 of its attention on “ Union”, three tokens to its right: the word that makes
    “state” likely comes after the blank. A decoder could not read it; its causal mask sets
    every weight to the right of the query to exactly 0.

    Try the other heads (All heads shows every one at once), or change the sentence in the input
    panel and keep a <mask> in it: some heads read to the left, some to the right, and the
    candidates come from both.

lesson-page-training-memory-at-l-512 = Training memory at L = 512
lesson-page-training-memory-at-l-512-text =
    The notes' memory table for one training step of the base model at L = 512, with a batch of
    32: attention matrices 4.0 GB, activations 1.2 GB, parameters 0.25 GB, gradients 0.25 GB and
    Adam's moments 0.5 GB, about 6.2 GB in all.

    The table at the foot of this tab computes each row from the formula the notes print beside
    it. Parameters, gradients and Adam's two moments agree. Two rows do not. B·N·h·L²·4 bytes is
    1.61 GB, not 4.0: the formula counts one stack of N layers, and counting every attention
    layer of the encoder–decoder (3N of them) gives 4.83 GB. B·N·L·D·4 bytes is 0.20 GB, not 1.2:
    the formula keeps one L × D tensor a layer, and a backward pass needs several.

    Double L: the attention rows grow four times, the activations twice, the rest not at all.

lesson-page-how-many-heads = How many heads?
lesson-page-how-many-heads-text =
    The notes give an ablation credited to Attention Is All You Need: d_model = 512 cut into 1,
    2, 4, 8, 16 or 32 heads, the quality rising up to 8 heads and falling after, while the
    parameters and the multiply-adds stay the same: d_k = d_model / h shrinks as h grows. The
    paper's own table has no 2-head run and a flatter top: 1 head is 0.9 BLEU behind the best,
    16 heads tie 8 at 25.8, and 32 heads lose 0.4. Both put the best in the middle of the range,
    but in the paper the losses at either end are small.

    This tab runs that experiment on Glimpse's character model, 64 wide: six runs of 500 steps
    from the same seed, one per head count, trained here one after another (a few minutes). With
    seed 1 the held-out loss is 1.86 with one head, 1.79 with four and 2.00 with thirty-two,
    whose heads each compare characters by only d_k = 64 / 32 = 2 numbers. The thirty-two heads
    also train more slowly than the one, for the same multiply-adds.

    Try seed 2: the middle of the range still wins, by a little more or less.
