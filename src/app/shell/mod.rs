//! The app's frame around the labs: the top bar and body, the look (presenter mode, theme,
//! fonts), the address bar's hash, and the crash overlay.

pub mod address_bar;
pub mod crash;
pub mod first_frames;
pub mod fonts;
pub mod frame;
pub mod language;
pub mod look;
pub mod shortcuts;
pub mod themes;
