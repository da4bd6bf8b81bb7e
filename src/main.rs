//! Native: the CLI, or the desktop app when no subcommand is given. Browser: the web runner.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use clap::Parser;
    glimpse::cli::keep_freed_memory();
    let cli = glimpse::cli::Cli::parse();
    match cli.command {
        Some(cmd) => match glimpse::cli::run(cmd) {
            Ok(out) => {
                print!("{out}");
                if !out.ends_with('\n') {
                    println!();
                }
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::ExitCode::from(2)
            }
        },
        None => {
            env_logger::init();
            let options = eframe::NativeOptions {
                viewport: egui::ViewportBuilder::default()
                    .with_title("Glimpse")
                    .with_inner_size([1280.0, 800.0]),
                ..Default::default()
            };
            match eframe::run_native(
                "Glimpse",
                options,
                Box::new(move |cc| {
                    let mut app = glimpse::app::GlimpseApp::new(cc);
                    if let Some(path) = &cli.model {
                        if let Err(e) = app.open_model_path(path) {
                            eprintln!("error: {e}");
                        }
                    }
                    if let Some(link) = &cli.open {
                        app.open_link(link);
                    }
                    Ok(Box::new(app))
                }),
            ) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: could not open the desktop window: {e}");
                    std::process::ExitCode::from(1)
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::JsCast;
    eframe::WebLogger::init(log::LevelFilter::Info).ok();
    // In a Web Worker (`web/worker.js`) this module only serves `glimpse_worker_start`.
    let Some(window) = web_sys::window() else {
        return;
    };
    let cores = window.navigator().hardware_concurrency() as usize;
    wasm_bindgen_futures::spawn_local(async move {
        // The module's start (its memory filled, `main`) has held the page 50-70 ms by now:
        // the workers are started in a task of their own (docs/benchmarks.md, long tasks).
        glimpse::app::worker::yield_to_browser().await;
        // The threaded build (scripts/web_threads.sh): a worker per core for the pool, and the
        // engine that runs long passes off this thread. Without them it runs as the plain build.
        #[cfg(target_feature = "atomics")]
        if let Err(e) = glimpse::app::threads::start(cores.clamp(1, 8)) {
            log::warn!("glimpse: no threads, everything runs on the page's thread: {e}");
        }
        #[cfg(not(target_feature = "atomics"))]
        let _ = cores;
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            log::error!("glimpse: no document");
            return;
        };
        let Some(canvas) = document
            .get_element_by_id("glimpse_canvas")
            .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            log::error!("glimpse: no canvas with id glimpse_canvas");
            return;
        };
        gpu_warmed().await;
        // The texts parsed in a task of their own, then eframe's start in the next: one task
        // with both held the page over 50 ms (docs/benchmarks.md, long tasks).
        glimpse::app::worker::yield_to_browser().await;
        glimpse::i18n::warm_up();
        glimpse::app::worker::yield_to_browser().await;
        let runner = eframe::WebRunner::new();
        // After eframe's own hook (it logs the panic): a dead canvas would otherwise just stop.
        glimpse::app::shell::crash::install_overlay();
        let started = runner
            .start(
                canvas,
                eframe::WebOptions::default(),
                Box::new(|cc| Ok(Box::new(glimpse::app::GlimpseApp::new(cc)))),
            )
            .await;
        if let Some(loading) = document.get_element_by_id("loading_text") {
            match started {
                Ok(()) => loading.remove(),
                Err(e) => {
                    loading.set_inner_html(
                        "<p>Glimpse could not start: your browser may not support WebGL2.</p>",
                    );
                    log::error!("glimpse: failed to start: {e:?}");
                }
            }
        }
    });
}

/// Waits for the loader's throwaway WebGL context in a worker (`web/loader.js`,
/// `window.glimpseGpuWarm`, which settles within about 3 s): the browser's GPU process then starts
/// off the page's thread, and eframe's own context takes 20–30 ms instead of holding the page
/// 250–300 ms under a software renderer. Without the promise it returns at once.
#[cfg(target_arch = "wasm32")]
async fn gpu_warmed() {
    use wasm_bindgen::JsCast;
    let warm = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"glimpseGpuWarm".into()).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    if let Some(p) = warm {
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    }
}
