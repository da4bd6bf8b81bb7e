## The vision tab: a small Vision Transformer trained here, its patches and attention, and
## the ViT arithmetic for any image size.

vision-intro = A Vision Transformer reads an image as tokens: it cuts the image into P × P patches, flattens each patch's pixels into a vector, embeds it linearly (e = x W_E + b_E), puts a learned class token [CLS] in front, adds a learned position to every token, and runs encoder blocks in which every token attends to every other. The answer is read from the class token's last vector. Here the image is 16 × 16 pixels in 4 × 4 patches: 16 patch tokens and the class token, each 32 wide, 2 layers of 4 heads.
vision-train-heading = Train the model
vision-task-larger = which square is larger
vision-task-count = count the squares
vision-task-larger-about = Two squares of different sizes anywhere in the image: is the larger one left or right of the smaller? The answer depends on two places at once, so the class token has to gather both.
vision-task-count-about = One to four small squares anywhere: how many? The class token has to spread its attention over every square.
vision-train-start = train
# $steps the steps of a run, $parameters the model's count
vision-train-what = { $steps } steps of 32 generated images each, AdamW; { $parameters } parameters
vision-train-untrained = Not trained yet: the attention below is a fresh model's, from its random initial weights.
vision-train-loss = training loss (cross-entropy, means of 20 steps)
vision-train-accuracy = held-out accuracy (200 images)
# $accuracy a percentage
vision-train-done = After { $steps } steps: { $accuracy } % right on { $images } held-out images it never trained on ({ $seconds } s of training here).
vision-image-heading = An image, its patches and their attention
vision-gallery = pick an image:
vision-gallery-image = { $index }
vision-draw = draw
vision-clear = clear
vision-layer = layer
vision-head = head
vision-head-mean = mean
vision-query = query
vision-query-hint = Click a patch of the image to see its attention; the class token's is where the answer is read from. In drawing mode a click toggles a pixel.
vision-class-token = class token [CLS]
vision-patch = patch { $patch }
vision-image-caption = the image in 4 × 4 patches
vision-image-name = the image, 16 × 16 pixels in 4 × 4 patches; click a patch to make it the query
vision-image-name-drawing = the image, 16 × 16 pixels, in drawing mode: click to toggle a pixel
# $query is "class token [CLS]" or "patch 5"
vision-soft-caption = soft: { $query }'s weights
vision-hard-caption = hard: one patch drawn by those weights
# $kind is soft or hard
vision-weights-name = { $kind } attention of { $query } over the 16 patches
vision-weight-item = patch { $patch } { $weight }
vision-weights-words = { $query } puts most weight on { $top }; on the class token { $itself }.
vision-hard-again = draw again
# $u the uniform number drawn
vision-hard-class = This draw (u = { $u }) landed on the class token itself.
vision-hard-patch = This draw (u = { $u }) took patch { $patch }, whose soft weight is { $weight }.
vision-hard-none = No draw: the weights are not usable.
vision-hard-about = Soft attention returns Σ weight × value over every token: a smooth function of the weights, trained by gradient descent. Hard attention, as in the captioning models the notes describe, reads one region, drawn with probability equal to its weight: each draw is one patch, the average over many draws equals the soft output, and training it needs sampling-based estimates of the gradient (REINFORCE) instead of backpropagation through the choice.
# $class is the class's name (left, right, 1, 2 …)
vision-answer = The model says: { $class } (p = { $p }).
vision-answer-truth = { " " }The answer: { $class }.
vision-vectors = What the encoder reads: { $patches } patches as vectors of { $pixels } pixels (left), then the class token and the patches embedded to { $d } numbers with their positions added (right; hover for values).
vision-axis-patch = patch
vision-axis-pixel = pixel
vision-axis-token = token
vision-axis-dimension = dimension
vision-arithmetic-heading = Patches for any image
vision-arithmetic-height = height
vision-arithmetic-width = width
vision-arithmetic-channels = channels
vision-arithmetic-patch = patch P
vision-arithmetic-notes = the notes' 224 × 224, P = 16
vision-arithmetic-result = { $down } × { $across } = { $patches } patches, { $tokens } tokens with the class token; each patch a { $patch } · { $patch } · { $channels } = { $numbers }-number vector before its embedding; every head scores { $pairs } token pairs.
vision-arithmetic-leftover = P does not divide the image: { $rows } row(s) and { $cols } column(s) of pixels ({ $pixels } pixels) fall outside the grid and are dropped.
vision-arithmetic-here = The model above: 16 × 16 × 1 in 4 × 4 patches, 16 patches and 17 tokens of 16 numbers each.
vision-cnn-heading = Self-attention inside a convolutional network
vision-cnn-intro = A convolutional network can use attention too, without patches. A 3 × 3 convolution turns the image into a feature map X of C channels, one vector per pixel. Three 1 × 1 convolutions (the same small matrix at every pixel) make Q = W_Q * X + b_Q, K = W_K * X + b_K and V = W_V * X + b_V with C′ channels each. Flattened to C′ × N, N = H · W pixels, every pixel scores every other, S = Q′ᵀK′ / √C′; A = softmax(S) row by row; O′ = V′Aᵀ is reshaped back to the image, a fourth 1 × 1 convolution returns it to C channels, O = W_O * O′ + b_O, and the residual adds the input, O_final = O + X. A convolution at a pixel sees its 3 × 3 window; one attention step sees the whole image.
vision-cnn-choice = 1 × 1 convolutions:
vision-cnn-ink = ink finds ink
vision-cnn-edges = edges find like edges
vision-cnn-random = random
vision-cnn-seed = seed
vision-cnn-scale = scale of W_Q and W_K
vision-cnn-query = query pixel
vision-cnn-hint = Click a pixel of the left image to make it the query. "Ink finds ink": Q and K read the ink channel, so a pixel on a square matches every inked pixel alike, near or far. "Edges find like edges": they read the two edge channels, so a top edge matches top edges and avoids bottom edges. "Random": an untrained network's. The scale multiplies W_Q and W_K: the scores grow as its square, and at 0 every pixel weighs all N alike.
# $row and $column count from 0
vision-cnn-pixel = row { $row }, column { $column }
vision-cnn-image-caption = the image; the 3 × 3 window a convolution sees
vision-cnn-image-name = the image, 16 × 16 pixels; the query pixel { $pixel } is outlined inside the 3 × 3 window a convolution there sees; click a pixel to make it the query
vision-cnn-weights-caption = { $pixel }: its weights over all pixels
vision-cnn-weights-name = attention of the pixel at { $pixel } over the 256 pixels of the image
vision-cnn-legend = weight
vision-cnn-words = The pixel at { $pixel } puts { $beyond } of its weight outside its 3 × 3 window, where a convolution there cannot see. Its largest weight, { $weight }, is on { $top }; spread evenly, each pixel would get { $uniform }.
vision-cnn-shapes = Shapes: X is { $c } × { $h } × { $w }; Q, K and V are { $reduced } × { $h } × { $w }, flattened to { $reduced } × { $n } (N = { $h } · { $w } = { $n }); S and A are { $n } × { $n } = { $scores } numbers; O′ is { $reduced } × { $n }, reshaped to { $reduced } × { $h } × { $w }; O and O_final are { $c } × { $h } × { $w } again. The four 1 × 1 convolutions hold { $parameters } numbers at any image size, while S grows as N².
vision-cnn-features = The feature map X (the 3 × 3 convolution's four channels):
vision-cnn-output = After the block, O_final = O + X (ink and surround gain what each pixel gathered):
vision-cnn-channel-ink = ink
vision-cnn-channel-surround = surround (3 × 3 mean)
vision-cnn-channel-top = top edge + / bottom −
vision-cnn-channel-left = left edge + / right −
