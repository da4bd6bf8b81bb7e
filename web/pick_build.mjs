// Teaches a Trunk-built index.html to choose between the plain build and the threaded one
// (scripts/web_threads.sh): the threaded build needs SharedArrayBuffer, which a browser gives
// only to a cross-origin isolated page. Fails loudly when Trunk's start-up lines are not where
// they are expected, rather than leaving a page that silently never uses threads.
//
//   node web/pick_build.mjs INDEX_HTML THREADS_JS THREADS_WASM THREADS_WASM_BYTES
import fs from 'node:fs';

const [file, threadsJs, threadsWasm, threadsBytes] = process.argv.slice(2);
if (!file || !threadsJs || !threadsWasm || !/^\d+$/.test(threadsBytes ?? '')) {
  console.error('usage: node web/pick_build.mjs INDEX_HTML THREADS_JS THREADS_WASM BYTES');
  process.exit(2);
}
let html = fs.readFileSync(file, 'utf8');
const fail = (what) => {
  console.error(`pick_build: ${file}: ${what} not found (did Trunk's output change?)`);
  process.exit(1);
};

// Patched before (the script run again on a built folder): point it at the new threaded pair.
if (html.includes('window.glimpseModule = threaded')) {
  html = html
    .replace(/threads\/glimpse-threads-[0-9a-f]+\.js/g, threadsJs)
    .replace(/threads\/glimpse-threads-[0-9a-f]+_bg\.wasm/g, threadsWasm)
    .replace(/threaded \? \d+ :/, `threaded ? ${threadsBytes} :`);
  fs.writeFileSync(file, html);
  console.log(`pick_build: ${file} now loads ${threadsJs} where isolated`);
  process.exit(0);
}

// `import init, * as bindings from './glimpse-HASH.js';`
const importLine = html.match(/import init, \* as bindings from '(\.\/glimpse-[0-9a-f]+\.js)';/);
if (!importLine) fail("Trunk's import of the glue");
// `const wasm = await __trunkInitializer(init, './glimpse-HASH_bg.wasm', SIZE, initializer(), true);`
const startLine = html.match(
  /const wasm = await __trunkInitializer\(init, '(\.\/glimpse-[0-9a-f]+_bg\.wasm)', (\d+), initializer\(\), true\);/,
);
if (!startLine) fail("Trunk's start-up call");
const [, plainJs] = importLine;
const [, plainWasm, plainBytes] = startLine;

const chooser = `// Threads where the page may share memory (cross-origin isolated), else one thread
// (scripts/web_threads.sh). The workers load the same pair (window.glimpseModule).
const threaded = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
window.glimpseModule = threaded
  ? { js: '${threadsJs}', wasm: '${threadsWasm}', threads: true }
  : { js: '${plainJs}', wasm: '${plainWasm}', threads: false };
const glue = threaded ? await import('./${threadsJs}') : bindings;
const wasm = await __trunkInitializer(glue.default, window.glimpseModule.wasm, threaded ? ${threadsBytes} : ${plainBytes}, initializer(), true);`;
html = html.replace(startLine[0], () => chooser);
html = html.replace('window.wasmBindings = bindings;', () => 'window.wasmBindings = glue;');

// The plain wasm's preload would make an isolated page download both builds.
const preload = new RegExp(`<link rel="preload" href="${plainWasm.replace(/[.]/g, '\\.')}"[^>]*>`);
if (!preload.test(html)) fail("the plain wasm's preload link");
html = html.replace(preload, '');
fs.writeFileSync(file, html);
console.log(`pick_build: ${file} loads ${threadsJs} where isolated, else ${plainJs}`);
