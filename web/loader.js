// Trunk's initializer hooks (index.html: data-initializer): the WebAssembly download as a
// progress bar on the loading screen, so a slow network shows movement, not a frozen page.
// Every progress event is also kept in window.glimpseLoadProgress for the browser test.
export default function initializer() {
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
