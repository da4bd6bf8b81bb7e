## The decoding lab: beam search as a tree, greedy decoding, sampling, the KV cache, and
## fill in the blank when the picked model is an encoder

decoding-export-candidates = candidates as JSON
decoding-export-tree = beam tree as JSON
decoding-heading-fill = Decoding: fill in the blank
decoding-heading = Decoding: beam search, greedy and sampling
decoding-intro = A model gives a probability for every next token. Greedy decoding takes the most likely one each time; beam search keeps the B best partial sentences (the beam) and can find a likelier whole sentence that starts with a less likely word.
# The two collapsible parts below the search.
decoding-part-sampling = Sampling
decoding-part-kv = KV cache

## Where the probabilities come from, and the search's settings

decoding-source-pick = Probabilities from:
decoding-source-translate = translation model
decoding-source-lm = character LM
decoding-source-table = typed table
# The model picked in the top bar.
decoding-source-picked = the picked model
decoding-translate-label = French sentence to translate:
decoding-lm-label = text for the LM to continue:
# $model: the picked model's name.
decoding-picked-label = text for { $model } to continue:
decoding-table-label = next-token table, one prefix per line (prefix -> token p, token p; a prefix without a line ends with <eos>):
decoding-beam-width = beam width
decoding-alpha = α (length normalisation)
decoding-max-length = max length
decoding-temperature = temperature
decoding-use-cache = use KV cache

## Stepping the search

decoding-reset = Reset
decoding-back = ◀ Back
decoding-step = Step ▶
decoding-pause = Pause
decoding-play = Play
decoding-run-to-end = Run to end
decoding-keys = keys: → step · ← back · space play/pause · Tab to a box, then arrows walk the tree
decoding-no-search = no search
# $ready of $of: the hypotheses of step $step whose pass is done.
decoding-computing-step = computing step { $step }: { $ready } of { $of } hypotheses scored
decoding-step-done = step { $step } of { $step } (done)
# $most: the longest the search may go.
decoding-step-of = step { $step } of at most { $most }
# $error: why the search stopped (written by the model or the table).
decoding-search-stopped = the search stopped: { $error }
decoding-room = The model has room for { $count } more tokens after this prompt.
decoding-tree-heading = The search tree
decoding-candidates-heading = This step's candidates
decoding-press-step = Press Step ▶ (or →) to expand the start.
decoding-ranking-heading = Final ranking
decoding-attention-heading = Attention of the selected hypothesis

## Why there is no search ($model: a model's name)

decoding-error-not-loaded = the model is not loaded yet
decoding-error-no-model = no model picked
decoding-error-table-model = a typed table has no model
decoding-error-encoder = { $model } is an encoder: it scores every token at once and predicts no next token; pick a decoder LM (SmolLM2, lm) in the top bar
decoding-error-unknown = { $count } piece(s) of the text are not in { $model }'s vocabulary
decoding-error-prompt-fills = the prompt fills all { $count } positions of the model

## The beam tree: a box per hypothesis, its hover text and its name for screen readers

decoding-state-live = live (in the beam)
decoding-state-expanded = expanded
decoding-state-finished = finished (ended with <eos> inside the beam)
decoding-state-stopped = stopped at the length limit
decoding-state-outscored = dropped at the end: a finished hypothesis already scores higher, and each further token could only lower this one's score
# $rank of $of: the hypothesis's place among the step's candidates.
decoding-state-pruned = pruned: ranked { $rank } of { $of }: below the beam
# The caption of the tree's first box.
decoding-node-start = start
# The lines of a box's hover text ($value: a number, already formatted).
decoding-hover-token = token { $token }
decoding-hover-log-p = log p { $value }
decoding-hover-cumulative = cumulative { $value }
decoding-hover-score = score { $value }
decoding-hover-length = length { $length }
decoding-hover-greedy = on the greedy path
# A box's name for screen readers. $id: the node's number; $token: its token; $state: one of the decoding-state- messages.
decoding-node-name = node { $id } { $token }: step { $step }, log p { $log_p }, cumulative { $cumulative }, { $state }
# The colour key under the tree.
decoding-legend-live = live
decoding-legend-expanded = expanded
decoding-legend-finished = finished
decoding-legend-stopped = stopped
decoding-legend-outscored = outscored
decoding-legend-pruned = pruned
decoding-legend-greedy = greedy path (orange)

## The candidates of a step, and the final ranking beside greedy decoding

# $width: the beam width; $alpha: the length normalisation, already formatted.
decoding-candidates-note = Step { $step }: every live hypothesis proposes its { $width } best next tokens; all are ranked by score = cumulative log p divided by L to the power α (L tokens, α = { $alpha }) and the best { $width } are kept.
decoding-col-rank = rank
decoding-col-hypothesis = hypothesis
decoding-col-log-p = log p (new token)
decoding-col-cumulative = cumulative
decoding-col-score = score
decoding-verdict-pruned = pruned
decoding-verdict-finished = kept · finished
decoding-verdict-stopped = kept · stopped at the length limit
decoding-verdict-kept = kept
decoding-ranking-beam = Beam search: finished hypotheses
decoding-ranking-best = best: { $hypothesis } (score { $score })
decoding-greedy-heading = Greedy decoding (the most likely token each step)
decoding-greedy-computing = greedy decoding: computing… ({ $count } tokens so far)
# $text: the tokens greedy decoding chose.
decoding-greedy-result = greedy decoding: { $text } (cumulative { $cumulative })
decoding-greedy-agree = Beam search and greedy agree here.
# $beam and $greedy: probabilities, already formatted.
decoding-greedy-beam-likelier = Beam search found a likelier sequence: p ≈ { $beam } against greedy's { $greedy }.
decoding-greedy-differ = They differ: the length penalty α changed which ending wins.
decoding-greedy-error = greedy: { $error }

## The attention behind the selected hypothesis

decoding-attention-table = A typed table has no attention: pick a model source to look inside.
decoding-attention-click = Click a node of the tree to see what the model attended to on the way there.
decoding-layer = layer
decoding-head = head
# $hypothesis: the selected hypothesis's text.
decoding-attention-run = The model run on “{ $hypothesis }”: the last row is the query that chose the next token.
# $kind: the kind of attention (decoder self-attention, cross-attention), as the model names it.
decoding-attention-context = { $kind } · layer { $layer } · head { $head }

## The KV cache: greedy decoding with and without it

decoding-kv-table = A typed table computes nothing: it has no keys and values to cache.
decoding-kv-intro = With the cache each step computes one new position and reuses the keys and values of the others; without it every step recomputes the whole prefix (quadratic total work). Both produce the same tokens.
# $cached and $plain: steps measured so far with the cache and without; $of: the most there can be.
decoding-kv-measuring = measuring… greedy steps with the cache { $cached } of at most { $of }, recomputed { $plain }
# $width: heads × d_head for one token.
decoding-kv-size = cache size = { $layers } layers × 2 (K and V) × positions × { $width } (heads × d_head) floats
decoding-kv-times = Times are totals so far. Both runs read the prompt in one pass at the first step; from the second on the cached run computes one new position and the recomputation all of them.
decoding-kv-same = Same tokens with and without the cache ({ $count } steps).
decoding-kv-different = The cached and recomputed runs chose different tokens.
# The table's headers, on two lines: "cached:" over "positions", then "total", "time so far".
decoding-kv-col-step = step
decoding-kv-col-token = token
decoding-kv-col-cached = cached:
decoding-kv-col-recomputed = recomputed:
decoding-kv-col-positions = positions
decoding-kv-col-total = total
decoding-kv-col-time = time so far
decoding-kv-col-size = cache size
decoding-kv-col-floats = (floats)
decoding-kv-plot-caption = positions computed so far, against step
decoding-kv-plot-title = positions computed so far
decoding-kv-plot-x = step
decoding-kv-with-cache = with the cache
decoding-kv-recomputing = recomputing

## Fill in the blank (the picked model is an encoder)

decoding-fill-intro = { $model } is an encoder: it reads the whole sentence at once, in both directions, and predicts no next token. Its pre-training task was to fill in blanks: hide a word behind the mask token and it proposes the words that fit, from the words on both sides.
decoding-fill-pick-decoder = Pick a decoder LM (SmolLM2, lm) in the top bar for beam search.
# $mask: the model's mask token, e.g. [MASK].
decoding-fill-sentence = sentence with { $mask }:
# $blank: the blank's number; $position: its token's position.
decoding-fill-blank = blank { $blank } (token { $position })

## Sampling

decoding-sampling-intro = Instead of keeping the best hypotheses, pick one next token at random from the renormalised candidates. The seed fixes the random draws: the same seed and settings always give the same text.
decoding-sample = sample
decoding-sampling-drawn = sampling… { $count } tokens drawn
decoding-seed = seed
decoding-sampling-temperature = sampling temperature
# $text: the sampled tokens.
decoding-sample-run = seed { $seed }: { $text }
# $draw: the uniform random number, already formatted.
decoding-sample-step = step { $step }: { $count } candidate(s) kept, uniform draw { $draw }
decoding-sample-more = … and { $count } more
# After a bar's percentage: this token was drawn.
decoding-sample-chosen = chosen
