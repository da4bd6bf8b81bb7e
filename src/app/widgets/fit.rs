//! Keeping rows of controls inside a narrow screen. egui wraps a `horizontal_wrapped` row
//! widget by widget, but a slider (or any group) is laid out as one unit whose width it does
//! not know in advance, so it runs past the edge instead. These helpers remember each group's
//! width from the previous frame and start a new row first when it would not fit.

use egui::{Response, Ui, Widget};

/// `add` as one unit that moves to the next row of a wrapping layout when it would not fit.
pub fn whole<R>(
    ui: &mut Ui,
    id_salt: impl std::hash::Hash + std::fmt::Debug,
    add: impl FnOnce(&mut Ui) -> R,
) -> R {
    let id = ui.scope_id().with(("fit_whole", id_salt));
    let last: Option<f32> = ui.data(|d| d.get_temp(id));
    let wraps = ui.layout().main_wrap && ui.layout().is_horizontal();
    let row_started = ui.cursor().left() > ui.max_rect().left() + 1.0;
    if let (true, true, Some(width)) = (wraps, row_started, last) {
        if width > ui.available_size_before_wrap().x {
            ui.end_row();
        }
    }
    let shown = ui.scope(add);
    let width = shown.response.rect.width();
    ui.data_mut(|d| d.insert_temp(id, width));
    shown.inner
}

/// `ui.add(widget)` kept whole (see [`whole`]); the widget's place in the code is its id.
#[track_caller]
pub fn add(ui: &mut Ui, widget: impl Widget) -> Response {
    let at = std::panic::Location::caller();
    whole(ui, (at.file(), at.line(), at.column()), |ui| ui.add(widget))
}

/// A view that scrolls rather than clips when the window is too small for it. What it holds
/// is sized to the visible area first (egui gives a scroll area's content the viewport as its
/// room), so a view that fits never shows scroll bars. `inspect` sees the content's `Ui` once
/// it is drawn (the app notes there whether the view needed scrolling).
pub fn scrolling_view<R>(
    ui: &mut Ui,
    id_salt: &str,
    add: impl FnOnce(&mut Ui) -> R,
    inspect: impl FnOnce(&Ui),
) -> R {
    egui::ScrollArea::both()
        .id_salt(("scrolling_view", id_salt))
        .auto_shrink(false)
        .show(ui, |ui| {
            let r = add(ui);
            inspect(ui);
            r
        })
        .inner
}

/// `ui.columns(n, add)` when each column gets at least `min_width`; otherwise the columns
/// are laid out in rows of as many as fit (one above the other on a tablet or a projector at
/// presenter zoom). Each row is placed below the previous one's height from the last frame,
/// and egui is asked to redo a frame whose heights changed, so nothing overlaps on screen.
#[track_caller]
pub fn columns<R>(ui: &mut Ui, n: usize, min_width: f32, add: impl FnOnce(&mut [Ui]) -> R) -> R {
    let spacing = ui.spacing().item_spacing;
    let per_row = ((ui.available_width() + spacing.x) / (min_width + spacing.x)).floor() as usize;
    let per_row = per_row.max(1);
    if per_row >= n {
        return ui.columns(n, add);
    }
    let at = std::panic::Location::caller();
    let id = ui
        .scope_id()
        .with(("fit_columns", at.file(), at.line(), at.column()));
    let heights: Vec<f32> = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let top_left = ui.cursor().min;
    let width = (ui.available_width() - spacing.x * (per_row - 1) as f32) / per_row as f32;
    let bottom = ui.max_rect().bottom();
    let mut cols: Vec<Ui> = Vec::with_capacity(n);
    let mut y = top_left.y;
    for row in 0..n.div_ceil(per_row) {
        for slot in 0..per_row.min(n - row * per_row) {
            let x = top_left.x + slot as f32 * (width + spacing.x);
            let rect = egui::Rect::from_min_max(
                egui::pos2(x, y),
                egui::pos2(x + width, bottom.max(y + 1.0)),
            );
            cols.push(
                ui.new_child(
                    egui::UiBuilder::new()
                        .max_rect(rect)
                        .layout(egui::Layout::top_down_justified(egui::Align::LEFT)),
                ),
            );
        }
        y += heights.get(row).copied().unwrap_or(0.0) + 2.0 * spacing.y;
    }
    let result = add(&mut cols);
    let now: Vec<f32> = cols
        .chunks(per_row)
        .map(|row| {
            row.iter()
                .map(|c| c.min_rect().height())
                .fold(0.0, f32::max)
        })
        .collect();
    let used = cols.iter().fold(
        egui::Rect::from_min_size(top_left, egui::Vec2::ZERO),
        |r, c| r.union(c.min_rect()),
    );
    let moved =
        now.len() != heights.len() || now.iter().zip(&heights).any(|(a, b)| (a - b).abs() > 0.5);
    if moved {
        ui.data_mut(|d| d.insert_temp(id, now));
        ui.ctx().request_discard("wrapped column heights changed");
    }
    ui.advance_cursor_after_rect(used);
    result
}
