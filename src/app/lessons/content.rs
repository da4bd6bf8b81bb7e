//! The lessons' text and, for each page, the link fragment that sets the labs up for it, in
//! the curriculum's order. A fragment is read like any link (`view=` names the lab shown
//! beside the text; `model=` opens a model on its example text at its most telling
//! attention; section keys are indices: `ps`, `ms` and `mm` as in `tests/fixtures/links.txt`).

use super::{Lesson, Page};

// The pages on real models (MiniLM and SmolLM2 are served beside the app and downloaded when
// the page opens; sotu-lm is a built-in).
const SELF_ATTENTION_GRID: &str = "view=attention&model=all-MiniLM-L6-v2&src=The%20animal%20didn't%20cross%20the%20street%20because%20it%20was%20too%20tired.&kind=enc&layer=0&head=2&xv=grid&q=0&step=0";
const COREFERENCE: &str = "view=attention&model=all-MiniLM-L6-v2&src=The%20animal%20didn't%20cross%20the%20street%20because%20it%20was%20too%20tired.&kind=enc&layer=3&head=1&xv=head&q=10&step=0";
/// The permutation panel on MiniLM, with the course notes' two sentences.
const WHO_BIT_WHOM: &str =
    "view=positions&ps=5&pm=real&pt=the%20dog%20bit%20the%20man&pr=the%20man%20bit%20the%20dog";
/// SmolLM2's induction-like head on prose where two names repeat, from the second " Herm".
const NAMES: &str = "view=attention&model=SmolLM2-135M-Instruct.Q4_1&src=The%20letter%20was%20from%20Hermione%20Granger%2C%20and%20the%20parcel%20was%20from%20Harry%20Potter.%20When%20Hermione%20Granger%20wrote%20again%2C%20Harry%20Potter%20answered.&kind=dec&layer=17&head=5&xv=head&q=18&step=0";
const BANK: &str = "view=attention&model=all-MiniLM-L6-v2&src=He%20sat%20on%20the%20bank%20of%20the%20river.&kind=enc&layer=0&head=4&xv=head&q=5&step=0";
const MULTI_HEAD_GRID: &str = "view=attention&model=sotu-lm&src=The%20animal%20didn't%20cross%20the%20street%20because%20it%20was%20too%20tired.&kind=dec&layer=1&head=1&xv=grid&q=0&step=0";
const PREVIOUS_TOKEN: &str = "view=attention&model=all-MiniLM-L6-v2&src=The%20tokenizer%20splits%20unbelievably%20long%20words%20into%20pieces.&kind=enc&layer=0&head=2&xv=head&q=6&step=0";
const INDUCTION: &str = "view=induction&model=SmolLM2-135M-Instruct.Q4_1&ilen=20&iseed=1";
const LENGTH_NORMALISATION: &str = "view=decoding&model=SmolLM2-135M-Instruct.Q4_1&ds=picked&dtext=%3C%7Cim_start%7C%3Euser%0AName%20a%20colour.%3C%7Cim_end%7C%3E%0A%3C%7Cim_start%7C%3Eassistant%0A&beam=3&alpha=1&maxlen=12";
/// The walkthrough at sotu-lm's output layer, on the last layer of the decoder.
const OUTPUT_LAYER: &str = "view=attention&model=sotu-lm&src=The%20state%20of%20the%20Union%20is&kind=dec&layer=3&head=0&xv=walk&q=5&step=14";
/// sotu-mlm fills the blank of a sentence from the speeches, then the same sentence in the
/// explorer at the blank's row, on the head that reads furthest to its right.
const FILL_BLANKS: &str = "view=decoding&model=sotu-mlm&ds=picked&fmask=The%20%3Cmask%3E%20of%20the%20Union%20is%20strong.";
const BLANK_READS: &str = "view=attention&model=sotu-mlm&src=The%20%3Cmask%3E%20of%20the%20Union%20is%20strong.&kind=enc&layer=3&head=1&xv=head&q=1&step=0";
const BEAM_ENGLISH: &str = "view=decoding&model=sotu-lm&ds=picked&dtext=The%20state%20of%20the%20Union%20is&beam=3&alpha=0&maxlen=12";

// The softmax lab on the notes' worked example, on its saturation example ([2, 1] × 10), and
// with small Q, K, V (query 1 scores the keys [0, 2, 1] after ÷√d_k).
const SOFTMAX_BY_HAND: &str = "view=softmax&smp=0&sme=0%2C%202%2C%201&sms=1";
const SOFTMAX_SATURATED: &str = "view=softmax&smp=0&sme=2%2C%201&sms=10";
const QKV_BY_HAND: &str = "view=softmax&smp=1&smt=0&smi=0&smj=1";
/// The training lab at a peak learning rate ten times its default, without warmup.
pub const WITHOUT_WARMUP: &str = "view=training&task=reverse&sch=cosine&lr=0.03&warm=0&clip=1";
/// The cost calculator at the notes' sentence-length example.
const COSTS: &str = "view=cost&cl=100&cd=512&ck=3&cff=2048&ch=8&cn=6&cb=1";

/// The notes' first worked example: scores ln 9 apart give weights 0.45, 0.45, 0.05, 0.05.
const ESTAMOS: &str = "view=softmax&smp=0&sme=2.1972%2C%202.1972%2C%200%2C%200&sms=1";
/// The notes' "[START] Big cat" under the causal mask: the translator's decoder on "big cat".
const START_BIG_CAT: &str =
    "view=masking&model=translate&src=le%20grand%20chat&tgt=big%20cat&kind=dec&ms=0&mm=1";
/// The sinusoidal panel at the notes' d = 4.
const SMALL_SINUSOIDAL: &str = "view=positions&ps=0&psd=4";
/// The RoPE panel's table holding the notes' "the dog slept".
const NOTES_ROPE: &str = "view=positions&ps=4&prt=notes";
/// The notes' "Je suis étudiant" beam search (B = 2) on their hand-made probabilities.
pub const JE_SUIS_TABLE: &str = "<bos> -> I 0.60, Me 0.30, … 0.10
<bos> I -> am 0.90, have 0.03, … 0.07
<bos> Me -> too 0.60, is 0.20, am 0.01, … 0.19
<bos> I am -> a 0.70, student 0.10, … 0.20
<bos> Me too -> ! 0.30, . 0.30, ? 0.20, … 0.20
<bos> I am a -> student 0.80, … 0.20
";
const JE_SUIS: &str = "view=decoding&ds=table&beam=2&alpha=0&dtext=%3Cbos%3E%20-%3E%20I%200.60%2C%20Me%200.30%2C%20%E2%80%A6%200.10%0A%3Cbos%3E%20I%20-%3E%20am%200.90%2C%20have%200.03%2C%20%E2%80%A6%200.07%0A%3Cbos%3E%20Me%20-%3E%20too%200.60%2C%20is%200.20%2C%20am%200.01%2C%20%E2%80%A6%200.19%0A%3Cbos%3E%20I%20am%20-%3E%20a%200.70%2C%20student%200.10%2C%20%E2%80%A6%200.20%0A%3Cbos%3E%20Me%20too%20-%3E%20%21%200.30%2C%20.%200.30%2C%20%3F%200.20%2C%20%E2%80%A6%200.20%0A%3Cbos%3E%20I%20am%20a%20-%3E%20student%200.80%2C%20%E2%80%A6%200.20%0A";

pub static LESSONS: &[Lesson] = &[
    Lesson {
        title: "Why attention",
        pages: &[
            Page {
                title: "The bottleneck",
                paragraphs: &[
                    "An RNN encoder–decoder reads the whole source sentence into one fixed-size \
                     vector and the decoder must produce every target word from it. Long \
                     sentences do not fit: this single context vector is the bottleneck.",
                    "Attention lets the decoder look back at every encoder state hᵢ at every \
                     step t. In the additive (Bahdanau) form the decoder state s_{t−1} scores \
                     each source position: e_{t,i} = vᵀ tanh(W s_{t−1} + U hᵢ).",
                    "The scores become weights a_{t,i} = softmax_i(e_{t,i}), which are positive \
                     and sum to 1, and the decoder reads the context c_t = Σᵢ a_{t,i} hᵢ: a \
                     fresh mixture of the source for every output word.",
                    "On the right is the cross-attention of a small trained translation model. \
                     Rows are target words (queries), columns are source words (keys); each \
                     row is one a_{t,·}. This model is a transformer: it scores with the scaled \
                     dot product qᵀk/√d_k of the next lesson, not with Bahdanau's additive \
                     form, but its weights are read the same way.",
                ],
                link: "view=attention&model=translate&kind=cross&xv=head&q=0&step=0",
            },
            Page {
                title: "Alignment nobody taught",
                paragraphs: &[
                    "The model was trained only to produce the English sentence; nobody told it \
                     which French word matches which English word. Yet the weights line up \
                     word with word: an alignment map.",
                    "A decoder row is the step that produces the next word, so each row looks \
                     at the source word it is about to translate. The row of \"the\", which \
                     must produce \"european\", reads \"européenne\"; the row of \"economic\", \
                     which must produce \"area\", reads \"zone\".",
                    "French puts the adjective after the noun: \"zone économique européenne\" \
                     becomes \"european economic area\". The lines cross where the word order \
                     differs.",
                    "Try other heads and layers with the controls in the left column, or type \
                     another sentence from the model's small vocabulary.",
                ],
                link: "view=attention&model=translate&kind=cross&xv=lines&q=0&step=0",
            },
            Page {
                title: "Ways to score a query against a key",
                paragraphs: &[
                    "Any function of a query q and a key k that returns a number can score. \
                     Luong's variants: dot qᵀk; general (bilinear) qᵀWk; concat (additive) \
                     vᵀ tanh(Wq + Uk). Transformers use the scaled dot product qᵀk/√d_k.",
                    "The table shows all four for one query of the translation model, each \
                     followed by its softmax. Dot products need q and k of the same width; the \
                     bilinear and additive forms have their own parameters (here drawn at \
                     random, since this model never learned them).",
                    "Pick another query word above the table and compare which key each \
                     scoring function prefers.",
                ],
                link: "view=scoring&model=translate&kind=cross&q=1&stau=1&dk=64",
            },
            Page {
                title: "The bottleneck, trained",
                paragraphs: &[
                    "Now the RNN itself. This page trains two small GRU encoder–decoders on \
                     the same toy translations, from the same seed: one passes the sentence to \
                     the decoder as the encoder's last state, a single vector of 8 numbers; the \
                     other scores every encoder state at every step with Bahdanau's additive \
                     attention, e = vᵀ tanh(W s_{t−1} + U hᵢ).",
                    "Natively, after 1,500 steps, both translate every 2-word phrase; at 7 \
                     words the fixed vector gets 4 of 39 held-out sentences right and attention \
                     32: the longer the sentence, the less fits through one vector.",
                    "Below the plots both translate \"je vois la voiture verte rapide .\": the \
                     fixed vector says \"i see the small car .\", attention \"i see the fast \
                     green car .\". Drag the decoder step t: each row of the map is one \
                     α_{t,·}; at step 3, producing \"fast\", it looks at \"rapide\". The \
                     table gives the step's scores e and weights. Widen the state to 32 and \
                     the bottleneck loosens on sentences this short.",
                ],
                link: "view=rnn&model=translate&rtrain=1&rh=8&rseed=1&rstep=3",
            },
        ],
    },
    Lesson {
        title: "The attention layer",
        pages: &[
            Page {
                title: "Queries, keys and values",
                paragraphs: &[
                    "Attention is a soft database lookup. A query says what a position is \
                     looking for, a key says what a position offers, and a value is what it \
                     hands over when it matches.",
                    "All three are linear maps of the inputs: Q = X W_Q, K = X W_K, V = X W_V. \
                     Keys and values are separate because what makes a word relevant is not \
                     the same as what it should contribute.",
                    "Relevance is asymmetric: qᵢ·kⱼ and qⱼ·kᵢ differ, so \"bank\" may attend \
                     strongly to \"river\" while \"river\" hardly attends to \"bank\".",
                    "The walkthrough on the right goes from X to the output one matrix at a \
                     time. Step with its buttons or the ← → keys.",
                ],
                link: "view=attention&model=translate&kind=cross&xv=walk&q=1&step=1",
            },
            Page {
                title: "Scaled dot-product attention",
                paragraphs: &[
                    "For all queries at once: E = QKᵀ/√d_k, A = softmax(E) row by row, \
                     Y = A·V. With N_Q queries and N_K keys, E and A are N_Q×N_K and Y is \
                     N_Q×d_v.",
                    "Row i of A holds the weights of query i; output i is Σⱼ A_{ij} vⱼ, a \
                     weighted average of the value rows. One matrix product handles every \
                     query in parallel.",
                    "The walkthrough now stands at ÷√d_k. Step on through softmax and A·V, and \
                     select a query to see its weighted sum written out.",
                ],
                link: "view=attention&model=translate&kind=cross&xv=walk&q=1&step=3",
            },
            Page {
                title: "Why divide by √d_k",
                paragraphs: &[
                    "If q and k have d_k independent entries of variance σ², then \
                     Var(q·k) ≈ d_k σ⁴: the scores grow with the width.",
                    "Large scores saturate the softmax: softmax([2, 1]) ≈ [0.73, 0.27] but \
                     softmax([20, 10]) ≈ [0.99995, 0.00005]. It then behaves like argmax and \
                     its gradient almost vanishes, so learning stalls.",
                    "Dividing by √d_k brings the variance back to about σ⁴ whatever the width. \
                     The variance plot in the lab shows raw and scaled scores as d_k grows; \
                     move the d_k slider.",
                ],
                link: "view=scoring&model=translate&kind=cross&q=1&stau=1&dk=256",
            },
            Page {
                title: "Temperature and entropy",
                paragraphs: &[
                    "Scaling is a temperature: softmax(e/τ). As τ → 0 the weights approach a \
                     one-hot choice (hard attention); as τ → ∞ they become uniform.",
                    "The entropy H = −Σ α log α measures how spread a row is: 0 when one key \
                     takes everything, log T when all T keys share equally.",
                    "This page runs the model at τ = 0.3, sharper than it was trained. Open \
                     “Input and attention controls” below this text, drag the temperature \
                     slider and watch the heatmap and the entropy above it.",
                ],
                link: "view=attention&model=translate&kind=cross&tau=0.3&xv=head&q=0&step=0",
            },
            Page {
                title: "Softmax by hand",
                paragraphs: &[
                    "The notes' worked example: a query scores three keys e = [0, 2, 1]. \
                     Softmax gives them the weights 0.09, 0.67 and 0.24, so the output is \
                     0.09·v₁ + 0.67·v₂ + 0.24·v₃: mostly the second value, a little of the \
                     others.",
                    "The table shows each step: subtract the largest score (nothing changes, \
                     but no exponential can overflow), exponentiate, divide by the sum. The \
                     entropy of these weights is 1.20 bits, of at most log₂ 3 = 1.58.",
                    "The Jacobian below is how each weight moves when a score is nudged: \
                     ∂αᵢ/∂eⱼ = αᵢ(δᵢⱼ − αⱼ). Its rows sum to 0, because the weights always sum \
                     to 1. Type your own scores in the box.",
                ],
                link: SOFTMAX_BY_HAND,
            },
            Page {
                title: "When softmax saturates",
                paragraphs: &[
                    "Scores [2, 1] give weights 0.73 and 0.27, and the largest entry of the \
                     Jacobian is α₁α₂ = 0.197: a nudge to either score still moves the \
                     weights.",
                    "Here every score is multiplied by s = 10, so the scores are [20, 10]. \
                     The weights are 0.99995 and 0.00005, softmax acts like argmax, and the \
                     largest gradient is 0.000045: about 4,300 times smaller. Learning \
                     through this softmax has all but stopped.",
                    "The plot shows the largest gradient as s grows. Dividing the scores by \
                     √d_k keeps them in the range where it is large; drag the slider.",
                ],
                link: SOFTMAX_SATURATED,
            },
            Page {
                title: "Q, K and V by hand",
                paragraphs: &[
                    "Three queries and three keys of width d_k = 4, typed in the boxes. Query 1 \
                     scores the keys QKᵀ = [0, 4, 2]; divided by √4 = 2 they are the worked \
                     example's [0, 2, 1], so query 1 gathers 0.09·v₁ + 0.67·v₂ + 0.24·v₃ = \
                     [0.33, 0.91].",
                    "Each row of A is one query's softmax and sums to 1: what that query \
                     gathers. The notes draw Aᵀ instead, one column per query. Switch to \
                     \"rows of Aᵀ\" and a row becomes a key: who listens to it. Key 2 is \
                     read by all three queries, 1.63 in all; a key's total need not be 1.",
                    "Change any number, or the shapes: Q and K need the same width, and V \
                     one row per key.",
                ],
                link: QKV_BY_HAND,
            },
        ],
    },
    Lesson {
        title: "Self-attention",
        pages: &[
            Page {
                title: "Every token sees every token",
                paragraphs: &[
                    "In self-attention Q, K and V all come from the same sequence. Any token \
                     reaches any other in one step, so the path length between positions is \
                     O(1), where an RNN needs O(L) steps.",
                    "The layer is not linear in its input: the weights themselves depend on \
                     the data through QKᵀ and the softmax.",
                    "On the right is a real model: all-MiniLM-L6-v2, a BERT-style sentence \
                     encoder (6 layers × 12 heads, 22 M parameters) that reads in both \
                     directions. It is small enough to download during a lesson, and it knows \
                     English. Its 72 heads read a sentence teachers use for attention.",
                    "Above the grid, the app's head classifier lists the head that shows each \
                     pattern most strongly on this input. Layer 0, head 2 looks at the previous \
                     token (score 1.00). Layer 4, head 5 looks at [CLS], the token that starts \
                     every input (0.90). Layer 1, head 8 mostly looks at the next token (0.57), \
                     which only a model without a causal mask can do. Open “Input and attention \
                     controls” below to type your own sentence.",
                ],
                link: SELF_ATTENTION_GRID,
            },
            Page {
                title: "Order means nothing to attention",
                paragraphs: &[
                    "Without positional information, self-attention is permutation \
                     equivariant: f(πX) = π f(X). Shuffle the tokens and the outputs are the \
                     same vectors, shuffled the same way.",
                    "So \"the dog bit the man\" and \"the man bit the dog\" would give every \
                     word the same output: the layer sees a set, not a sequence.",
                    "The panel shuffles the input of a trained encoder and compares its \
                     outputs with and without the positional encodings: without them the rows \
                     are only reordered; with them every row changes. The page “Who bit whom?” \
                     does it on a real English encoder.",
                ],
                link: "view=positions&ps=5",
            },
            Page {
                title: "What it costs",
                paragraphs: &[
                    "Self-attention compares all L² pairs of positions, each with a dot \
                     product of width D: O(L²·D). The projections and an RNN cost O(L·D²).",
                    "Attention wins when L < D: a sentence of L = 100 with D = 512. At \
                     L = 10⁴ the L² term dominates and the L×L weight matrix fills memory.",
                    "In exchange, all positions are computed at once: O(1) sequential \
                     operations instead of the RNN's O(L).",
                    "On the right, the character model's attention on a longer text: every \
                     cell on and below the diagonal is one pair it had to score (its causal \
                     mask hides the rest, hatched; an encoder scores the whole square). The \
                     last page of this lesson computes these costs for any L and D.",
                ],
                link: "view=attention&model=lm&xv=head&q=0&step=0",
            },
            Page {
                title: "What does \"it\" read?",
                paragraphs: &[
                    "In \"The animal didn't cross the street because it was too tired\", a \
                     reader knows that \"it\" is the animal. Layer 3, head 1 of MiniLM puts \
                     0.68 of the attention of \"it\" (the row of \"it\") on \"animal\", and \
                     0.05 on \"street\".",
                    "Now change \"tired\" to \"wide\" in the input: a reader takes \"it\" to be \
                     the street. This head's weight on \"animal\" falls to 0.28, but it does \
                     not move to \"street\" (0.12). Most of it goes to [CLS] instead.",
                    "So a 22-million-parameter model does not resolve the pronoun the way a \
                     person does, and no single head is the model's reasoning. Attention \
                     weights show where information flows, not why the model decides.",
                ],
                link: COREFERENCE,
            },
            Page {
                title: "Relevance is not symmetric",
                paragraphs: &[
                    "The score of query i against key j is qᵢ·kⱼ, with q = x W_Q and k = x W_K. \
                     W_Q and W_K are different matrices, so qᵢ·kⱼ and qⱼ·kᵢ are different \
                     numbers.",
                    "In \"He sat on the bank of the river\", layer 0, head 4 of MiniLM gives \
                     \"bank\" (its row) 0.71 of its attention on \"river\": the word \
                     that says which bank is meant. \"river\" gives only 0.17 to \"bank\".",
                    "Read the matrix by rows, which shows what each query gathers. Then compare \
                     the cell (bank, river) with the cell (river, bank). A column shows who \
                     listens to one key.",
                ],
                link: BANK,
            },
            Page {
                title: "Who bit whom?",
                paragraphs: &[
                    "Back to order, on a real model. The panel runs \"the dog bit the man\" and \
                     \"the man bit the dog\" through all-MiniLM-L6-v2, a BERT encoder, with \
                     its learned position embeddings switched off and on.",
                    "Off, each word's output only moves with the word, and the sentence \
                     vectors (the mean of the outputs, which is how this model is used) are \
                     identical: cosine 1.0000. The model could not tell who bit whom.",
                    "On, they differ: cosine 0.9795. \"dog\" changes most (0.64): it is now \
                     the object instead of the subject.",
                    "Type your own pair: the second box must use the same words.",
                ],
                link: WHO_BIT_WHOM,
            },
            Page {
                title: "The cost calculator",
                paragraphs: &[
                    "The notes' sentence: L = 100 tokens of width D = 512. Per layer, \
                     self-attention does L²·D = 5,120,000 multiply-adds, a recurrent layer \
                     L·D² = 26,214,400 and a convolution of width K = 3 K·L·D² = 78,643,200. \
                     Attention is the cheapest, and needs one parallel step where the RNN \
                     needs 100.",
                    "Press \"notes: L = 10⁴\": attention now costs 5.12 × 10¹⁰ against the \
                     RNN's 2.62144 × 10⁹. The L² term wins exactly when L passes D: move the \
                     sliders and watch the lines cross in the plot.",
                    "Memory follows: 51,200 numbers of RNN state against 61,200 for attention \
                     at L = 100 (L² + L·D). The tables below count a block's parameters, \
                     4·D² for attention and 2·D·d_ff for the feed-forward layer, and the \
                     picked model's own, tensor by tensor.",
                ],
                link: COSTS,
            },
        ],
    },
    Lesson {
        title: "Positional encodings",
        pages: &[
            Page {
                title: "Naive positions",
                paragraphs: &[
                    "The simplest idea is to add the index t to the token's embedding. It is \
                     unbounded: position 500 is a huge number next to embeddings of size about \
                     1.",
                    "Normalising to t/(N−1) keeps it in [0, 1] but stretches like a rubber \
                     band: one step means 1/(N−1), so the same offset means different things \
                     in sentences of different length.",
                ],
                link: "view=positions&ps=1",
            },
            Page {
                title: "Sinusoidal encodings",
                paragraphs: &[
                    "PE(t, 2k) = sin(ω_k t), PE(t, 2k+1) = cos(ω_k t), with \
                     ω_k = 10000^(−2k/d). Each pair is a point on the unit circle turning at \
                     its own speed. The wavelengths 2π·10000^(2k/d) run from 2π for the \
                     fastest pair to 2π·10000^((d−2)/d) for the slowest: about 35,300 \
                     positions at d = 32 (the translation model) and 47,100 at d = 64 (the \
                     lab's default). 2π·10000 ≈ 62,800 is only the limit as d grows.",
                    "Read down the dimensions it is a multi-scale, continuous binary counter: \
                     fast pairs change every step, slow ones over hundreds.",
                    "p_t · p_{t+o} = Σ_k cos(ω_k o) depends only on the offset o, and PE(t+o) \
                     is PE(t) rotated by a matrix that depends only on o. It is defined for \
                     any t.",
                ],
                link: "view=positions&ps=0&psd=64",
            },
            Page {
                title: "RoPE: rotate queries and keys",
                paragraphs: &[
                    "Rotary embeddings leave X alone and rotate q and k instead: pair p of \
                     dimensions (2p, 2p+1) of the vector at position i turns by the angle \
                     i·ω_p, with ω_p = 10000^(−2p/d), as the panel's sliders name them.",
                    "Rotations keep norms and compose, so ⟨R(i)q, R(j)k⟩ = qᵀR(j−i)k: the \
                     score depends only on the offset j − i, not on where the pair sits.",
                    "Type a few small vectors and positions in the panel and read the \
                     rotated vectors in its table.",
                ],
                link: "view=positions&ps=4",
            },
            Page {
                title: "Longer than trained",
                paragraphs: &[
                    "A learned table P of N_max×d rows has nothing past N_max. Relative \
                     schemes add a learned bias a_{i−j} to the scores (T5, Transformer-XL); \
                     ALiBi subtracts a fixed slope times the distance.",
                    "The panel runs models trained on short reversals with each scheme on \
                     longer inputs. Compare where each one's exact-match rate falls: \
                     positions it never saw, and offsets larger than any it learned.",
                ],
                link: "view=positions&ps=6",
            },
        ],
    },
    Lesson {
        title: "Masking",
        pages: &[
            Page {
                title: "The causal mask",
                paragraphs: &[
                    "A decoder predicts token i+1 from tokens up to i, so it must not see \
                     the future. Add M to the scores before the softmax: M_ij = 0 if j ≤ i, \
                     else −∞.",
                    "exp(−∞) = 0, so every weight above the diagonal is exactly zero and \
                     each row still sums to 1 over the visible keys.",
                    "Switch between the mask modes on the right; the model is the \
                     translation model's decoder, running live.",
                ],
                link: "view=masking&model=translate&kind=dec&ms=0&mm=1&pads=2",
            },
            Page {
                title: "Padding in a batch",
                paragraphs: &[
                    "Sentences in a batch have different lengths, so the short ones are \
                     filled with <pad>. A padding mask P blocks those keys for every query.",
                    "Both masks add up: softmax(E + M + P). Without P, real tokens would \
                     spend weight on padding and their outputs would change with the batch.",
                ],
                link: "view=masking&model=translate&kind=dec&ms=1&mm=3&pads=2",
            },
            Page {
                title: "Teacher forcing",
                paragraphs: &[
                    "In training the decoder input is the target shifted right, with <bos> \
                     first: position i reads the true tokens before it and predicts token i.",
                    "Thanks to the causal mask every position trains in one parallel pass; \
                     no token can read its own answer.",
                    "At inference the model reads its own guesses instead. It never saw its \
                     mistakes in training, so one error can lead to more: exposure bias.",
                ],
                link: "view=masking&model=translate&kind=dec&ms=3&mm=1&pads=2",
            },
        ],
    },
    Lesson {
        title: "Multi-head attention",
        pages: &[
            Page {
                title: "Many heads, same cost",
                paragraphs: &[
                    "Split d_model into h heads of width d_k = d_model/h, each with its own \
                     W_Q, W_K, W_V; concatenate the h outputs and mix them with W_O.",
                    "With d_model = 512 and h = 8, d_k = 64: the parameters and FLOPs equal \
                     one head of full width, but each head can attend somewhere else.",
                    "The grid shows every head of sotu-lm, the English model Glimpse trained on \
                     two centuries of State of the Union addresses (4 layers × 4 heads). Its \
                     byte-level BPE cuts \"animal\" into \" an\", \"im\", \"al\". On this \
                     sentence the classifier finds layer 1, head 0 looking at the other pieces \
                     of the token's own word (0.81), and layer 1, head 1 as the clearest \
                     previous-token head (0.61).",
                    "Yet the caption under layer 1, head 1 says own word (0.70): inside a word \
                     cut into pieces, the previous token is another piece of the same word, so \
                     one head can score on both. A label is the pattern a head shows most; \
                     hover a thumbnail for all its scores.",
                ],
                link: MULTI_HEAD_GRID,
            },
            Page {
                title: "A previous-token head",
                paragraphs: &[
                    "Layer 0, head 2 of MiniLM puts all its weight on the token just before \
                     the query (score 1.00): the stripe just below the diagonal.",
                    "Nobody designed it. Training found that knowing the previous token is \
                     useful, and the head copies it into each position's output. The pieces \
                     of \"unbelievably\" (un ##bel ##ie ##va ##bly) each read the piece \
                     before them, so the same head is also the clearest own-word head here \
                     (0.71). The outlined row is \"##bel\": 1.00 on \"un\".",
                ],
                link: PREVIOUS_TOKEN,
            },
            Page {
                title: "An induction head",
                paragraphs: &[
                    "The input repeats: \"glimpsehow\" twice. In layer 1, a query in the \
                     second copy (layer 1, head 0) attends to the token that followed its own \
                     earlier occurrence, which is the token it should predict next: the \
                     outlined row, the second \"l\", looks most at the \"i\" after the first \
                     \"l\".",
                    "It can do that because the layer-0 head already wrote \"my previous \
                     token was x\" into every position: two heads in two layers form a \
                     copy mechanism.",
                    "This is a toy: a 2-layer model trained only on repeated random letters \
                     (its vocabulary is the 26 letters). Type another repeated string in the \
                     controls and watch the off-diagonal stripe move with the period; the last \
                     page of this lesson finds the same heads in a real model.",
                ],
                link: "view=attention&model=repeat&layer=1&head=0&xv=head&q=12&step=0",
            },
            Page {
                title: "Sharing keys and values: MQA and GQA",
                paragraphs: &[
                    "At inference every head caches its keys and values for every past \
                     token, and that cache, not the arithmetic, often limits speed and batch \
                     size.",
                    "Multi-query attention (MQA) gives all query heads one shared key/value \
                     head; grouped-query attention (GQA) shares one key/value head within each \
                     group of query heads. The cache shrinks by the group size, at a small cost \
                     in quality.",
                    "This page trains the translator three times from the same seed, 600 \
                     steps each: 4 query heads with 4, 2 and 1 key/value heads. The cache per \
                     token falls from 128 to 64 to 32 numbers. Natively, from seed 1, exact \
                     translations go from 100 % to 97.9 % to 93.8 %; in the browser the \
                     rounding differs slightly and training magnifies it, and other seeds \
                     shuffle the order by a few points. On a task this small sharing costs \
                     little: why large models share.",
                ],
                link: "view=heads&model=translate&hsec=1&kvtrain=1",
            },
            Page {
                title: "Induction on real words",
                paragraphs: &[
                    "The lab reads 20 random tokens of SmolLM2's vocabulary (words and pieces \
                     of words), then the same 20 again. Nothing \
                     predicts the first copy. SmolLM2-135M's loss falls from 12.95 nats per \
                     token on the first copy to 3.02 on the second: it copies.",
                    "The copying is done by induction heads. Layer 18, head 6 puts on average \
                     0.87 of the attention of each word of the second copy on the word that \
                     followed its first occurrence, which is the word to predict next. An \
                     earlier head has written \"my previous token was x\" into every position, \
                     so two heads in two layers form a copy mechanism.",
                    "Pick sotu-lm in the top bar. Glimpse trained it for 97 minutes on 2.7 M \
                     tokens, and it has not learnt to copy: the second copy is no easier \
                     (14.55 and 14.54 nats), and no head scores above 0.05. The small repeat \
                     model, trained only on repeats, copies with one head in layer 1.",
                ],
                link: INDUCTION,
            },
            Page {
                title: "Names come back",
                paragraphs: &[
                    "Random words are a test; in prose, induction shows where names repeat: \
                     \"The letter was from Hermione Granger, and the parcel was from Harry \
                     Potter. When Hermione Granger wrote again, Harry Potter answered.\"",
                    "The head classifier (All heads) finds SmolLM2's clearest induction-like \
                     head on this sentence in layer 17, head 5 (score 0.57). The view shows it \
                     from the second \" Herm\": it puts 0.75 of its attention on \"ione\", the \
                     piece that followed \" Herm\" the first time, which is the piece to \
                     predict next.",
                    "Click the second \" Gr\": the head looks at \"anger\" (0.72). At the \
                     second \" Harry\" it is less sure: 0.28 on \" Potter\", more on the first \
                     token, where heads park attention they have no use for. Type your own \
                     sentence with a repeated name.",
                ],
                link: NAMES,
            },
            Page {
                title: "Switching heads off",
                paragraphs: &[
                    "Does a model need all its heads? Switch one off (its output set to zero \
                     before W_O) and measure what the model loses. The tab ranks every head \
                     that way, then switches them off together from the least important up.",
                    "On the translator, measured on 48 held-out sentences: with all 8 \
                     cross-attention heads off, greedy decoding gets 0 of them right \
                     (100 % with every head on): without cross-attention the decoder cannot \
                     see the source. Yet 7 of its 24 heads can go together with token \
                     accuracy within 1 point of the full model's.",
                    "Click any head to switch it off or on, and pick another model in the top \
                     bar: a decoder LM is measured on the text in the input box.",
                ],
                link: "view=heads&model=translate&hrank=1",
            },
            Page {
                title: "Nine query heads, three caches",
                paragraphs: &[
                    "SmolLM2 uses grouped-query attention: in each of its 30 layers, 9 query \
                     heads share 3 key/value heads, in groups of 3. The drawing under the \
                     heads shows which query reads which key and value.",
                    "Its KV cache holds 2 · 3 · 64 = 384 numbers per token and layer, where 9 \
                     heads with their own keys and values would need 2 · 9 · 64 = 1,152: a \
                     third. Switch heads off here too; the loss is measured on the text in \
                     the input box.",
                ],
                link: "view=heads&model=SmolLM2-135M-Instruct.Q4_1",
            },
        ],
    },
    Lesson {
        title: "The transformer block",
        pages: &[
            Page {
                title: "Heads back together",
                paragraphs: &[
                    "MultiHead(X) = concat(head₀, …, head_{h−1})·W_O. The concatenation puts \
                     the h outputs of width d_k side by side (width h·d_k = d_model), and W_O \
                     mixes what the heads found.",
                    "The walkthrough stands at the concat step of the encoder's \
                     self-attention; step on to W_O.",
                ],
                link: "view=attention&model=translate&kind=enc&xv=walk&q=0&step=7",
            },
            Page {
                title: "Add & Norm and the feed-forward layer",
                paragraphs: &[
                    "An encoder block is attention then a feed-forward network, each wrapped \
                     in a residual connection and a LayerNorm. The original transformer \
                     writes it Y = LayerNorm(X + MHSA(X)), Z = LayerNorm(Y + FFN(Y)).",
                    "FFN(x) = max(0, xW₁ + b₁)W₂ + b₂, applied to each token on its own, with \
                     a hidden width d_ff = 4·d_model in the original (2048 for 512). \
                     Attention mixes tokens; the FFN transforms each one.",
                    "LayerNorm normalises each token over its features, so it does not depend \
                     on the batch or on other positions (BatchNorm would, which suits \
                     variable-length sequences badly).",
                    "The original transformer normalises after the residual sum (post-norm); \
                     most modern models normalise the input of each sublayer (pre-norm), \
                     which keeps a clean residual path and trains deep stacks more easily. \
                     The model on the right is pre-norm, Y = X + MHSA(LN(X)), \
                     Z = Y + FFN(LN(Y)), and small: d_ff = 64 = 2·d_model.",
                    "The walkthrough goes on past W_O. \"x + attn\" adds the attention's \
                     output to the stream it read. \"norm₂\" is the LayerNorm before the \
                     FFN: each token's mean μ and variance σ², the normalised row z, the \
                     learned γ and β, and the result. \"FFN\" shows the hidden layer of \
                     width d_ff; \"x + FFN\" is the block's output, the next block's input.",
                ],
                link: "view=attention&model=translate&kind=enc&xv=walk&q=0&step=9",
            },
            Page {
                title: "Cross-attention",
                paragraphs: &[
                    "A decoder block has three sublayers: masked self-attention, then \
                     cross-attention, then the FFN, each with Add & Norm.",
                    "In cross-attention the queries come from the decoder and the keys and \
                     values from the encoder's output (the memory): Q = Y W_Q, K = H W_K, \
                     V = H W_V. The decoder retrieves source meaning; the final projection to \
                     the vocabulary picks the word.",
                    "The grid shows every cross-attention head of both decoder layers. The \
                     classifier names a word-alignment head when each target token puts most of \
                     its weight on a source token of its own; the clearest here is layer 1, \
                     head 2 (0.71). Its bright cells do not run down the diagonal: the \
                     translation moves the adjectives and flips their order, and the head \
                     follows the words, not the positions.",
                ],
                link: "view=attention&model=translate&kind=cross&xv=grid&q=0&step=0",
            },
            Page {
                title: "One block, three families",
                paragraphs: &[
                    "The same block template makes all three families; what differs is what \
                     each attention may see.",
                    "Encoder-only (BERT-like): self-attention with no mask. Decoder-only \
                     (GPT-like): causal self-attention and no cross-attention. \
                     Encoder–decoder (the original transformer): an unmasked encoder, a \
                     causal decoder, and cross-attention between them.",
                    "The panel shows each family's masks and attention on trained models.",
                ],
                link: "view=masking&model=translate&kind=dec&ms=2&mm=1&pads=2",
            },
            Page {
                title: "From the last layer to a word",
                paragraphs: &[
                    "After the last block (and, in a pre-norm model, one final LayerNorm) \
                     each position holds a row h of width d. The output layer scores it \
                     against every token of the vocabulary, logits = h·W_vocabᵀ + b, and a \
                     softmax over the whole vocabulary turns the scores into the next \
                     token's probabilities.",
                    "sotu-lm, the English model Glimpse trained, ties its output matrix to its \
                     embedding: W_vocab is E, the same 4,096 × 192 matrix that turned tokens \
                     into vectors. A token's logit is the dot product of h with that token's \
                     own embedding, and tying saves 4,096 · 192 = 786,432 parameters.",
                    "The walkthrough stands at the logits of the last layer, for the columns \
                     of the likeliest tokens. Step on to softmax (vocab): after \"The state of \
                     the Union is\" the model's most likely next token is \" the\".",
                ],
                link: OUTPUT_LAYER,
            },
            Page {
                title: "Deep stacks: pre-norm and post-norm",
                paragraphs: &[
                    "Every block adds two residual connections, and at each one a path can go \
                     through the sub-layer or around it: N blocks open 2^(2N) paths from input \
                     to output, 4,096 for the original six layers.",
                    "Where the LayerNorm sits decides what depth does. The tab builds two fresh \
                     12-block models of the repeat task, identical but for that. Post-norm \
                     renormalises the stream after every sub-layer, so it enters each block \
                     with norm √d. Pre-norm only normalises what each sub-layer reads: the \
                     stream is a running sum and grows from block to block.",
                    "The gradients at initialisation differ too. Post-norm's are largest at \
                     the block nearest the output (2.61 there, 0.54 at the \
                     smallest): a large first step there unless the learning rate warms up. \
                     Pre-norm's shrink towards the output (1.92 at the first block, \
                     0.54 at the last), with no spike. Move N and watch both.",
                    "Under the plots, sotu-lm, a trained pre-norm model, on the text in the \
                     input box: its stream grows from block to block too.",
                ],
                link: "view=depth&model=sotu-lm&dn=12&dseed=1",
            },
            Page {
                title: "Deep stacks, trained",
                paragraphs: &[
                    "Now train them. The page trains the reverse task's model twice from the \
                     same seed, six blocks deep in the encoder and in the decoder, once \
                     pre-norm and once post-norm, with the learning rate at its peak from the \
                     first step (no warmup).",
                    "After 1,000 steps pre-norm reverses every held-out sequence (loss about \
                     0.002); post-norm is stuck near loss 1.5, under 40 % of letters right and \
                     no sequence: the notes' instability of deep post-norm stacks. (Natively \
                     1.53 and 37.8 %; the browser rounds differently and training magnifies \
                     it, so its last digits differ.)",
                    "Tick warmup and both train (post-norm to loss 0.011, 100 % exact). Drag \
                     the blocks to 2 and post-norm trains without warmup too: it is depth that \
                     makes post-norm fragile. Under the table, the trained decoders' streams: \
                     pre-norm's grows block by block, post-norm's stays at √d.",
                ],
                link: "view=depth&model=sotu-lm&dsec=1&dtn=6&dwarm=0&dseed=1&dtrain=1",
            },
        ],
    },
    Lesson {
        title: "Training",
        pages: &[
            Page {
                title: "Cross-entropy and teacher forcing",
                paragraphs: &[
                    "A model learns from the probability it gives the right next token. The \
                     loss of one position is −log p(label): 0 when the model is sure and right, \
                     large when it is sure and wrong. Training minimises the mean over every \
                     target position of every example.",
                    "Under teacher forcing the decoder reads the true answer shifted one step \
                     right, so all positions are trained in one pass; the causal mask keeps \
                     each from seeing its own label.",
                    "Press ▶ Start: this is a fresh encoder–decoder learning to reverse letters, \
                     trained by Glimpse's own backward pass. Watch the loss fall and the \
                     cross-attention below turn into an anti-diagonal: output i looks at input \
                     n−1−i.",
                ],
                link: "view=training&task=reverse",
            },
            Page {
                title: "Warmup and clipping",
                paragraphs: &[
                    "Early gradients are large and noisy, and Adam's running averages are not \
                     yet reliable, so the learning rate starts small and warms up. The original \
                     transformer used lr = (1/√d) · min(1/√s, s/(w·√w)) at step s with w warmup \
                     steps: a linear rise for w steps, then decay as 1/√s.",
                    "This lab warms up linearly over 200 steps to 3·10⁻³, then decays along a \
                     cosine: the curve under “Learning rate”. Choose Noam's \
                     schedule or a constant rate there, or change the peak and the warmup; \
                     the status line under Start shows the rate of the last step.",
                    "Gradient clipping rescales the whole gradient when its norm exceeds 1 (the \
                     clip slider), so one bad batch cannot throw the weights far. The gradient \
                     norm plot shows the norm before clipping: press ▶ Start and watch it \
                     spike early and settle.",
                ],
                link: "view=training&task=reverse",
            },
            Page {
                title: "Another task, another pattern",
                paragraphs: &[
                    "The same model and loss learn whatever the data asks. On sorting, each \
                     output must find the next-smallest input wherever it is, and the \
                     cross-attention learns that instead of a diagonal.",
                    "Change the task, the positional scheme or the width in the lab's controls \
                     and press ▶ Start: the held-out accuracy says whether the model \
                     generalises to inputs it never saw.",
                ],
                link: "view=training&task=sort",
            },
            Page {
                title: "Without warmup",
                paragraphs: &[
                    "The notes say a transformer trained at a high rate without warmup lags or \
                     diverges. Try it: this page sets the peak rate to 3·10⁻², ten times the \
                     lab's default, with no warmup. Press Start.",
                    "After 600 steps this run's loss is still 1.76 (the mean of the last 50 \
                     steps) and it reverses no held-out sequence: the first large steps threw \
                     the weights somewhere it cannot learn from.",
                    "Now drag the warmup to 200 steps, which starts a new run, and press Start \
                     again: the old curves stay on the plots. With warmup the same peak rate \
                     reaches a loss of 0.31 after 600 steps and 72 % of sequences exactly \
                     right. The largest gradient norm falls from 36.1 to 12.1.",
                    "At the default peak of 3·10⁻³ this small model learns as well without \
                     warmup as with it: warmup matters when the rate is high or the model deep.",
                ],
                link: WITHOUT_WARMUP,
            },
            Page {
                title: "Pre-training by filling blanks",
                paragraphs: &[
                    "A decoder learns from plain text by predicting each next token from the \
                     ones before it. BERT learns from the same kind of text another way, \
                     masked-language modelling: hide 15 % of the tokens and predict each one \
                     from everything around it, on both sides. Of the hidden tokens 80 % are \
                     replaced by <mask>, 10 % by a random token and 10 % stay as they were, so \
                     the model cannot assume that only <mask> needs thought. The loss is the \
                     cross-entropy at the hidden positions only: the mean over the hidden \
                     positions i of −log p(x_i | the corrupted window).",
                    "sotu-mlm is an encoder trained this way by Glimpse on the State of the \
                     Union addresses, with no causal mask: every token reads every other. It \
                     started from sotu-lm's weights (the same tokenizer, plus <mask>) and read \
                     8.2 M tokens in 4,000 steps, 29 minutes on two cores.",
                    "The lab fills the blank in “The <mask> of the Union is strong.”: \
                     “ state” comes first with p = 0.49. Write your own sentence with <mask> \
                     for any word, or several of them: every blank is filled from the same \
                     single pass.",
                    "Its training recipe's test on held-out speeches (2008–2026; the figures \
                     ship with the model, and the command glimpse train-lm reproduces them) \
                     ranks the hidden token first 41 % of the time. Its perplexity on the hidden tokens is 23.8, against \
                     145.5 for a Kneser–Ney bigram that sees only the left neighbour and \
                     950.6 for word frequencies alone.",
                ],
                link: FILL_BLANKS,
            },
            Page {
                title: "The blank reads both ways",
                paragraphs: &[
                    "The same sentence in the explorer, at the row of <mask> (query 1). In \
                     layer 3, head 1 the blank puts 0.99 of its attention on “ Union”, three \
                     tokens to its right: the word that makes “state” likely comes after the \
                     blank. A decoder could not read it; its causal mask sets every weight to \
                     the right of the query to exactly 0.",
                    "Try the other heads (All heads shows every one at once), or change the \
                     sentence in the input panel and keep a <mask> in it: some heads read to \
                     the left, some to the right, and the candidates come from both.",
                ],
                link: BLANK_READS,
            },
        ],
    },
    Lesson {
        title: "Decoding",
        pages: &[
            Page {
                title: "Greedy decoding",
                paragraphs: &[
                    "Generation picks one token at a time. Greedy decoding takes the most \
                     likely token at each step and never looks back: it is myopic.",
                    "The lab runs a small typed table of next-token probabilities with beam \
                     width 1, which is greedy. Step through it with the buttons or the → key.",
                ],
                link: "view=decoding&ds=table&beam=1&alpha=0",
            },
            Page {
                title: "Beam search",
                paragraphs: &[
                    "Beam search keeps the B best partial sentences. At each step it expands \
                     every one, scores each child by its cumulative log-probability \
                     Σ log p, and keeps the best B; finished hypotheses are set aside.",
                    "With B = 2 on the same table, a less likely first word leads to a likelier \
                     whole sentence, which greedy decoding misses.",
                    "Long hypotheses collect more negative terms, so scores are often \
                     normalised: the score divided by the length L raised to the power α (α = 0 \
                     leaves it as it is, α = 1 averages per token). Try the α slider.",
                ],
                link: "view=decoding&ds=table&beam=2&alpha=0",
            },
            Page {
                title: "Beam search on a real model",
                paragraphs: &[
                    "Now the probabilities come from the translation model. Click a node of \
                     the tree to see the attention behind that hypothesis.",
                    "Past keys and values never change, so a decoder caches them: each new \
                     step costs O(t·d) instead of recomputing the whole prefix.",
                ],
                link: "view=decoding&ds=translate&beam=3&alpha=0",
            },
            Page {
                title: "Sampling: temperature, top-k, top-p",
                paragraphs: &[
                    "Greedy and beam search give the same text every time. Sampling draws the \
                     next token from the model's distribution instead, which gives varied text \
                     (and sometimes nonsense).",
                    "Temperature divides the logits before the softmax: τ < 1 sharpens the \
                     distribution towards greedy, τ > 1 flattens it. Top-k keeps only the k \
                     likeliest tokens; top-p keeps the smallest set of likeliest tokens whose \
                     probabilities add up to at least p. What is kept is renormalised and \
                     sampled.",
                    "The Sampling panel runs the character LM with a seed, so a sample can be \
                     reproduced: change its sampling temperature τ, k or p and compare.",
                ],
                link: "view=decoding&ds=lm&beam=1&alpha=0&open=sampling",
            },
            Page {
                title: "The KV cache",
                paragraphs: &[
                    "At step t a decoder needs the keys and values of every earlier position, \
                     and they never change: under the causal mask a token's key and value depend \
                     only on the token itself and the ones before it (and, in an \
                     encoder–decoder, on the source, which stays fixed while decoding).",
                    "So they are computed once and kept. Each new step then projects only the \
                     new token and attends over the cache: O(t·d) work instead of recomputing \
                     the whole prefix, at the price of memory that grows with t.",
                    "The KV cache panel decodes greedily twice, with and without the cache: the \
                     same tokens, and the work per step side by side.",
                ],
                link: "view=decoding&ds=translate&beam=1&alpha=0&open=cache",
            },
            Page {
                title: "Greedy and beam disagree on English",
                paragraphs: &[
                    "sotu-lm continues \"The state of the Union is\". Greedy decoding takes \
                     \" the\", its likeliest next token, and ends with \" the only sure \
                     foundation for the future.\" Beam search with B = 3 keeps sentences that \
                     start with \" a\" and finds \" a subject of great importance.\"",
                    "Over the 12 tokens the beam's sentence has log-probability −15.4, and \
                     greedy's has −23.2. Greedy's first step was the better word, but it led \
                     to a worse sentence. Step through the tree and watch the lead change.",
                    "Length normalisation (α) changes nothing here. Every hypothesis runs to \
                     the 12-token limit, because a model of whole speeches rarely ends one. α \
                     matters when hypotheses end at different lengths, as on the translation \
                     model.",
                    "Open the Sampling panel below the tree: it now samples sotu-lm. Each seed \
                     gives a different continuation of the same prompt, most of them plausible \
                     State of the Union prose. Change τ, k or p and compare.",
                ],
                link: BEAM_ENGLISH,
            },
            Page {
                title: "Length normalisation on a real model",
                paragraphs: &[
                    "SmolLM2-135M-Instruct answers \"Name a colour.\" in its chat format, and \
                     a hypothesis ends when it writes <|im_end|>. With B = 3 and α = 0 the \
                     search prefers the short answer \"A colour is a color.\" (log p −8.64): \
                     every extra token costs log-probability, so short hypotheses win.",
                    "This page sets α = 1, which divides each score by the length. Now \
                     \"The colour I'm referring to is a shade of blue,\" wins with 12 tokens \
                     (log p −13.72, score −1.14). Step through the tree, then move the α slider \
                     back to 0 and run it again.",
                    "Greedy decoding picks neither: \"The colour I'm referring to is a rare and \
                     precious mineral\". A 135-million-parameter model is fluent, not always \
                     sensible.",
                ],
                link: LENGTH_NORMALISATION,
            },
        ],
    },
    Lesson {
        title: "The notes' worked examples",
        pages: &[
            Page {
                title: "0.45, 0.45, 0.05, 0.05",
                paragraphs: &[
                    "The notes' first example: translating \"we are eating bread\", the \
                     decoder writes \"estamos\" with the attention weights 0.45, 0.45, 0.05 \
                     and 0.05 on the four source words, so its context is mostly \"we are\".",
                    "Softmax gives exactly these weights when the scores of \"we\" and \"are\" \
                     stand ln 9 ≈ 2.1972 above the other two: e^2.1972 / (2·e^2.1972 + 2) = \
                     0.45. Those are the scores in the box.",
                    "Change them: raise one score and watch the weight move, and the Jacobian \
                     say by how much.",
                ],
                link: ESTAMOS,
            },
            Page {
                title: "softmax([0, 2, 1])",
                paragraphs: &[
                    "The self-attention handout's example: scores 0, 2 and 1 give the weights \
                     0.09, 0.67 and 0.24, and the output 0.09·v₁ + 0.67·v₂ + 0.24·v₃.",
                    "The “Q, K, V by hand” part of this tab puts the same numbers inside a \
                     real product: a query whose dot products with three keys, divided by \
                     √4, are [0, 2, 1].",
                ],
                link: SOFTMAX_BY_HAND,
            },
            Page {
                title: "[START] Big cat",
                paragraphs: &[
                    "The notes' causal mask on three tokens, \"[START] Big cat\": the \
                     translator's decoder reads exactly these, with <bos> as [START], while it \
                     translates \"le grand chat\".",
                    "[START] may read only itself, so its row of A is 1.00 then zeros. \"big\" \
                     reads [START] and itself. \"cat\" reads all three. Every weight above the \
                     diagonal is exactly 0, in every head and layer: M adds −∞ there before \
                     the softmax.",
                    "Switch the mask mode to “none” and the zeros fill in: each token would \
                     read the one after it, which a decoder cannot have at generation time.",
                ],
                link: START_BIG_CAT,
            },
            Page {
                title: "d = 4: I Can Buy",
                paragraphs: &[
                    "The notes' smallest sinusoidal encoding: d = 4, two bands, ω₀ = 1 and \
                     ω₁ = 10000^(−2/4) = 0.01, so p_t = [sin t, cos t, sin 0.01t, cos 0.01t] \
                     with wavelengths 2π ≈ 6.28 and 200π ≈ 628.32 positions.",
                    "\"I\" at t = 0 gets [0, 1, 0, 1]; \"Can\" at t = 1 gets [0.84, 0.54, \
                     0.01, 1.00]; \"Buy\" at t = 2 gets [0.91, −0.42, 0.02, 1.00]. The table \
                     under the sliders writes them out: the fast band changes a lot from one \
                     token to the next, the slow one hardly moves.",
                    "Drag d up to see more bands, each slower than the last.",
                ],
                link: SMALL_SINUSOIDAL,
            },
            Page {
                title: "RoPE on \"the dog slept\"",
                paragraphs: &[
                    "The notes rotate three 4-dimensional embeddings of \"the dog slept\". \
                     They count positions from 1, so \"the\" turns by θ = 1 in its first pair \
                     and 0.01 in its second, \"dog\" by 2 and 0.02, \"slept\" by 3 and 0.03.",
                    "Scroll down to section 4 of this panel, “Rotate your own vectors”: it \
                     holds their numbers. \
                     The rotated rows are the notes' own: [0.402, 0.811, 0.192, 0.802], \
                     [−0.845, 0.163, 0.298, 0.106] and [−0.212, −0.071, 0.879, 0.727]. The \
                     lengths do not change: a rotation only turns each pair.",
                    "Set the first position to 0 and \"the\" does not move at all: with \
                     positions from 0, as in the models, the first token is never rotated.",
                ],
                link: NOTES_ROPE,
            },
            Page {
                title: "Je suis étudiant, B = 2",
                paragraphs: &[
                    "The notes' beam search: translating \"Je suis étudiant\" with B = 2 on \
                     their hand-made probabilities, typed here as a table (… stands for every \
                     other word). Press Step to follow it.",
                    "Step 1 keeps \"I\" (0.60) and \"Me\" (0.30). Step 2 keeps \"I am\" \
                     (0.54) and \"Me too\" (0.18). Step 3 drops \"Me too\": its best \
                     continuation reaches only 0.054, below \"I am a\" (0.378) and \"I am \
                     …\" (0.108). The beam ends on \"I am a student\" with probability \
                     0.3024 (log p −1.196).",
                    "Greedy decoding finds the same sentence: at every step the likeliest word \
                     is also on the best path, so delaying the choice changes nothing. On the \
                     table of the Decoding lesson's beam page it does: greedy's \"the\" \
                     (0.5) leads to at most 0.20, beam's \"a\" (0.4) to 0.36.",
                ],
                link: JE_SUIS,
            },
            Page {
                title: "L = 100, D = 512",
                paragraphs: &[
                    "The notes compare a layer's work at L = 100 tokens of width D = 512: \
                     26,214,400 for a recurrent layer, 78,643,200 for a convolution with \
                     K = 3, and 5,120,000 for self-attention's pairwise scores.",
                    "At L = 10⁴ the order flips: 2.62144 × 10⁹ for the RNN against \
                     5.12 × 10¹⁰ for self-attention. The calculator computes both; the \
                     buttons set the notes' sizes.",
                ],
                link: COSTS,
            },
        ],
    },
    super::influence::WHAT_ATTENTION_DOES,
];
