//! Everyone in the room: the app's accessibility tree where a screen reader can read it.
//! Natively eframe hands egui's AccessKit tree to the platform (its `accesskit` feature); in the
//! browser eframe drops it, so `web` mirrors it into hidden page elements.

pub mod markup;
pub mod mirror;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "wasm32")]
pub mod web;
