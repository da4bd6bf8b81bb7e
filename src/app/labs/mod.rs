//! The labs that have no folder of their own: scoring (one file) and training (the view in
//! `training`, the run it drives in `training_run`). The explorer, masking, positions and
//! decoding labs each live in their own folder under `app/`.

pub mod scoring;
pub mod training;
pub mod training_run;
