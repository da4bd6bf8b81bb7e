//! The notes' ViT arithmetic for any image: an H × W image with C channels cut into P × P
//! patches gives (H/P)·(W/P) patch tokens, one more with the class token, each a P²·C-vector
//! before its embedding; every head then scores tokens² pairs.

use crate::t;
use crate::train::vision::PatchGrid;
use egui::{DragValue, RichText, Ui};

/// "224x224x3/16" as [height, width, channels, patch].
pub fn parse(text: &str) -> Option<[usize; 4]> {
    let (image, patch) = text.split_once('/')?;
    let mut dims = image.split('x').map(|v| v.parse::<usize>().ok());
    let (h, w, c) = (dims.next()??, dims.next()??, dims.next()??);
    let p = patch.parse::<usize>().ok()?;
    (dims.next().is_none() && PatchGrid::new(h, w, c, p).is_ok() && h.max(w) <= MAX_SIDE)
        .then_some([h, w, c, p])
}

/// The largest side the calculator takes.
const MAX_SIDE: usize = 4096;

pub fn show(ui: &mut Ui, sizes: &mut [usize; 4]) {
    ui.heading(t!("vision-arithmetic-heading"));
    ui.horizontal_wrapped(|ui| {
        let names = [
            t!("vision-arithmetic-height"),
            t!("vision-arithmetic-width"),
            t!("vision-arithmetic-channels"),
            t!("vision-arithmetic-patch"),
        ];
        let ranges = [1..=MAX_SIDE, 1..=MAX_SIDE, 1..=4, 1..=MAX_SIDE];
        for ((value, name), range) in sizes.iter_mut().zip(names).zip(ranges) {
            let label = ui.label(name);
            ui.add(DragValue::new(value).range(range))
                .labelled_by(label.id);
        }
        if ui.button(t!("vision-arithmetic-notes")).clicked() {
            *sizes = [224, 224, 3, 16];
        }
    });
    let [h, w, c, p] = *sizes;
    match PatchGrid::new(h, w, c, p) {
        Ok(g) => {
            ui.label(
                RichText::new(t!(
                    "vision-arithmetic-result",
                    down = g.down(),
                    across = g.across(),
                    patches = g.patches(),
                    tokens = g.tokens(),
                    patch = p,
                    channels = c,
                    numbers = g.vector_len(),
                    pairs = crate::util::grouped((g.tokens() * g.tokens()) as u128)
                ))
                .strong(),
            );
            if g.leftover_pixels() > 0 {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    t!(
                        "vision-arithmetic-leftover",
                        rows = g.leftover_rows(),
                        cols = g.leftover_cols(),
                        pixels = crate::util::grouped(g.leftover_pixels() as u128)
                    ),
                );
            }
        }
        Err(e) => {
            ui.colored_label(ui.visuals().warn_fg_color, e);
        }
    }
    ui.weak(t!("vision-arithmetic-here"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_links_round_trip_and_bad_ones_are_refused() {
        assert_eq!(parse("224x224x3/16"), Some([224, 224, 3, 16]));
        assert_eq!(parse("100x60x1/7"), Some([100, 60, 1, 7]));
        for bad in [
            "",
            "224x224/16",
            "224x224x3",
            "0x5x1/1",
            "5x5x1/6",
            "9999x5x1/1",
            "axbxc/d",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
