## The depth lab: the residual stream and the gradients through N blocks, pre-norm beside
## post-norm, at initialisation and trained side by side. ‖x‖ is the length of a vector.

depth-section-init = at initialisation
depth-section-trained = trained side by side
# An item of the export menu
depth-export-data = data as JSON
# The two places the LayerNorm can go, as named in plots' legends
depth-pre-norm = pre-norm
depth-post-norm = post-norm
# A plot's x axis and its name in plot summaries: a block's number
depth-block = block
# Written before the seed's number
depth-seed = seed

## At initialisation

depth-intro = Stack N blocks and compare where the LayerNorm goes. Post-norm (the original transformer) normalises the stream after each sub-layer: x ← LN(x + F(x)). Pre-norm (most models today) normalises only what each sub-layer reads: x ← x + F(LN(x)), so the stream is a running sum and the gradient has a path through every residual connection untouched.
depth-blocks-n = blocks N
# $exponent is 2N; $paths is 2 to that power, with thousands separators
depth-paths = Paths: each block has two residual connections, and at each one a path goes through the sub-layer or around it: 2^(2N) = 2^{ $exponent } = { $paths } paths from input to output (the notes' 2¹² = 4,096 is the original encoder: 6 blocks of 2 sub-layers).
# $task is a task's name (copy, reverse…), kept in English
depth-fresh = Fresh, untrained models of the { $task } task (d = 32, 4 heads), the same seed and examples for both placements.
depth-stream-heading = ‖x‖ of the residual stream entering each block (then leaving the last)
depth-gradients-heading = Gradient norm of each block's parameters at initialisation
depth-block-nearest = block (0 = nearest the input)
# A plot's title in its summary; $quantity is a formula such as ‖x‖
depth-by-block = { $quantity } by block
# Every variable is a number such as 0.12 or 5.6
depth-summary = Post-norm: ‖x‖ is back at √d after every block; the gradient is { $post_last } at the block nearest the output and { $post_first } at the first. Pre-norm: ‖x‖ grows from { $stream_first } to { $stream_last }; the gradient is { $pre_first } at the first block and { $pre_last } at the last.
# $model is a model's name, $norm is depth-pre-norm or depth-post-norm, $d its width
depth-picked = { $model } ({ $norm }, trained, { $blocks } blocks, d = { $d }): ‖x‖ entering each block on the input
depth-picked-stream = ‖x‖ of the picked model's stream

## Trained side by side

depth-trained-heading = Trained side by side
# $task is a task's name (reverse), kept in English
depth-trained-intro = The same { $task }-task model (d = 32, 4 heads, encoder and decoder of N blocks each), once pre-norm and once post-norm, trained for { $steps } steps from the same seed on the same examples. Two blocks train either way; at six, post-norm without warmup stalls while pre-norm does not. Turn warmup on (the learning rate climbing over the first 200 steps) and post-norm trains again.
depth-blocks = blocks
depth-warmup = warmup (200 steps)
# A column of the runs' table: the stream's length at the first block and at the last
depth-growth-column = ‖x‖ first → last block
depth-trained-stream-heading = ‖x‖ of the trained decoders' stream, entering each block (then leaving the last)
depth-trained-stream = ‖x‖ of the trained decoders' stream
