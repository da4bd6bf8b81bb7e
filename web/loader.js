// Trunk's initializer hooks (index.html: data-initializer): the WebAssembly download as a
// progress bar on the loading screen, so a slow network shows movement, not a frozen page.
// Every progress event is also kept in window.glimpseLoadProgress for the browser test.
export default function initializer() {
  warmGpu();
  const bar = () => document.getElementById('loading_bar');
  const detail = () => document.getElementById('loading_detail');
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  window.glimpseLoadProgress = [];
  return {
    onProgress({ current, total }) {
      window.glimpseLoadProgress.push({ current, total });
      const b = bar();
      if (b && total > 0) {
        b.max = total;
        b.value = Math.min(current, total);
      }
      const d = detail();
      if (d) d.textContent = `${mb(current)} of ${mb(total)} MB`;
    },
    onComplete() {
      const d = detail();
      if (d) d.textContent = 'starting…';
    },
    onFailure(reason) {
      const d = detail();
      if (d) d.textContent = `Glimpse could not load: ${reason}`;
    },
  };
}

// The page's first WebGL context starts the browser's GPU process. Under a software renderer
// (SwiftShader in headless Chromium) that held the page's thread 230-310 ms inside eframe's
// start. A throwaway context in a worker starts it off the page's thread while the wasm
// downloads; the app waits for window.glimpseGpuWarm (src/main.rs, settled within about 3 s) before
// eframe asks for the canvas's context (docs/benchmarks.md, long tasks).
//
// The canvas's context is made here first, without multisampling or a depth buffer: egui
// smooths its own edges (eframe's native default is no multisampling too) and draws no 3D, and
// the 4x buffers were the larger part of resizing the canvas to the page. eframe's own
// getContext('webgl2') then returns this one. The browser then sets the context up in its GPU
// process; the first call that waits for an answer (eframe asks for every extension the
// browser offers) held the page 50-80 ms waiting for that. So the page waits without holding
// the thread, on a fence it polls between tasks, and then switches the extensions on a few per
// task: asked again by eframe, the browser answers at once.
function warmGpu() {
  window.glimpseGpuWarm = new Promise((resolve) => {
    const ready = () => {
      let gl = null;
      try {
        gl = document.getElementById('glimpse_canvas')
          ?.getContext('webgl2', { antialias: false, depth: false });
      } catch (e) {
        // eframe makes its own (and reports a browser without WebGL2).
      }
      if (!gl) return resolve();
      let names = null;
      const extensions = () => {
        try {
          names ??= gl.getSupportedExtensions() || [];
          for (const name of names.splice(0, 4)) gl.getExtension(name);
        } catch (e) {
          names = []; // eframe asks again and copes
        }
        if (names.length) setTimeout(extensions, 0);
        else resolve();
      };
      let fence = null;
      try {
        fence = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
        gl.flush();
      } catch (e) {
        fence = null;
      }
      const until = performance.now() + 1000;
      const caughtUp = () => {
        let done = true;
        try {
          done = !fence || gl.getSyncParameter(fence, gl.SYNC_STATUS) === gl.SIGNALED;
        } catch (e) {
          done = true;
        }
        if (!done && performance.now() < until) return setTimeout(caughtUp, 4);
        try { if (fence) gl.deleteSync(fence); } catch (e) { /* only tidying */ }
        setTimeout(extensions, 0);
      };
      setTimeout(caughtUp, 0);
    };
    try {
      if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return ready();
      const src = "try { new OffscreenCanvas(1, 1).getContext('webgl2'); } catch (e) {} postMessage(0); close();";
      const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
      const worker = new Worker(url);
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        URL.revokeObjectURL(url);
        ready();
      };
      worker.onmessage = done;
      worker.onerror = done;
      setTimeout(done, 2000);
    } catch (e) {
      ready(); // no worker here: eframe's start pays for the GPU process, as before
    }
  });
}
