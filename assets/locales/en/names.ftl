## Names the model layer gives: attention kinds, model families, positional schemes, the
## patterns a head is recognised by (with how each is measured, for hover texts)

names-encoder-self = encoder self-attention
names-decoder-self = decoder self-attention
names-cross = cross-attention
names-encoder-only = encoder-only
names-decoder-only = decoder-only
names-encoder-decoder = encoder–decoder
names-positional-none = none
names-positional-sinusoidal = sinusoidal
names-positional-learned = learned
names-positional-relative = relative bias
names-pattern-self = self / diagonal
names-pattern-previous = previous token
names-pattern-next = next token
names-pattern-first = first token
names-pattern-last = last token
names-pattern-same-word = own word
names-pattern-broad = broad
names-pattern-induction = induction-like
names-pattern-aligned = word alignment
names-pattern-self-explained = Average attention each query pays to its own position.
names-pattern-previous-explained = Average attention each query (from the second on) pays to the position right before it.
names-pattern-next-explained = Average attention each query (but the last) pays to the position right after it: only a model without the causal mask can have it.
names-pattern-first-explained = Average attention each query pays to the first key (in self-attention the first query is left out: in a causal model it can only see itself). BERT's [CLS], a decoder's <bos>.
names-pattern-last-explained = Average attention each query (but the last) pays to the last key: BERT's [SEP] closes every input.
names-pattern-same-word-explained = For each token of a word cut into several pieces (token ##ization), the attention it pays to the other pieces of that word, averaged.
names-pattern-broad-explained = Each row's entropy divided by the most it could be (log2 of its visible keys), averaged: 1 means attention spread evenly.
names-pattern-induction-explained = For each query whose token occurred earlier, the attention it pays to the token that followed that earlier occurrence, averaged.
names-pattern-aligned-explained = Cross-attention: the largest weight of each query's row, averaged, times the share of distinct source tokens those largest weights fall on. High when each target token reads mostly its own source token, wherever it stands: a word alignment, as when a translation reorders the words.

## The model layer's fixed sentences: a conversion's stages, why there is no GPU, why a lab cannot run

names-stage-reading = reading the files
names-stage-copying = copying the tensors out of the file
names-stage-tokenizer = building the tokenizer
names-stage-vocabulary = listing the vocabulary
names-stage-mapping = mapping the tensors onto the model
names-stage-assembling = putting the model together
names-stage-done = done
# $reason says why (names-no-webgpu, or the graphics driver's own words)
names-no-gpu = no GPU: { $reason }
names-no-webgpu = this browser does not offer WebGPU (navigator.gpu gave no adapter)
names-induction-needs-decoder = induction needs a decoder-only model: it predicts each next token from the ones before it
names-waiting-for-pass = waiting for the forward pass of the input
