## Lesson 4: Positional encodings

lesson-positional-encodings = Positional encodings

lesson-page-naive-positions = Naive positions
lesson-page-naive-positions-text =
    The simplest idea is to add the index t to the token's embedding. It is unbounded: position
    500 is a huge number next to embeddings of size about 1.

    Normalising to t/(N−1) keeps it in [0, 1] but stretches like a rubber band: one step means
    1/(N−1), so the same offset means different things in sentences of different length.

lesson-page-sinusoidal-encodings = Sinusoidal encodings
lesson-page-sinusoidal-encodings-text =
    $$sinusoidal$$

    Each pair is a point on the unit circle turning at its own speed, ω_k = 10000^(−2k/d). The
    wavelengths 2π·10000^(2k/d) run from 2π for the fastest pair to 2π·10000^((d−2)/d) for the
    slowest: about 35,300 positions at d = 32 (the translation model) and 47,100 at d = 64 (the
    lab's default). 2π·10000 ≈ 62,800 is only the limit as d grows.

    Down the dimensions, the pairs tick like the digits of an odometer, but smoothly: fast pairs
    change every step, while the slowest take tens of thousands of positions to come round once.

    The dot product of two encodings depends only on the offset o between them:

    $$sinusoidal-offset$$

    and PE(t+o) is PE(t) rotated by a matrix that depends only on o. It is defined for any t.

lesson-page-rope-rotate-queries-and-keys = RoPE: rotate queries and keys
lesson-page-rope-rotate-queries-and-keys-text =
    Rotary embeddings leave X alone and rotate q and k instead: pair p of dimensions (2p, 2p+1)
    of the vector at position i turns by the angle i·ω_p, with ω_p = 10000^(−2p/d), as the
    panel's sliders name them.

    Rotations keep norms and compose, so ⟨R(i)q, R(j)k⟩ = qᵀR(j−i)k: the score depends only on
    the offset j − i, not on where the pair sits.

    Type a few small vectors and positions in the panel and read the rotated vectors in its
    table.

lesson-page-longer-than-trained = Longer than trained
lesson-page-longer-than-trained-text =
    A learned table P has N_max rows of width d and nothing past them. Relative schemes score
    the offset i − j instead. T5 adds a learned number to each logit, one per head and bucket of
    offsets (the notes' a_{"{"}i−j{"}"}; buckets widen with distance). Transformer-XL adds the
    terms qᵢ·W_R r_{"{"}i−j{"}"} + u·kⱼ + v·W_R r_{"{"}i−j{"}"}: r is a fixed sinusoidal
    encoding of the offset, W_R a learned projection, u and v two learned vectors shared by
    every query. ALiBi subtracts a fixed slope times the distance.

    The panel runs models trained on short reversals with each scheme on longer inputs. Compare
    where each one's exact-match rate falls: positions it never saw, and offsets larger than any
    it learned.

lesson-page-a-band-on-the-unit-circle = A band on the unit circle
lesson-page-a-band-on-the-unit-circle-text =
    Take one band's sine on its own and two angles can hide behind one value: sin(π/6) and
    sin(5π/6) are both 0.5000. Add the band's cosine and each angle becomes a point (sin(ω_k t),
    cos(ω_k t)) on the unit circle; the two cosines, +0.8660 and −0.8660, put those angles on
    opposite sides.

    The page shows band 0, which turns by ω_0 = 1 rad per position. At position 2, sin 2 =
    0.9093. Within 0.05 of it, positions 20, 27 and 46 have the same sine; only 46, seven whole
    turns on (7·2π ≈ 43.98), is also nearly the same point (cos 46 = −0.432 against cos 2 =
    −0.416). The slower bands tell 2 and 46 apart.

    Move the position and the band, and watch which positions the sine alone confuses.

lesson-page-does-position-survive-depth = Does position survive depth?
lesson-page-does-position-survive-depth-text =
    A model with absolute positions (learned or sinusoidal) adds them once, at the bottom; a
    block's attention and feed-forward layer then write into the same residual stream. Is the
    position still there at the top? Here it is measured, not asserted: a linear probe fitted on
    the stream of 72 passages names the position of each token in 24 others.

    On all-MiniLM-L6-v2 (learned positions added at the bottom) the probe names 82.9 % of the
    positions exactly at the embeddings and 18.1 % after the sixth layer, against 3.1 % by
    chance; the positional share of the stream falls from 0.103 to 0.024. Position fades as the
    layers mix the tokens.

    Pick SmolLM2: RoPE adds no position vector, so the probe is near chance at the embeddings
    (2.3 %, chance 3.1 %), and attention writes some position in (at most 13.5 % exact). Pick
    reverse: a trained encoder whose task needs position keeps it, and its positional share
    grows with depth.
