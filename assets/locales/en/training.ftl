## The Training lab (train a model with Glimpse's own backward pass), and the side-by-side training races of the Depth, Heads off and RNN labs (race-)

## The controls: task, model, learning rate, running

training-controls-header = Task, model and schedule
training-task-and-model = Task and model
training-task = task
training-positions = positions
# The layer norm's placement (pre or post)
training-norm = norm
training-heads = heads
training-layers = layers
training-dropout = dropout
training-dropout-hover = share of activations zeroed at random during training (never when evaluating)
# Before the seed's number
training-seed = seed
training-learning-rate = Learning rate
training-training = Training
training-start = ▶ Start
training-pause = ‖ Pause
training-step = Step
training-step-hover = one optimisation step
training-reset = Reset
training-reset-hover = back to the same initial weights (same seed)
training-speed = speed %
training-speed-thread-hover = share of each 100 ms the training thread works
training-speed-frames-hover = milliseconds of each frame spent training (of 100)
training-speed-capped-hover = milliseconds of each frame spent training: at most { $max } of every 100, so the page keeps drawing
training-step-count = step { $step }
training-starting = starting… (the worker evaluates the initial weights)
# Numbers already written out: $loss 1.2345, $lr 3.00e-3, $grad_norm 0.123
training-step-stats = loss { $loss } · lr { $lr } · grad norm { $grad_norm }
# $steps, $tokens: per second; $place: training-worker-thread or training-in-frames
training-speed-stats = { $steps } steps/s · { $tokens } tokens/s ({ $place })
training-worker-thread = worker thread
# $reason: what the browser said, or the training thread's panic
training-worker-crashed = the training worker stopped: { $reason }
training-in-frames = in frames
# $exact, $tokens: whole percentages
training-held-out-stats = held-out at step { $step }: exact { $exact }% · tokens { $tokens }%
# $ms of every $period milliseconds are spent training
training-eval-note = { $examples } held-out sequences every { $every } steps; speed { $ms } ms of every { $period }
training-schedule-cosine = cosine
training-schedule-constant = constant
training-schedule-cosine-hover = linear warmup, then cosine decay to peak/30 at step 3000
training-schedule-noam-hover = the original transformer: (1/√d) · min(1/√s, s/(w·√w)), scaled to the peak
training-schedule-constant-hover = the peak from the first step: no warmup
training-peak-lr = peak lr
training-warmup-steps = warmup steps
training-clip-norm = clip norm
training-clip-norm-hover = rescale the whole gradient when its norm is above this; 100 turns clipping off
training-schedule-title = learning-rate schedule
training-learning-rate-series = learning rate
training-step-axis = step

## A run's settings in words, for the legends: "cosine · warmup 200 · peak 3.0e-3 · clip 1 · pre-norm"

# $schedule: cosine, noam or constant; $warmup: training-warmup or training-no-warmup; $peak: 3.0e-3; $clip: training-clip or training-no-clipping; $norm: pre or post
training-describe = { $schedule } · { $warmup } · peak { $peak } · { $clip } · { $norm }-norm
training-clip = clip { $norm }
training-no-clipping = no clipping
training-warmup = warmup { $steps }
training-no-warmup = no warmup

## The view: curves and the probe input's attention

training-export-steps = loss per step as CSV
training-export-evals = evaluations as CSV
# $family: the model's kind (e.g. encoder–decoder); $task: the task's name
training-heading = Training: { $family } model on “{ $task }”
training-loss-title = training loss (cross-entropy per token)
training-this-run = this run
# $settings: training-describe of the run before
training-before = before: { $settings }
training-accuracy-title = held-out accuracy
training-exact-sequences = exact sequences
training-tokens = tokens
training-grad-norm-label = gradient norm before clipping (log₁₀), this run: { $settings }
training-grad-norm-title = gradient norm before clipping (log₁₀)
# $attention: the kind of attention shown (e.g. cross-attention)
training-probe-input = Probe input, { $attention } of the last layer:
training-head = head
training-probe-context = probe input · layer { $layer } · head { $head }
training-query = query
training-key = key
training-weight = weight

## Training races (two or more models trained side by side in a lab)

# $count: how many models
race-train-all = ▶ train all { $count }
race-what = { $count } models × { $steps } steps, the same seed and examples for each
race-trained = trained
race-pause = ‖ pause
race-go-on = ▶ go on
# $time: race-seconds or race-minutes
race-left = about { $time } left
race-seconds = { $seconds } s
race-minutes = { $minutes } min
race-loss-title = training loss (log₁₀, per token)
race-exact-title = held-out exact match
race-step = step
race-held-out-loss = held-out loss
race-tokens-right = tokens right
race-exact = exact
# The contenders of the key/value sharing race: $count is their number of key/value heads
race-kv-multi-query = 1 KV head (multi-query)
race-kv-multi-head = { $count } KV heads (multi-head)
race-kv-grouped = { $count } KV heads (grouped)
