## The Influence lab: logit lens, direct logit attribution, activation patching, attention against influence

## Section chips and the controls above every section

influence-section-lens = layer by layer (logit lens)
influence-section-attribution = who wrote the answer (attribution)
influence-section-patching = patching
influence-section-compare = attention vs influence
influence-waiting = waiting for the model…
# $model: the model's name
influence-no-output-layer = { $model } has no output layer (a sentence encoder): it predicts no tokens, so the lens, attribution and patching have nothing to score. Rollout and the raw attention are still shown under “attention vs influence”.
influence-no-stack = the pass has no stack
influence-empty-input = the input is empty: type a text in the box on the left
influence-no-logits = the model gives no logits
influence-answer-token = answer token A:
# Shown in the empty answer box: the model's own top prediction is used
influence-answer-hint = top guess
influence-contrast-token = against B:
influence-contrast-hint = none
influence-position-read = position read
# $position: a number; $token: the token's text
influence-position-last = { $position } “{ $token }” (last)
influence-token-help = Type a token with its leading space where the tokenizer has one (“ Paris”, not “Paris”); a text that is not one token is refused with how it splits.
influence-cancel = Cancel
influence-starting = starting…

## Words the sections share: grid axes and row names

# $block: a block's number
influence-block = block { $block }
# $layer, $head: numbers, as in "head 3.1"
influence-head = head { $layer }.{ $head }
influence-embedding = embedding
influence-rollout = rollout
influence-axis-block = block
influence-axis-head = head
influence-axis-key = key
influence-axis-position = position
influence-weight = weight
influence-effect = effect

## Layer by layer (logit lens)

influence-lens-intro = The logit lens reads the residual stream after each block as if it were the last: p = softmax(W_U · final_norm(resid[l])). Depth 0 is the embeddings; the last depth is the model's own output. Each cell is the top token there, shaded by its probability; hover for the five likeliest, click to follow a position.
# $depth, $total: numbers
influence-lens-reading = reading depth { $depth } of { $total }
influence-lens-depth = depth { $depth }
influence-lens-export-json = lens as JSON
influence-lens-export-csv = p(answer) by depth as CSV
# $token: a token's text; $depth, $from, $to: depths. Joined with commas into influence-lens-summary's $runs
influence-lens-run-one = “{ $token }” at depth { $depth }
influence-lens-run = “{ $token }” at depths { $from }–{ $to }
# $runs: a list of influence-lens-run
influence-lens-summary = At position { $position } (“{ $token }”) the top token is { $runs }.
# $p: a probability, written as 0.123
influence-lens-settles = “{ $token }” is the top token from depth { $depth } on; its probability at the output is { $p }.
influence-lens-never-settles = “{ $token }” is not the top token at the output; its probability at the output is { $p }.
# A cell's hover text, first line
influence-lens-cell = depth { $depth } · position { $position } “{ $token }”
influence-lens-cell-answer = answer token: p = { $p }
influence-lens-legend = p (top)
influence-lens-line-label = p(“{ $token }”) at position { $position }, depth by depth:
influence-lens-line-title = p(“{ $token }”) at position { $position }
influence-lens-line-x = depth
influence-lens-line-axis = depth (0 = embeddings)

## Who wrote the answer (attribution)

influence-attribution-intro = Direct logit attribution splits the answer's logit (or logit(A) − logit(B)) into what each part wrote into the residual stream: share(c) = (γ ⊙ c / σ) · (u_A − u_B), with the final norm's σ frozen at this run. Red pushed towards A, blue away.
influence-attribution-export-json = shares as JSON
influence-attribution-export-csv = heads and MLPs as CSV
# $what: a formula such as logit(“ Paris”) − logit(“ Rome”); $value, $sum: numbers written as 1.234
influence-attribution-total = At position { $position } (“{ $token }”): { $what } = { $value }; the shares add up to { $sum }.
# $parts: a list such as "head 3.1 +0.512, MLP 2 −0.300"
influence-attribution-largest = Largest contributors: { $parts }.
influence-attribution-share-of = share of { $what }
influence-attribution-share = share
influence-attribution-click = Click a head to see where it looks, in the Attention tab.
# $embed: a signed number; $biases: a list of named signed numbers
influence-attribution-rest = Not in the grid: the embedding { $embed }.
influence-attribution-rest-biases = Not in the grid: the embedding { $embed }; biases { $biases }.

## Patching

influence-patching-intro = Run the corrupted text, then copy one activation from the clean run into it and see how much of the clean answer comes back: score = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt), with LD = logit(A) − logit(B) at the last position. 1 restores the clean answer, 0 changes nothing.
influence-patching-clean = clean (the input on the left):
influence-patching-corrupted = corrupted:
influence-patching-copy = copy the clean text
influence-patching-both-tokens = Type both tokens: the clean answer A and the corrupted run's answer B (e.g. the two names).
influence-patching-type-corrupted = Type a corrupted text with as many tokens as the clean one (change a name, say).
influence-patching-same = The texts differ at no position.
# $positions: a list such as "5: “ Mary” → “ John”"
influence-patching-differ = The texts differ at { $positions }.
influence-patching-running = running…
influence-patching-run = run the sweep
influence-patching-press = Press “run the sweep” to patch every position of every block's input and every head.
# $seconds: written as 1.5
influence-patching-progress = { $done } of { $all } patches · { $seconds } s
influence-patching-done = All { $all } patches in { $seconds } s.
influence-patching-export-json = scores as JSON
influence-patching-export-resid = residual scores as CSV
influence-patching-export-heads = head scores as CSV
influence-patching-ld = LD clean { $clean } · LD corrupted { $corrupted }
influence-patching-resid-title = residual stream resid[block] at each position
influence-patching-heads-title = each head's output, every position
influence-patching-context = patching score (grey: not yet)
influence-patching-score = score
influence-patching-block-at = block { $block } at “{ $token }”
# $patches: a list of influence-patching-block-at, each with its score
influence-patching-best-resid = Best residual patches: { $patches }.
influence-patching-best-heads = Best heads: { $heads }.

## Attention vs influence

influence-compare-intro = A head can look hard at a token and change nothing, and a small weight can carry the answer. Here the same query's attention (how hard each head looks) stands beside what each head does to the answer.
influence-compare-export-json = comparison as JSON
influence-compare-export-csv = attention and rollout as CSV
influence-compare-mean-title = attention from “{ $token }”: mean over heads, and rollout
influence-compare-mean-context = weight from the query (last row: rollout)
influence-compare-strongest-title = each head's strongest weight (first token aside)
influence-compare-strongest-context = largest weight from the query on one token other than the first
# $what: one of influence-measure-*
influence-compare-effect-title = each head's { $what }
influence-effect-label = effect:
influence-effect-attribution = direct attribution
influence-effect-ablation = ablation (head off)
influence-effect-patching = patching score
influence-measure-attribution = attribution share
influence-measure-ablation = ablation effect
influence-measure-patching = patching score
# Looking against mattering, under the table: $what is one of influence-measure-*; $head is
# "layer.head"; $weight, $effect and $rho are numbers such as 0.86, +3.041, 0.16
influence-verdict-none = No { $what } is measured yet.
influence-verdict-looker = Head { $head } puts { $weight } of its weight on “{ $token }” (position { $position }) yet its { $what } is only { $effect }.
influence-verdict-strongest = Head { $head } has the largest { $what } ({ $effect }) with at most { $weight } on one token (“{ $token }”, position { $position }).
influence-verdict-correlation = Over { $heads } heads, how hard a head looks and how much it matters have rank correlation { $rho }.
influence-compare-no-output = This model has no output layer: no effect on an answer to compare with.
influence-compare-run-sweep-first = Run the sweep in the patching section first (its head scores are compared here).
influence-compare-ablation-needs-b = Ablation measures logit(A) − logit(B): type the contrast token B.
influence-compare-ablation-last = Ablation scores the answer at the last position: pick the last token as the query.
influence-compare-progress = head { $done } of { $all } · { $seconds } s
# $ld: a number written as 1.234
influence-compare-ld = With every head on, LD = { $ld }; an effect is LD with the head off minus that.
# $token: the first token's text
influence-sinks-none = No head puts half its weight or more on the first token (“{ $token }”) from this query.
influence-sinks = { $count } heads put half their weight or more on the first token (“{ $token }”): sinks. The value they read there is usually small, so the weight parked there adds little to the output.
influence-sinks-weight = weight on first
influence-sinks-norm-first = ‖v‖ of first
influence-sinks-norm-rest = mean ‖v‖ of the others
