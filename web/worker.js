// A Web Worker running Glimpse's own wasm. The page's first message says which role:
// - `boot` (src/app/worker.rs): a job of its own (training) on its own copy of the module;
//   from then on Rust handles every message;
// - `pool` and `engine` (src/app/threads.rs, the threaded build only): the same module on the
//   page's own shared memory; a pool worker runs one of rayon's threads for good; the engine
//   builds that pool, then runs the jobs the page sends it (`{run: pointer}`), one by one.
// Messages that arrive while the module loads wait in order. A worker that fails or traps
// says why (`{crashed}`), so the page can show it and carry on.
const waiting = [];
let ready = null;

const crashed = (what, err) => self.postMessage({ crashed: `${what}: ${err}` });

self.onmessage = async (event) => {
  const data = event.data || {};
  if (ready) return ready(event);
  if (!data.boot && !data.pool && !data.engine) {
    waiting.push(event);
    return;
  }
  try {
    if (data.boot) {
      const glue = await import(data.boot.js);
      await glue.default({ module_or_path: data.boot.wasm });
      glue.glimpse_worker_start();
      // From here on Rust's own handler (set by glimpse_worker_start) takes the messages.
      for (const queued of waiting.splice(0)) self.onmessage(queued);
      return;
    }
    const role = data.pool || data.engine;
    const glue = await import(role.js);
    await glue.default({ module_or_path: role.module, memory: role.memory });
    if (data.pool) {
      glue.glimpse_pool_thread();
      return;
    }
    glue.glimpse_engine_start(role.number);
    ready = (job) => {
      try {
        glue.glimpse_engine_run(job.data.run);
      } catch (err) {
        crashed('a job stopped', err);
      }
    };
    for (const queued of waiting.splice(0)) ready(queued);
  } catch (err) {
    crashed(data.boot ? 'the worker could not load Glimpse' : 'a thread stopped', err);
  }
};
