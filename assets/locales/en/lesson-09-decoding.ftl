## Lesson 9: Decoding

lesson-decoding = Decoding

lesson-page-greedy-decoding = Greedy decoding
lesson-page-greedy-decoding-text =
    Generation picks one token at a time. Greedy decoding takes the most likely token at each
    step and never looks back: it is myopic.

    The lab runs a small typed table of next-token probabilities with beam width 1, which is
    greedy. Step through it with the buttons or the → key.

lesson-page-beam-search = Beam search
lesson-page-beam-search-text =
    Beam search keeps the B best partial sentences. At each step it expands every one, scores
    each child by its cumulative log-probability Σ log p, and keeps the best B; finished
    hypotheses are set aside.

    With B = 2 on the same table, a less likely first word leads to a likelier whole sentence,
    which greedy decoding misses.

    Long hypotheses collect more negative terms, so scores are often normalised: the score
    divided by the length L raised to the power α (α = 0 leaves it as it is, α = 1 averages per
    token). Try the α slider.

lesson-page-beam-search-on-a-real = Beam search on a real model
lesson-page-beam-search-on-a-real-text =
    Now the probabilities come from the translation model. Click a node of the tree to see the
    attention behind that hypothesis.

    Past keys and values never change, so a decoder caches them: each new step attends over the
    cache in O(t·d), besides the O(d²) of projecting its own token and its feed-forward layer,
    instead of recomputing the whole prefix.

lesson-page-sampling-temperature-top-k-top = Sampling: temperature, top-k, top-p
lesson-page-sampling-temperature-top-k-top-text =
    Run greedy decoding or beam search twice and you get the same text twice. Sampling picks
    each next token at random, in proportion to the model's probabilities, which gives varied
    text (and sometimes nonsense).

    Temperature divides the logits before the softmax: τ < 1 sharpens the distribution towards
    greedy, τ > 1 flattens it. Top-k keeps only the k likeliest tokens; top-p keeps the smallest
    set of likeliest tokens whose probabilities add up to at least p. What is kept is
    renormalised and sampled.

    The Sampling panel runs the character LM with a seed, so a sample can be reproduced: change
    its sampling temperature τ, k or p and compare.

lesson-page-the-kv-cache = The KV cache
lesson-page-the-kv-cache-text =
    At step t a decoder needs the keys and values of every earlier position, and they never
    change: under the causal mask a token's key and value depend only on the token itself and
    the ones before it (and, in an encoder–decoder, on the source, which stays fixed while
    decoding).

    So they are computed once and kept. Each new step then projects only the new token and
    attends over the cache: O(t·d) for the attention and O(d²) for its own projections and
    feed-forward layer, instead of recomputing the whole prefix, at the price of memory that
    grows with t. (The notes count a cached step as O(d), leaving out the attention over the t
    cached keys.)

    The KV cache panel decodes greedily twice, with and without the cache: the same tokens, and
    the work per step side by side.

lesson-page-greedy-and-beam-disagree-on = Greedy and beam disagree on English
lesson-page-greedy-and-beam-disagree-on-text =
    sotu-lm continues "The state of the Union is". Greedy decoding takes " the", its likeliest
    next token, and its 12 tokens begin " the only sure foundation for the future." Beam search
    with B = 3 keeps sentences that start with " a", and its 12 tokens begin " a subject of great
    importance."

    Counting all 12 tokens of each, the beam's continuation has log-probability −15.4, and
    greedy's has −23.2.
    Greedy's first step was the better word, but it led to a worse sentence. Step through the
    tree and watch the lead change.

    Length normalisation (α) changes nothing here. Every hypothesis runs to the 12-token limit,
    because a model of whole speeches rarely ends one. α matters when hypotheses end at
    different lengths, as on the translation model.

    Open the Sampling panel below the tree: it now samples sotu-lm. Each seed gives a different
    continuation of the same prompt, most of them plausible State of the Union prose. Change τ,
    k or p and compare.

lesson-page-length-normalisation-on-a-real = Length normalisation on a real model
lesson-page-length-normalisation-on-a-real-text =
    SmolLM2-135M-Instruct answers "Name a colour." in its chat format, and a hypothesis ends
    when it writes <|im_end|>. With B = 3 and α = 0 the search prefers the short answer "A
    colour is a color." (log p −8.64): every extra token costs log-probability, so short
    hypotheses win.

    This page sets α = 1, which divides each score by the length. Now "The colour I'm referring
    to is a shade of blue," wins with 12 tokens (log p −13.72, score −1.14). It has not ended:
    the search stops at 12 tokens, and a hypothesis cut there competes with the finished ones on
    the same score. Step through the tree, then move the α slider back to 0 and run it again.

    Greedy decoding picks neither: "The colour I'm referring to is a rare and precious mineral".
    A 135-million-parameter model is fluent, not always sensible.
