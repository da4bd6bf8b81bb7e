//! The lab registry. A lab is one tab of the app: it owns its state, draws itself, and reads
//! and writes its own keys of a link. [`Labs::default`] is the one ordered list of labs: it
//! makes the tabs, the link format, the lesson pages' targets (a page names its lab by id),
//! and the every-view walk the browser and desktop tests take.
//!
//! Every lab is one folder here (`attention`, `masking`, `positions`, `decoding`, `induction`,
//! `heads`, `influence`, `depth`, `scoring`, `softmax`, `contrastive`, `cost`, `training`,
//! `rnn`), its maths in plain
//! functions apart from its drawing; `race` is the side-by-side training the heads and depth
//! labs share. Adding a lab is one folder implementing [`Lab`] plus one line in that list.

pub mod attention;
pub mod contrastive;
pub mod cost;
pub mod decoding;
pub mod depth;
pub mod heads;
pub mod induction;
pub mod influence;
pub mod masking;
pub mod positions;
pub mod race;
pub mod rnn;
pub mod scoring;
pub mod softmax;
pub mod training;
pub mod vision;

use crate::app::export::Exporter;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::models::store::ModelStore;
use crate::app::workbench::Workbench;
use std::any::Any;

/// What every lab is given each frame: the models, the shared input and its trace, and the
/// exporter for its figures.
pub struct Shared<'a> {
    pub store: &'a ModelStore,
    pub bench: &'a mut Workbench,
    pub exporter: &'a mut Exporter,
    /// Frames drawn so far (the browser and desktop tests' probe reports it).
    pub frames: u64,
}

/// How a lab fills the space below the tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The app gives it a scrolling central panel (and, for labs on the shared input, the
    /// input and attention controls on the left).
    Scrolling,
    /// It lays out its own panels.
    OwnPanels,
}

/// One tab of the app.
pub trait Lab: AsAny {
    /// Its name in links (`view=…`) and in the tests' control names.
    fn id(&self) -> &'static str;
    /// Its tab's title: the message `tab-<id>`.
    fn title(&self) -> String {
        crate::i18n::tr(&format!("tab-{}", self.id()), &[])
    }
    /// Whether it runs the shared model and input (the model picker and the input controls
    /// then apply), or brings its own models.
    fn uses_shared_input(&self) -> bool;
    /// Whether it reads the shared model (the model picker applies) without its input.
    fn uses_shared_model(&self) -> bool {
        self.uses_shared_input()
    }
    /// One line beside the tabs for labs with their own models.
    /// (The message `tab-<id>-about`, where the lab has one.)
    fn about(&self) -> String {
        let key = format!("tab-{}-about", self.id());
        if crate::i18n::has(crate::i18n::ENGLISH, &key) {
            crate::i18n::tr(&key, &[])
        } else {
            String::new()
        }
    }
    fn layout(&self) -> Layout {
        Layout::Scrolling
    }
    /// Draw the lab (with its own export menu).
    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>);
    /// The keys it writes and reads.
    fn keys(&self) -> &'static [&'static str];
    /// Its state as link pairs.
    fn save(&self, link: &mut LinkWriter);
    /// Its state from link pairs; what it cannot read goes to the reader's notices.
    fn load(&mut self, link: &mut LinkReader);
    /// Link fragments (without `v=`) that open each of its sections.
    fn sections(&self) -> Vec<String> {
        vec![format!("view={}", self.id())]
    }
}

/// Lets the registry hand back a lab as its own type; implemented for every type at once.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Every lab, in tab order.
pub struct Labs(Vec<Box<dyn Lab>>);

impl Default for Labs {
    fn default() -> Self {
        Self(vec![
            Box::new(attention::lab::AttentionLab::default()),
            Box::new(masking::MaskingLab::default()),
            Box::new(positions::PositionsLab::default()),
            Box::new(decoding::DecodingLab::default()),
            Box::new(induction::InductionLab::default()),
            Box::new(heads::HeadsLab::default()),
            Box::new(influence::InfluenceLab::default()),
            Box::new(depth::DepthLab::default()),
            Box::new(scoring::ScoringLab::default()),
            Box::new(softmax::SoftmaxLab::default()),
            Box::new(contrastive::ContrastiveLab::default()),
            Box::new(vision::VisionLab::default()),
            Box::new(cost::CostLab::default()),
            Box::new(training::TrainingLab::default()),
            Box::new(rnn::RnnLab::default()),
        ])
    }
}

impl Labs {
    pub fn iter(&self) -> impl Iterator<Item = &dyn Lab> {
        self.0.iter().map(|l| l.as_ref())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Box<dyn Lab>> {
        self.0.iter_mut()
    }

    pub fn by_id(&self, id: &str) -> Option<&dyn Lab> {
        self.iter().find(|l| l.id() == id)
    }

    pub fn by_id_mut(&mut self, id: &str) -> Option<&mut Box<dyn Lab>> {
        self.0.iter_mut().find(|l| l.id() == id)
    }

    /// The registered lab of type `T`.
    pub fn get<T: Lab>(&self) -> Option<&T> {
        self.0.iter().find_map(|l| (**l).as_any().downcast_ref())
    }

    pub fn get_mut<T: Lab>(&mut self) -> Option<&mut T> {
        self.0
            .iter_mut()
            .find_map(|l| (**l).as_any_mut().downcast_mut())
    }
}
