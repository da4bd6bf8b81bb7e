//! The run on a thread (native): the browser's `WorkerRun`, fed its commands through a channel.
//! The thread folds its updates into the lab's progress itself, with the page's `apply`, and
//! asks for a frame.

use super::{apply, lock, Command, Progress, Update, WorkerRun};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// The lab's end of the training thread.
pub struct ThreadSide {
    commands: mpsc::Sender<Command>,
    /// Until the thread's end has been reported.
    thread: Option<JoinHandle<()>>,
    /// Asked for a frame when an update lands; the lab's first frame sets it.
    wake: Arc<OnceLock<egui::Context>>,
}

impl ThreadSide {
    /// A thread waiting for its first `Command::Replace`, or why there is none.
    pub fn spawn(shared: &Arc<Mutex<Progress>>) -> Result<Self, String> {
        let (commands, inbox) = mpsc::channel();
        let wake = Arc::new(OnceLock::<egui::Context>::new());
        let (shared, waker) = (Arc::clone(shared), Arc::clone(&wake));
        let publish = move |(update, floats): (Update, Vec<f32>)| {
            apply(&mut lock(&shared), update, &floats);
            if let Some(ctx) = waker.get() {
                ctx.request_repaint();
            }
        };
        let thread = std::thread::Builder::new()
            .name("glimpse-training".into())
            .spawn(move || serve(&inbox, publish))
            .map_err(|e| format!("no thread: {e}"))?;
        Ok(Self {
            commands,
            thread: Some(thread),
            wake,
        })
    }

    pub fn send(&self, command: Command) {
        // Fails only once the thread has stopped, which `receive` reports.
        let _ = self.commands.send(command);
    }

    pub fn crashed(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// The updates are already in `shared`; a stopped thread's panic becomes the run's error.
    pub fn receive(&mut self, shared: &Mutex<Progress>, ctx: Option<&egui::Context>) {
        if let Some(ctx) = ctx {
            self.wake.get_or_init(|| ctx.clone());
        }
        if !self.thread.as_ref().is_some_and(JoinHandle::is_finished) {
            return;
        }
        let reason = match self.thread.take().map(JoinHandle::join) {
            Some(Err(panic)) => crate::util::panic_text(&*panic).unwrap_or_default(),
            _ => String::new(),
        };
        let mut p = lock(shared);
        p.error = Some(crate::t!("training-worker-crashed", reason = reason));
        p.running = false;
    }
}

/// The thread: waits for commands while paused; while running, trains a slice, then rests the
/// remainder of the period (answering commands meanwhile). Ends when the lab drops its end of
/// the channel.
fn serve(inbox: &mpsc::Receiver<Command>, mut publish: impl FnMut((Update, Vec<f32>))) {
    let mut run = WorkerRun::default();
    loop {
        let command = if run.running() {
            let rest = Duration::from_millis(run.rest_ms().max(0) as u64);
            match inbox.recv_timeout(rest) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        } else {
            match inbox.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        };
        let reply = match command {
            Some(c) => run.handle(c),
            None => run.tick(),
        };
        if let Some(reply) = reply {
            publish(reply);
        }
    }
}
