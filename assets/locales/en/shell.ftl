## The frame around the labs: the top bar and its tabs

# This language's name, written in itself, as the top bar's language choice lists it.
language-name = English

shell-tab-lessons = Lessons
shell-lessons-about = guided lessons: read on the left, play with the lab on the right
shell-presenter = presenter (F)
shell-presenter-hover = large type for a projector
shell-keys = keys (?)
shell-keys-hover = every keyboard shortcut
# $theme is one of theme-dark, theme-light, theme-contrast
shell-theme = theme: { $theme }
shell-theme-hover = dark, light or high contrast (a link keeps it as theme=)
theme-dark = dark
theme-light = light
theme-contrast = contrast
shell-language = language: { $language }
shell-language-hover = the language of the app and its lessons (a link keeps it as lang=)
shell-open = Open…
shell-open-hover = open your own model: files, a folder, a hub name or a URL
shell-dismiss = dismiss

## The labs' tabs, and the line beside them for labs with their own models

tab-attention = Attention
tab-scoring = Scoring
tab-softmax = Softmax
tab-masking = Masking
tab-positions = Positions
tab-heads = Heads off
tab-depth = Depth
tab-training = Training
tab-decoding = Decoding
tab-cost = Cost
tab-rnn = RNN
tab-contrastive = Contrastive
tab-vision = Vision
tab-induction = Induction
tab-influence = Influence
tab-cost-about = what attention, recurrence and convolution cost: work, steps, memory, parameters
tab-decoding-about = beam search as a tree, one step at a time; greedy, sampling and the KV cache
tab-induction-about = random words read twice: the loss drops on the repeat and the copying heads show
tab-positions-about = every positional scheme, drawn with the functions the model runs, on models trained with it
tab-rnn-about = why attention: a GRU translator with one context vector against one with additive attention
tab-softmax-about = softmax by hand: type scores or small Q, K, V and see every step
tab-vision-about = a small Vision Transformer trained here: patches, the class token's attention, soft and hard
tab-training-about = train a model with Glimpse's own backward pass and watch its attention form
