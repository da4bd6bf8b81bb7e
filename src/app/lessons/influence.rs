//! The lesson on what attention does, on SmolLM2: the logit lens, looking against using, the
//! heads that say a name, and induction shown causally. Every number on these pages is
//! computed by the Influence lab on the page's own link (`influence_tests` checks them).

use super::{Lesson, Page};

const LENS: &str = "view=influence&model=SmolLM2-135M-Instruct.Q4_1&src=The%20Eiffel%20Tower%20is%20in%20the%20city%20of&isec=0&itgt=%20Paris";
const LOOKING: &str = "view=influence&model=SmolLM2-135M-Instruct.Q4_1&src=When%20Mary%20and%20John%20went%20to%20the%20store%2C%20John%20gave%20a%20drink%20to&isec=3&itgt=%20Mary&icon=%20John&ieff=1&iabl=1";
const NAMES: &str = "view=influence&model=SmolLM2-135M-Instruct.Q4_1&src=When%20Mary%20and%20John%20went%20to%20the%20store%2C%20John%20gave%20a%20drink%20to&isec=2&itgt=%20Mary&icon=%20John&icor=When%20Mary%20and%20John%20went%20to%20the%20store%2C%20Mary%20gave%20a%20drink%20to&isweep=1";
const INDUCTION_SWEEP: &str = "view=influence&model=SmolLM2-135M-Instruct.Q4_1&src=violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20copper%20velvet%20violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20copper&isec=2&itgt=%20velvet&icon=%20silver&icor=violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20stone%20velvet%20violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20copper&isweep=1";
const PREVIOUS_TOKEN_HEAD: &str = "view=attention&model=SmolLM2-135M-Instruct.Q4_1&src=violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20copper%20velvet%20violet%20gravel%20echo%20pencil%20harbor%20quartz%20mitten%20falcon%20ladder%20copper&kind=dec&layer=16&head=0&xv=head&q=12&step=0";

pub const WHAT_ATTENTION_DOES: Lesson = Lesson {
    id: "what-attention-does",
    pages: &[
        Page {
            id: "what-each-layer-predicts",
            link: LENS,
        },
        Page {
            id: "looking-is-not-using",
            link: LOOKING,
        },
        Page {
            id: "who-says-the-name",
            link: NAMES,
        },
        Page {
            id: "induction-causally",
            link: INDUCTION_SWEEP,
        },
        Page {
            id: "the-head-that-reads-the",
            link: PREVIOUS_TOKEN_HEAD,
        },
    ],
};
