## The Scoring lab: one query scored against its keys four ways, the softmax temperature, and
## why scaled dot-product attention divides by √d_k

scoring-title = Scoring and scaling
scoring-no-model = Load a model and type some text to score one of its queries.
# $query: the query token's text; $keys: how many keys; $source: where they come from
# (scoring-source).
scoring-caption = Query “{ $query }” against { $keys } keys: { $source }
# $selection: the selected layer, head and attention ("layer 1 · head 2 · cross-attention");
# $query: the query's position; $token: its text.
scoring-source = { $selection }, query { $query } “{ $token }”
scoring-query-picker = query:
# Export menu entry: the table of scores as a JSON file.
scoring-export-scores-json = scores as JSON
scoring-no-keys = There are no keys to score: type some text.
scoring-zero-width = This head has width 0: there is nothing to score.
# $query: the query's width; $key: each key's width.
scoring-width-mismatch = The query has { $query } numbers but each key has { $key }: they cannot be scored together.
scoring-not-finite = The query or the keys hold NaN or infinite values, so there is nothing meaningful to score or plot.
# A key without a label.
scoring-key-n = key { $key }
scoring-temperature = Temperature
scoring-temperature-needs = Needs a query and keys: load a model and type some text.

## The score table

# The four scorings, as column headings; the formulas stay as they are.
scoring-kind-dot = dot q·k
scoring-kind-scaled-dot = scaled dot q·k/√d
scoring-kind-bilinear = bilinear qᵀWk
scoring-kind-additive = additive vᵀtanh(Wq+Uk)
scoring-table-explain = The same query scored against the same keys four ways. The model itself uses scaled dot; the bilinear W and the additive W, U, v are random here (seeded, entries ~ N(0, 1/h)), so compare the shape of each scoring, not its values.
scoring-table-weight = weight: softmax of the column at τ = 1. Highlighted: the best-scoring key of each column.
scoring-new-params = new random W, U, v
scoring-new-params-hover = draw other bilinear and additive parameters
# Column headings, also the bar chart's axis and series names.
scoring-key = key
scoring-weight = weight

## The temperature view

scoring-temperature-title = Temperature: softmax(s/τ)
scoring-temperature-slider = temperature τ
scoring-temperature-hover = divide the scaled-dot scores by τ before the softmax
scoring-overflow = The scores overflowed to infinity or NaN: nothing to plot.
# $tau, $entropy, $max: numbers; $keys: how many keys (T).
scoring-entropy = entropy at τ = { $tau }: { $entropy } bits (0 = one-hot … log₂ { $keys } = { $max } = uniform)
scoring-temperature-explain = Small τ sharpens the weights to the argmax; large τ flattens them to uniform.
# The dashed line of equal weights in the bar chart.
scoring-uniform = uniform 1/T
scoring-weights-title = scaled-dot weights at this τ
scoring-entropy-plot-caption = entropy against τ (dashed: log₂ T, the uniform maximum)
scoring-entropy-plot-title = entropy against τ
scoring-current-log-tau = current log₁₀ τ
scoring-tau-axis = τ (log scale)
scoring-entropy-axis = entropy (bits)
scoring-entropy-series = entropy
scoring-current-tau = current τ
scoring-entropy-now = entropy now

## Why divide by √d_k

scoring-scaling-title = Why divide by √d_k
scoring-resample = resample
scoring-resample-hover = draw new q and k (a new seed)
# $done of $widths key widths measured so far.
scoring-measuring = measuring: { $done } of { $widths } widths
# $samples: how many draws; $seed: the seed.
scoring-variance-explain = { $samples } draws of q and k with i.i.d. N(0, 1) entries (seed { $seed }). q·k adds d_k products of variance 1, so its variance is d_k: wide heads would push the softmax towards one-hot with vanishing gradients. Dividing by √d_k holds it at 1.
# $width: the selected head's d_k; $root: its square root.
scoring-head-width = This head has d_k = { $width }, so the model divides its scores by √{ $width } = { $root }.
scoring-variance-title = variance of the scores against d_k
scoring-d-k-axis = d_k (log scale)
scoring-variance-axis = variance (log scale)
scoring-theory-raw = d_k (theory, raw)
scoring-theory-scaled = 1 (theory, scaled)
scoring-chosen-d-k = chosen d_k
scoring-chosen-log-d-k = chosen log₂ d_k
