## The contrastive lab: InfoNCE on a sentence encoder

contrastive-heading = Contrastive learning: InfoNCE
contrastive-intro = Each line is a pair: an anchor and its positive, a sentence that means the same. The picked model turns every sentence into a vector z (the mean of its last hidden states, scaled to length 1). Every anchor is compared with every pair's positive: its own is the right answer, the others are negatives. InfoNCE is the cross-entropy of that classification at temperature τ.
contrastive-pairs-label = pairs, one per line: anchor | positive
contrastive-hard-label = hard negative:
contrastive-hard-use = add it to every anchor's candidates
contrastive-tau = temperature τ
# $reason says why no model is there
contrastive-no-model = No model to embed with: { $reason }. Pick all-MiniLM-L6-v2 in the top bar.
contrastive-not-minilm = { $model } was not trained to embed sentences: its mean-pooled states are only a rough embedding. all-MiniLM-L6-v2 was trained with this very loss.
contrastive-embedding = embedding the sentences: { $done } of { $total }
contrastive-hard-short = hard
contrastive-axis-anchor = anchor
contrastive-axis-candidate = candidate
contrastive-similarity-title = s_ij = cos(anchor i, candidate j): the positives on the diagonal
# $tau is the temperature
contrastive-probability-title = softmax of each row of s / τ, τ = { $tau }: the classifier's answer
contrastive-p-positive = p(its positive)
contrastive-loss = loss −log p
contrastive-first = positive ranked first
contrastive-yes = yes
contrastive-no = no
# $uniform is log of the number of candidates
contrastive-summary = Mean InfoNCE loss { $mean } over { $candidates } candidates per anchor (a uniform guess would give log { $candidates } = { $uniform }); { $right } of { $anchors } anchors rank their positive first.
# $anchor is an anchor's number
contrastive-hard-effect = The hard negative raises the mean loss from { $before } to { $after }. Most for anchor { $anchor }: from { $from } to { $to } (+{ $rise }). A negative as similar as the positive competes in the denominator; training on it pushes the two apart.
contrastive-note = A smaller τ sharpens every row: the loss then rewards only a clear margin between the positive and the closest negative. With N pairs in a batch, every anchor gets N − 1 negatives for free: the batch's other positives.
contrastive-error-no-bar = line { $line } has no | between the anchor and its positive
contrastive-error-empty-side = line { $line } needs text on both sides of the |
contrastive-error-too-few = type at least two pairs: one anchor's negatives are the other pairs' positives
contrastive-error-too-many = { $count } pairs: at most { $max } fit on screen with every number
contrastive-error-no-output = the model gave no hidden states to pool
