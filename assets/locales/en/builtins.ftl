## The built-in models, as the model picker describes them (`builtin-<name>`)

builtin-translate = trained encoder–decoder on a toy French→English grammar: adjectives move before the noun and their order flips, so cross-attention is not diagonal
builtin-reverse = trained encoder–decoder that writes its input backwards: cross-attention is the anti-diagonal
builtin-reverse-nomask = the reverse task trained WITHOUT the decoder's causal mask: it learns to copy the next token from the visible future, so teacher-forced loss is ~0 yet generation fails (see the Masking tab)
builtin-extrap-sinusoidal = the reverse task with sinusoidal positions, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)
builtin-extrap-learned = the reverse task with a learned position table, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)
builtin-extrap-rope = the reverse task with RoPE, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)
builtin-extrap-alibi = the reverse task with ALiBi biases, trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)
builtin-extrap-relative = the reverse task with learned relative-position biases (clipped at distance 8), trained on 3–8 letters and able to take up to 18: how far does it extrapolate? (Positions tab)
builtin-copy = trained encoder–decoder that copies its input: cross-attention is the diagonal
builtin-sort = trained encoder–decoder that sorts letters: each output step looks up the next-smallest letter
builtin-repeat = trained decoder-only model on repeated random sequences: a previous-token head in layer 0 and an induction head in layer 1
builtin-sotu-lm = an English language model trained by Glimpse on the State of the Union addresses (1790–2007): 4 layers, 4 heads, d=192, RoPE, byte-level BPE of 4,096 pieces; held-out perplexity 56.8
builtin-sotu-mlm = a masked-language encoder (BERT's task) trained by Glimpse on the State of the Union addresses from sotu-lm's weights: type <mask> for a word and it fills the blank from both sides; on held-out speeches it ranks the hidden token first 41 % of the time
builtin-lm = trained character-level language model on a short text written for Glimpse: each head looks back over earlier letters to guess the next
builtin-demo-decoder = character-level decoder-only (GPT-like): 2 layers, 4 heads sharing 2 key/value heads (GQA), RoPE, pre-norm; random weights
builtin-demo-encoder = character-level encoder-only (BERT-like): 2 layers, 4 heads, sinusoidal positions, post-norm; random weights
builtin-demo-translate = word-level encoder–decoder (the original transformer): 2+2 layers, 4 heads, learned positions, post-norm, cross-attention; random weights
