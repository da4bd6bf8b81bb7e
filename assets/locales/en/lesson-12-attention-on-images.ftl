## Lesson 12: Attention on images

lesson-attention-on-images = Attention on images

lesson-page-an-image-as-tokens = An image as tokens
lesson-page-an-image-as-tokens-text =
    Attention needs tokens, and an image has pixels. A Vision Transformer makes tokens of
    squares: it cuts the image into P × P patches, lays each patch's pixels out as one vector and
    maps that vector linearly to d numbers, as a word's embedding would be. A learned class token
    goes in front, and every token gets a learned position.

    The notes' image is 224 × 224 with three colours, in 16 × 16 patches: 14 × 14 = 196 patches,
    197 tokens with the class token, each patch 16 · 16 · 3 = 768 numbers. Every head then scores
    38,809 pairs. Change the sizes at the foot of the tab and watch the counts, and what is
    dropped when P does not divide the image.

    The model on this tab is much smaller: 16 × 16 grey images in 4 × 4 patches, 17 tokens.
    Below the image are its 16 patch vectors and the 17 tokens the encoder reads.

lesson-page-where-the-class-token-looks = Where the class token looks
lesson-page-where-the-class-token-looks-text =
    The page trains the model on "is the larger square left or right of the smaller?": a fresh
    image of two squares at every step, 32 a step. The answer needs two places at once, and only
    the class token's last vector is read, so it has to gather both squares through attention.

    With seed 1, after 1,600 steps (seconds here) it answers 97.5 % of 1,000 held-out images
    right. In its last layer the class token puts 1.00 of its weight, averaged over the heads, on
    the patches that hold a square, on each of the six images of the gallery. Pick a single head:
    some heads look at the small square, others at the large one.

    Before training, the same map is a fresh model's, spread almost evenly.

lesson-page-soft-and-hard-attention = Soft and hard attention
lesson-page-soft-and-hard-attention-text =
    The captioning models in the notes attend over image regions in two ways. Soft attention
    takes every region, weighted: the output is Σ weight × value, a smooth function that
    gradient descent can train. Hard attention takes one region, drawn at random with
    probability equal to its weight.

    The tab draws both from the same weights. Press "draw again": each draw takes one patch,
    usually one the soft map weights heavily, sometimes another. Averaged over many draws, hard
    attention gives the soft output; a single draw is what a hard model sees. No gradient flows
    through a random pick, so a hard model learns where to look from sampled estimates
    (REINFORCE); the rest of it, the image network and the decoder, still learns by
    backpropagation.

lesson-page-attention-inside-a-cnn = Attention inside a CNN
lesson-page-attention-inside-a-cnn-text =
    Attention needs no patches. A convolutional network's feature map already holds one vector
    per pixel, C channels at each of H × W places. A self-attention block inside the network
    makes queries, keys and values from it with 1 × 1 convolutions, which apply one small matrix
    at every pixel: each pixel becomes a token, and all N = H · W of them score each other.

    The section "Self-attention inside a convolutional network" does this on the tab's image: a
    3 × 3 convolution with four hand-set channels (ink, surround, two edges), then the block with
    C′ = 2. With "ink finds ink", the pixel at row 4, column 3, inside the large square, puts
    0.69 of its weight outside its own 3 × 3 window, and 0.14 of it on the small square in the
    other corner. A convolution reaches one pixel further per layer: 9 stacked 3 × 3
    convolutions would be needed to see that square from there. Switch to "edges find like
    edges" and click a pixel on a top edge: the top edges of both squares get far more of its
    weight than any bottom edge.

    The price is the N × N matrix: 256 × 256 = 65,536 scores for this 16 × 16 map, while the
    four 1 × 1 convolutions hold 42 numbers. On a 224 × 224 map it would be 50,176 × 50,176 =
    2,517,630,976 scores for every block, one reason a Vision Transformer makes tokens of patches
    rather than of pixels.
