//! The attention explorer: views over one trace of the loaded model on the user's input.
//! Each view has its own file; this one holds what they share (the selection and options).

pub mod finder;
pub mod grid;
pub mod head;
pub mod lab;
pub mod lines;
pub mod walkthrough;

use crate::app::words::Words;
use crate::model::{AttentionKind, Trace};

/// The explorer's views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplorerView {
    /// One head as a heatmap, before or after the softmax.
    Head,
    /// Every head of every layer as thumbnails, with the mean over heads and a summary table.
    Grid,
    /// Lines from query tokens to key tokens, one colour per head.
    Lines,
    /// `softmax(QKᵀ/√d_k)V` one matrix at a time.
    Walkthrough,
}

impl ExplorerView {
    pub const ALL: [ExplorerView; 4] = [
        ExplorerView::Head,
        ExplorerView::Grid,
        ExplorerView::Lines,
        ExplorerView::Walkthrough,
    ];

    /// Its tab's name, in the reader's language.
    pub fn label(self) -> String {
        match self {
            ExplorerView::Head => crate::t!("attention-view-head"),
            ExplorerView::Grid => crate::t!("attention-view-grid"),
            ExplorerView::Lines => crate::t!("attention-view-lines"),
            ExplorerView::Walkthrough => crate::t!("attention-view-walkthrough"),
        }
    }

    /// Its name in English whatever the reader's language: the tests' control names
    /// (`view:All heads`) and the export files' names.
    pub fn name(self) -> &'static str {
        match self {
            ExplorerView::Head => "One head",
            ExplorerView::Grid => "All heads",
            ExplorerView::Lines => "Head view",
            ExplorerView::Walkthrough => "Walkthrough",
        }
    }
}

/// Which attention the views look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    pub kind: AttentionKind,
    pub layer: usize,
    pub head: usize,
    /// The query row the walkthrough follows, the heatmap outlines and the scoring lab scores.
    pub query: usize,
}

impl Selection {
    /// "layer 1 · head 2 · cross-attention"
    pub fn describe(&self) -> String {
        crate::t!(
            "attention-selection",
            layer = self.layer,
            head = self.head,
            kind = self.kind.words()
        )
    }

    /// Keep layer and head inside what `trace` has.
    pub fn clamp_to(&mut self, trace: &Trace) {
        let layers = trace.layers(self.kind);
        self.layer = self.layer.min(layers.saturating_sub(1));
        let heads = trace
            .weights(self.kind, self.layer)
            .map_or(1, |w| w.len_of(ndarray::Axis(0)));
        self.head = self.head.min(heads.saturating_sub(1));
    }
}

/// View options that persist while the user moves between views.
#[derive(Debug, Clone, PartialEq)]
pub struct Explorer {
    pub view: ExplorerView,
    /// Show the softmax's input (scaled scores + bias, −∞ where masked) instead of weights.
    pub pre_softmax: bool,
    pub show_numbers: bool,
    /// Heatmap zoom (1 = fit).
    pub zoom: f32,
    /// Walkthrough step.
    pub step: usize,
    /// Head view: which heads draw their lines.
    pub heads_shown: Vec<bool>,
}

impl Default for Explorer {
    fn default() -> Self {
        Self {
            view: ExplorerView::Head,
            pre_softmax: false,
            show_numbers: true,
            zoom: 1.0,
            step: 0,
            heads_shown: Vec::new(),
        }
    }
}
