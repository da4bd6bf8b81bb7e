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

/// The notes' routing example in the Q, K, V part: outputs mixing three values as 0.1 / 0.3 /
/// 0.6 and 0.5 / 0.2 / 0.3 (the lab's `ROUTING_*` preset).
const ROUTING: &str = "view=softmax&smp=1&smq=-2.3026%20-1.2040%20-0.5108%3B%20-0.6931%20-1.6094%20-1.2040%3B%20-1.6094%20-0.3567%20-2.3026&smk=1.7321%200%200%3B%200%201.7321%200%3B%200%200%201.7321&smv=1%200%200%201%3B%200%201%200%201%3B%200%200%201%201&smt=0&smi=0&smj=2";
/// The cost calculator at the notes' training-memory sizes: L = 512, B = 32, base model.
const TRAINING_MEMORY: &str = "view=cost&cl=512&cd=512&ck=3&cff=2048&ch=8&cn=6&cb=32";

/// The notes' first worked example: scores ln 9 apart give weights 0.45, 0.45, 0.05, 0.05.
const ESTAMOS: &str = "view=softmax&smp=0&sme=2.1972%2C%202.1972%2C%200%2C%200&sms=1";
/// The notes' "[START] Big cat" under the causal mask: the translator's decoder on "big cat".
const START_BIG_CAT: &str =
    "view=masking&model=translate&src=le%20grand%20chat&tgt=big%20cat&kind=dec&ms=0&mm=1";
/// The sinusoidal panel at the notes' d = 4.
const SMALL_SINUSOIDAL: &str = "view=positions&ps=0&psd=4";
/// The sinusoidal panel's unit circle: band 0 (ω = 1), position 2, the notes' π/6 and 5π/6.
pub const UNIT_CIRCLE: &str = "view=positions&ps=0&psb=0&psc=2&psn=1";
/// The softmax lab's two stacked layers, seed 1, the input scaled by 2.
pub const STACKED: &str = "view=softmax&smp=2&sxs=1&sxc=2";
/// The contrastive lab on all-MiniLM-L6-v2, its default pairs and the hard negative in use.
pub const INFONCE: &str = "view=contrastive&model=all-MiniLM-L6-v2&cuse=1&ctau=0.05";
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
        id: "why-attention",
        pages: &[
            Page {
                id: "the-bottleneck",
                link: "view=attention&model=translate&kind=cross&xv=head&q=0&step=0",
            },
            Page {
                id: "alignment-nobody-taught",
                link: "view=attention&model=translate&kind=cross&xv=lines&q=0&step=0",
            },
            Page {
                id: "ways-to-score-a-query",
                link: "view=scoring&model=translate&kind=cross&q=1&stau=1&dk=64",
            },
            Page {
                id: "the-bottleneck-trained",
                link: "view=rnn&model=translate&rtrain=1&rh=8&rseed=1&rstep=3",
            },
        ],
    },
    Lesson {
        id: "the-attention-layer",
        pages: &[
            Page {
                id: "queries-keys-and-values",
                link: "view=attention&model=translate&kind=cross&xv=walk&q=1&step=1",
            },
            Page {
                id: "scaled-dot-product-attention",
                link: "view=attention&model=translate&kind=cross&xv=walk&q=1&step=3",
            },
            Page {
                id: "why-divide-by-d-k",
                link: "view=scoring&model=translate&kind=cross&q=1&stau=1&dk=256",
            },
            Page {
                id: "temperature-and-entropy",
                link: "view=attention&model=translate&kind=cross&tau=0.3&xv=head&q=0&step=0",
            },
            Page {
                id: "softmax-by-hand",
                link: SOFTMAX_BY_HAND,
            },
            Page {
                id: "when-softmax-saturates",
                link: SOFTMAX_SATURATED,
            },
            Page {
                id: "q-k-and-v-by",
                link: QKV_BY_HAND,
            },
            Page {
                id: "routing-0-1-0-3-0-6",
                link: ROUTING,
            },
        ],
    },
    Lesson {
        id: "self-attention",
        pages: &[
            Page {
                id: "every-token-sees-every-token",
                link: SELF_ATTENTION_GRID,
            },
            Page {
                id: "order-means-nothing-to-attention",
                link: "view=positions&ps=5",
            },
            Page {
                id: "what-it-costs",
                link: "view=attention&model=lm&xv=head&q=0&step=0",
            },
            Page {
                id: "what-does-it-read",
                link: COREFERENCE,
            },
            Page {
                id: "relevance-is-not-symmetric",
                link: BANK,
            },
            Page {
                id: "who-bit-whom",
                link: WHO_BIT_WHOM,
            },
            Page {
                id: "the-cost-calculator",
                link: COSTS,
            },
            Page {
                id: "stacked-attention-without-a",
                link: STACKED,
            },
        ],
    },
    Lesson {
        id: "positional-encodings",
        pages: &[
            Page {
                id: "naive-positions",
                link: "view=positions&ps=1",
            },
            Page {
                id: "sinusoidal-encodings",
                link: "view=positions&ps=0&psd=64",
            },
            Page {
                id: "rope-rotate-queries-and-keys",
                link: "view=positions&ps=4",
            },
            Page {
                id: "longer-than-trained",
                link: "view=positions&ps=6",
            },
            Page {
                id: "a-band-on-the-unit-circle",
                link: UNIT_CIRCLE,
            },
            Page {
                id: "does-position-survive-depth",
                link: "view=positions&ps=8&model=all-MiniLM-L6-v2",
            },
        ],
    },
    Lesson {
        id: "masking",
        pages: &[
            Page {
                id: "the-causal-mask",
                link: "view=masking&model=translate&kind=dec&ms=0&mm=1&pads=2",
            },
            Page {
                id: "padding-in-a-batch",
                link: "view=masking&model=translate&kind=dec&ms=1&mm=3&pads=2",
            },
            Page {
                id: "teacher-forcing",
                link: "view=masking&model=translate&kind=dec&ms=3&mm=1&pads=2",
            },
            Page {
                id: "exposure-bias-measured",
                link: "view=masking&model=translate&kind=dec&ms=3&mm=1&pads=2",
            },
        ],
    },
    Lesson {
        id: "multi-head-attention",
        pages: &[
            Page {
                id: "many-heads-same-cost",
                link: MULTI_HEAD_GRID,
            },
            Page {
                id: "a-previous-token-head",
                link: PREVIOUS_TOKEN,
            },
            Page {
                id: "an-induction-head",
                link: "view=attention&model=repeat&layer=1&head=0&xv=head&q=12&step=0",
            },
            Page {
                id: "sharing-keys-and-values-mqa",
                link: "view=heads&model=translate&hsec=1&kvtrain=1",
            },
            Page {
                id: "induction-on-real-words",
                link: INDUCTION,
            },
            Page {
                id: "names-come-back",
                link: NAMES,
            },
            Page {
                id: "switching-heads-off",
                link: "view=heads&model=translate&hrank=1",
            },
            Page {
                id: "nine-query-heads-three-caches",
                link: "view=heads&model=SmolLM2-135M-Instruct.Q4_1",
            },
        ],
    },
    Lesson {
        id: "the-transformer-block",
        pages: &[
            Page {
                id: "heads-back-together",
                link: "view=attention&model=translate&kind=enc&xv=walk&q=0&step=7",
            },
            Page {
                id: "add-norm-and-the-feed",
                link: "view=attention&model=translate&kind=enc&xv=walk&q=0&step=9",
            },
            Page {
                id: "cross-attention",
                link: "view=attention&model=translate&kind=cross&xv=grid&q=0&step=0",
            },
            Page {
                id: "one-block-three-families",
                link: "view=masking&model=translate&kind=dec&ms=2&mm=1&pads=2",
            },
            Page {
                id: "from-the-last-layer-to",
                link: OUTPUT_LAYER,
            },
            Page {
                id: "deep-stacks-pre-norm-and",
                link: "view=depth&model=sotu-lm&dn=12&dseed=1",
            },
            Page {
                id: "deep-stacks-trained",
                link: "view=depth&model=sotu-lm&dsec=1&dtn=6&dwarm=0&dseed=1&dtrain=1",
            },
            Page {
                id: "the-original-transformer-65-m",
                link: COSTS,
            },
        ],
    },
    Lesson {
        id: "training",
        pages: &[
            Page {
                id: "cross-entropy-and-teacher-forcing",
                link: "view=training&task=reverse",
            },
            Page {
                id: "warmup-and-clipping",
                link: "view=training&task=reverse",
            },
            Page {
                id: "another-task-another-pattern",
                link: "view=training&task=sort",
            },
            Page {
                id: "without-warmup",
                link: WITHOUT_WARMUP,
            },
            Page {
                id: "pre-training-by-filling-blanks",
                link: FILL_BLANKS,
            },
            Page {
                id: "the-blank-reads-both-ways",
                link: BLANK_READS,
            },
            Page {
                id: "training-memory-at-l-512",
                link: TRAINING_MEMORY,
            },
            Page {
                id: "how-many-heads",
                link: "view=heads&model=lm&hsec=2&hctrain=1",
            },
        ],
    },
    Lesson {
        id: "decoding",
        pages: &[
            Page {
                id: "greedy-decoding",
                link: "view=decoding&ds=table&beam=1&alpha=0",
            },
            Page {
                id: "beam-search",
                link: "view=decoding&ds=table&beam=2&alpha=0",
            },
            Page {
                id: "beam-search-on-a-real",
                link: "view=decoding&ds=translate&beam=3&alpha=0",
            },
            Page {
                id: "sampling-temperature-top-k-top",
                link: "view=decoding&ds=lm&beam=1&alpha=0&open=sampling",
            },
            Page {
                id: "the-kv-cache",
                link: "view=decoding&ds=translate&beam=1&alpha=0&open=cache",
            },
            Page {
                id: "greedy-and-beam-disagree-on",
                link: BEAM_ENGLISH,
            },
            Page {
                id: "length-normalisation-on-a-real",
                link: LENGTH_NORMALISATION,
            },
        ],
    },
    Lesson {
        id: "the-notes-worked-examples",
        pages: &[
            Page {
                id: "0-45-0-45-0",
                link: ESTAMOS,
            },
            Page {
                id: "softmax-0-2-1",
                link: SOFTMAX_BY_HAND,
            },
            Page {
                id: "start-big-cat",
                link: START_BIG_CAT,
            },
            Page {
                id: "d-4-i-can-buy",
                link: SMALL_SINUSOIDAL,
            },
            Page {
                id: "rope-on-the-dog-slept",
                link: NOTES_ROPE,
            },
            Page {
                id: "je-suis-tudiant-b-2",
                link: JE_SUIS,
            },
            Page {
                id: "l-100-d-512",
                link: COSTS,
            },
            Page {
                id: "infonce-classify-the-positive",
                link: INFONCE,
            },
        ],
    },
    super::influence::WHAT_ATTENTION_DOES,
    Lesson {
        id: "attention-on-images",
        pages: &[
            Page {
                id: "an-image-as-tokens",
                link: "view=vision&vtask=larger&vimg=0&vq=0&vsize=224x224x3/16",
            },
            Page {
                id: "where-the-class-token-looks",
                link: "view=vision&vtask=larger&vtrain=1&vimg=0&vlayer=1&vhead=mean&vq=0",
            },
            Page {
                id: "soft-and-hard-attention",
                link: "view=vision&vtask=larger&vtrain=1&vimg=1&vlayer=1&vhead=mean&vq=0&vu=0.5",
            },
            Page {
                id: "attention-inside-a-cnn",
                link: "view=vision&vimg=0&vcw=ink&vcs=3&vcq=67",
            },
        ],
    },
];
