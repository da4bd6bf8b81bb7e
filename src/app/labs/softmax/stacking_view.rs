//! The softmax lab's third part: two stacked attention layers, the one layer they collapse
//! into with their weights held, and which ways of making the weights keep the stack linear.

use super::stacking::{Stack, Weights, D, T};
use super::{matrix, trim};
use crate::app::widgets::colormap::ColorScale;
use crate::t;
use egui::Ui;
use ndarray::Array2;

/// Range of the "scale the input by c" slider.
pub const SCALES: std::ops::RangeInclusive<f32> = 0.25..=4.0;

fn f32s(m: &Array2<f64>) -> Array2<f32> {
    m.mapv(|x| x as f32)
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}{i}")).collect()
}

/// A relative error or difference: 0, a plain number from 0.01 to 1000, else powers of ten.
fn sci(x: f64) -> String {
    let text = if x == 0.0 {
        "0".to_string()
    } else if (0.01..1000.0).contains(&x.abs()) {
        format!("{x:.3}")
    } else {
        format!("{x:.1e}")
    };
    text.replace('-', "−")
}

/// The part's view: `seed` draws X, X′ and the two layers; `c` scales X in the linearity test.
pub(super) fn stacking_ui(ui: &mut Ui, seed: &mut u64, c: &mut f32) {
    crate::app::widgets::math_text::label(ui, &t!("softmax-stack-intro"));
    ui.horizontal_wrapped(|ui| {
        let name = ui.label(t!("softmax-stack-seed"));
        ui.add(egui::DragValue::new(seed).range(1..=9999))
            .labelled_by(name.id);
        if ui.button(t!("softmax-stack-new")).clicked() {
            *seed = *seed % 9999 + 1;
        }
    });
    let stack = Stack::new(*seed);
    let pass = stack.pass(&stack.x, Weights::Softmax);
    let collapse = stack.collapse();
    let tokens = names("x", T);
    let dims = names("", D);
    ui.separator();
    ui.strong(t!("softmax-stack-collapse-title"));
    crate::app::widgets::math_text::monospace(
        ui,
        "Y₂ = A₂·(A₁·X·W_V1)·W_V2 = (A₂A₁)·X·(W_V1·W_V2)",
    );
    let weights = ColorScale::Sequential { min: 0.0, max: 1.0 };
    crate::app::widgets::fit::columns(ui, 3, 220.0, |cols| {
        let a = (t!("softmax-axis-query"), t!("softmax-axis-key"));
        cols[0].label("A₁");
        matrix(
            &mut cols[0],
            &f32s(&pass.weights[0]),
            &tokens,
            &tokens,
            weights,
            (&a.0, &a.1),
            None,
        );
        cols[1].label("A₂");
        matrix(
            &mut cols[1],
            &f32s(&pass.weights[1]),
            &tokens,
            &tokens,
            weights,
            (&a.0, &a.1),
            None,
        );
        cols[2].label("A₂A₁");
        let star = f32s(&collapse.a_star);
        matrix(
            &mut cols[2],
            &star,
            &tokens,
            &tokens,
            weights,
            (&a.0, &a.1),
            None,
        );
    });
    ui.horizontal_top(|ui| {
        ui.vertical(|ui| {
            crate::app::widgets::math_text::label(ui, "W_V1·W_V2");
            let v = f32s(&collapse.v_star);
            let limit = v.iter().fold(0.0f32, |m, x| m.max(x.abs())).max(1e-6);
            let axes = (t!("softmax-axis-dimension"), t!("softmax-axis-dimension"));
            matrix(
                ui,
                &v,
                &dims,
                &dims,
                ColorScale::Diverging { limit },
                (&axes.0, &axes.1),
                None,
            );
        });
        ui.vertical(|ui| {
            crate::app::widgets::math_text::label(
                ui,
                &t!(
                    "softmax-stack-collapse-check",
                    difference = sci(collapse.difference),
                    low = trim(collapse.row_sums.0 as f32),
                    high = trim(collapse.row_sums.1 as f32),
                ),
            );
            ui.weak(t!("softmax-stack-collapse-note"));
        });
    });
    ui.separator();
    ui.strong(t!("softmax-stack-linear-title"));
    crate::app::widgets::fit::add(
        ui,
        egui::Slider::new(c, SCALES).text(t!("softmax-stack-scale")),
    );
    let scale = *c as f64;
    egui::Grid::new("softmax_stacking_linearity")
        .striped(true)
        .spacing([18.0, 4.0])
        .show(ui, |ui| {
            ui.strong(t!("softmax-stack-how"));
            ui.strong(t!("softmax-stack-scaling", c = trim(*c)));
            ui.strong(t!("softmax-stack-sum"));
            ui.strong(t!("softmax-stack-ratio", c = trim(*c)));
            ui.end_row();
            for how in Weights::ALL {
                let check = stack.linearity(how, scale);
                ui.label(match how {
                    Weights::Held => t!("softmax-stack-held"),
                    Weights::Scores => t!("softmax-stack-scores"),
                    Weights::Softmax => t!("softmax-stack-softmax"),
                });
                ui.monospace(sci(check.scaling));
                ui.monospace(sci(check.sum));
                let (lo, hi) = check.ratio;
                let same = (hi - lo).abs() <= 1e-6 * hi.abs().max(1.0);
                ui.monospace(if same {
                    t!("softmax-stack-ratio-one", ratio = trim_f64(lo))
                } else {
                    t!(
                        "softmax-stack-ratio-range",
                        low = trim_f64(lo),
                        high = trim_f64(hi)
                    )
                });
                ui.end_row();
            }
        });
    ui.label(t!(
        "softmax-stack-linear-reading",
        c = trim(*c),
        c9 = trim_f64(scale.powi(9)),
    ));
    ui.weak(t!("softmax-stack-linear-note"));
}

/// Like `trim`, for ratios that may be large (c⁹ at c = 4 is 262,144).
fn trim_f64(x: f64) -> String {
    if x.abs() >= 1000.0 {
        format!("{x:.0}").replace('-', "−")
    } else if x != 0.0 && x.abs() < 0.001 {
        sci(x)
    } else {
        trim(x as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn the_part_shows_the_collapse_and_the_three_ways_of_making_weights() {
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 1000.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                |ui, (seed, c): &mut (u64, f32)| {
                    egui::ScrollArea::vertical().show(ui, |ui| stacking_ui(ui, seed, c));
                },
                (1u64, 2.0f32),
            );
        h.run_steps(2);
        let stack = Stack::new(1);
        let d = sci(stack.collapse().difference);
        h.get_by_label_contains(&format!("largest difference {d}, rounding only"));
        h.get_by_label_contains("from 1 to 1");
        // c = 2: the no-softmax row scales every entry by 2⁹ = 512, the held row by 2.
        h.get_by_label("all 512");
        h.get_by_label("all 2");
        h.get_by_label_contains("c⁹ = 512 at c = 2");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "scale the input: c");
        h.get_by_label("new draw").click();
        h.run_steps(2);
        assert_eq!(h.state().0, 2, "a new draw moves the seed");
        h.state_mut().1 = 3.0;
        h.run_steps(2);
        h.get_by_label("all 19683");
    }
}
