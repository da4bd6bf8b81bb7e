// Opening a model of one's own in the browser: the page's file dialogs (files, or a whole
// folder) and dropping files or folders anywhere on the page. The files are read here and
// handed to the app with `glimpse_open_files(paths, contents)`; the app opens them on its next
// frame (src/app/models/open_dialog.rs). The app opens the dialogs through window.glimpseOpenFiles.
(() => {
  const handOver = (entries) => {
    const b = window.wasmBindings;
    if (!b || typeof b.glimpse_open_files !== 'function' || entries.length === 0) return;
    b.glimpse_open_files(entries.map((e) => e.path), entries.map((e) => e.bytes));
  };

  const readFiles = async (files, pathOf) =>
    Promise.all(
      files.map(async (f) => ({ path: pathOf(f), bytes: new Uint8Array(await f.arrayBuffer()) })),
    );

  // Two hidden inputs: several files, or one folder (webkitdirectory gives relative paths).
  const input = (folder) => {
    const el = document.createElement('input');
    el.type = 'file';
    el.multiple = true;
    el.id = folder ? 'glimpse_open_folder' : 'glimpse_open_files';
    if (folder) el.webkitdirectory = true;
    el.style.display = 'none';
    el.addEventListener('change', async () => {
      const files = Array.from(el.files ?? []);
      handOver(await readFiles(files, (f) => f.webkitRelativePath || f.name));
      el.value = '';
    });
    document.body.appendChild(el);
    return el;
  };
  let inputs = null;
  const ensureInputs = () => {
    inputs ??= { files: input(false), folder: input(true) };
    return inputs;
  };
  window.glimpseOpenFiles = (folder) => {
    const { files, folder: dir } = ensureInputs();
    (folder ? dir : files).click();
  };
  if (document.body) ensureInputs();
  else window.addEventListener('DOMContentLoaded', ensureInputs);

  // A dropped folder arrives as an entry to walk; dropped files as files.
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((ok, fail) => entry.file(ok, fail));
      return [{ path: prefix + file.name, bytes: new Uint8Array(await file.arrayBuffer()) }];
    }
    const reader = entry.createReader();
    const children = [];
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (batch.length === 0) break;
      children.push(...batch);
    }
    const nested = await Promise.all(children.map((c) => walk(c, `${prefix}${entry.name}/`)));
    return nested.flat();
  };

  // Capture phase on the window, so the drop is ours before the canvas sees it.
  window.addEventListener('dragover', (ev) => ev.preventDefault(), { capture: true });
  window.addEventListener(
    'drop',
    async (ev) => {
      const dt = ev.dataTransfer;
      if (!dt) return;
      ev.preventDefault();
      ev.stopPropagation();
      const entries = Array.from(dt.items ?? [])
        .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null))
        .filter(Boolean);
      const read = entries.length
        ? (await Promise.all(entries.map((e) => walk(e, '')))).flat()
        : await readFiles(Array.from(dt.files ?? []), (f) => f.name);
      handOver(read);
    },
    { capture: true },
  );
})();
