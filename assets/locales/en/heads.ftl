## The heads lab ("Heads off"): switching attention heads off on the picked model, ranking
## them, and the translator trained with keys and values shared across query heads (KV heads).

heads-section-off = switch heads off
heads-section-kv = share keys and values (trained)
# Items of the export menu
heads-export-runs = runs as JSON
heads-export-ranking = ranking as JSON

## Switching heads off

heads-intro = Click a head to switch it off: its output is set to zero before the heads are concatenated and mixed by W_O, as if it were not there. The model's loss and accuracy change by what that head contributed.
heads-waiting = waiting for the model…
# $model is a model's name; $measure is heads-measure-task or heads-measure-text
heads-measured = { $model }, measured on { $measure }.
# $task is a task's name (copy, reverse, translate…), kept in English
heads-measure-task = { $examples } held-out examples of the { $task } task it was trained on
heads-measure-text = the text in the input box: { $predictions } next-token predictions
# $loss and $accuracy are numbers such as 0.031 and 99.1
heads-score = loss { $loss } nats · token accuracy { $accuracy } %
heads-score-exact = loss { $loss } nats · token accuracy { $accuracy } % · exact { $exact } %
# $score is heads-score or heads-score-exact
heads-all-on = All { $count } heads on: { $score }
# $loss and $accuracy are signed changes such as +0.123 and −4.5
heads-off = { $count ->
        [one] { $count } head
       *[other] { $count } heads
    } off: { $score } (loss { $loss }, accuracy { $accuracy } points)
heads-none-off = No head is off.
heads-all-on-button = all heads on
heads-ranked = ranked
heads-ranking = ranking…
heads-rank = rank every head
heads-stop = stop
# $time is a duration such as "40 s" or "3 min"
heads-rank-about = (switches each of the { $count } heads off alone, then removes them from the least important up: { $scores } scores, about { $time })
heads-progress = { $done } of { $total } scores
# Which attention a head belongs to, as in heads-describe
heads-kind-encoder = encoder
heads-kind-decoder = decoder self
heads-kind-cross = cross
# $kind is heads-kind-encoder, heads-kind-decoder or heads-kind-cross
heads-describe = { $kind } · layer { $layer } · head { $head }
heads-layer = layer { $layer }
heads-click-on = click to switch on
heads-click-off = click to switch off
# $head is heads-describe; $rise a signed number such as +0.123; $action is heads-click-on or heads-click-off
heads-hover-rise = { $head }: loss { $rise } without it; { $action }

## The ranking and the pruning curve

heads-matter-most = The heads that matter most
heads-rank-loss = loss { $rise }
# Short for "accuracy"; $change is a signed number of points such as −4.5
heads-rank-acc = acc { $change }
heads-negligible = { $negligible } of { $count } heads change the loss by less than 0.01 nats when switched off alone.
# $points is a whole number of percentage points
heads-removable = { $removable } of { $total } heads can be switched off together, least important first, with token accuracy within { $points } point of the full model's.
heads-removable-so-far = { $removable } of { $total } heads can be switched off together, least important first, with token accuracy within { $points } point of the full model's (so far).
heads-switch-those-off = switch those { $count } off
heads-plot-title = accuracy as heads are switched off
heads-plot-x-short = heads off
heads-plot-x = heads switched off, least important first
heads-plot-accuracy = token accuracy
heads-plot-exact = exact match
heads-plot-floor = full model − 1 point

## Keys and values shared across query heads

# $kind is heads-multi-query or heads-grouped-query
heads-shared = Shared keys and values: { $heads } query heads read { $kv } key/value { $kv ->
        [one] head
       *[other] heads
    } ({ $kind })
heads-multi-query = multi-query attention
heads-grouped-query = grouped-query attention, groups of { $group }
# $numbers and $all_numbers are counts with thousands separators; $size is e.g. "1.2 MB"
heads-kv-cache = KV cache per token and layer: 2 · { $kv } · { $d_head } = { $numbers } numbers, against 2 · { $heads } · { $d_head } = { $all_numbers } if every query head had its own ({ $group }× smaller; { $size } over { $layers } layers and { $tokens } tokens in f32).
heads-kv-heading = Sharing keys and values, trained
# $task is a task's name (translate), kept in English
heads-kv-intro = The { $task } model (4 query heads per attention, 2 + 2 layers) trained three times for { $steps } steps from the same seed: every query head with its own keys and values (multi-head), pairs of query heads sharing one (grouped-query), and all four sharing one (multi-query). The KV cache a decoder keeps per token shrinks with the key/value heads; see what the quality does.
# Written before the seed's number
heads-seed = seed
heads-seed-about = another seed gives other initial weights and examples: on a task this small the three differ by a few points either way, while the cache is 4× smaller
# A column of the runs' table
heads-kv-cache-column = KV cache per token
# $floats numbers per token, $bytes the same in bytes
heads-kv-floats = { $floats } floats ({ $bytes } B)

## How many heads: one width split into 1 … 32 heads, trained side by side
heads-section-count = how many heads (trained)
heads-count-heading = How many heads?
# $width is d_model (64), $steps the steps per run
heads-count-intro = The character model ({ $width } wide, 2 layers) trained six times for { $steps } steps from the same seed on the same text, with its width cut into 1, 2, 4, 8, 16 and 32 heads: d_k = { $width } / h. W_Q, W_K and W_V are { $width } × { $width } whatever h is, so every run has the same parameters and the same multiply-adds; only how the width is shared out changes. The held-out loss (lower is better) is measured on text none of them trained on.
heads-count-seed-about = another seed gives other initial weights and examples: the order of neighbouring counts can change, the far ends rarely do
# A column of the runs' table
heads-count-column = d_k · parameters · time
# $d_k the width of a head, $parameters the model's count, $seconds its training time
heads-count-shape = { $d_k } · { $parameters } · { $seconds } s
heads-count-axis = heads (h)
heads-count-loss-title = held-out loss after training, by heads
heads-count-time-title = seconds of training, by heads
# $best heads had the lowest held-out loss $loss; $one is one head's, $most_loss $most heads'
heads-count-verdict = Lowest held-out loss: { $best } heads ({ $loss }). One head ends at { $one }, { $most } heads at { $most_loss }. One head trained in { $fast } s, { $most } heads in { $slow } s.
heads-count-why = Too few heads: a head returns one weighted average per position, so a single head that wants two different characters blurs them into one mixture. Too many: at d_k = 2 a head compares tokens by two numbers only (q·k is a sum of two products), too few to tell many characters apart. The time grows although the multiply-adds do not, because each head is a separate thin product and a separate T × T softmax. The notes' table (translation, d_model = 512) has the same shape: best at 8 heads, worse at 1 and at 32.
