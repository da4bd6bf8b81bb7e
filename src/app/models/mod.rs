//! Where models come from and where they live: the store (each model loaded once, passes
//! memoised and sliced), the sources a name stands for, the background fetches, the hubs, and
//! the Open window that hands the store files. The store draws nothing; the Open window and
//! the pass answer are the only parts here that draw.

pub mod conversion_job;
#[cfg(target_arch = "wasm32")]
pub mod fetch;
pub mod loading;
pub mod open_dialog;
pub mod opening;
pub mod pass_answer;
pub mod pass_job;
#[cfg(target_arch = "wasm32")]
pub mod remote;
pub mod running;
pub mod sources;
pub mod store;
