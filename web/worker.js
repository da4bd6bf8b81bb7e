// A Web Worker running Glimpse's own wasm (src/app/worker.rs). The page's first message names
// the app's JavaScript glue and wasm; the worker loads that same module (already in the
// browser's cache), and from then on Rust handles every message. Messages that arrive while
// the module loads wait in order.
const waiting = [];
self.onmessage = async (event) => {
  const boot = event.data && event.data.boot;
  if (!boot) {
    waiting.push(event);
    return;
  }
  try {
    const glue = await import(boot.js);
    await glue.default({ module_or_path: boot.wasm });
    glue.glimpse_worker_start();
    for (const queued of waiting.splice(0)) self.onmessage(queued);
  } catch (err) {
    self.postMessage({ crashed: `the worker could not load Glimpse: ${err}` });
  }
};
