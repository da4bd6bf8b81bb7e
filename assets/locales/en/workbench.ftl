## The shared input: the model picker and its loading line in the top bar, and the left panel
## (text, attention, layer, head, temperature, compute path)

# The model picker's label
workbench-model = model
workbench-real-models = Real models (downloaded when chosen)
# $description says what the model is; $licence is a licence name such as Apache-2.0
workbench-served-hover = { $description }. Licence { $licence }
workbench-opened-models = Opened from files or links
workbench-own-models = Glimpse's own models (trained on toy tasks, or random)
# $architecture is such as "llama", $format such as "GGUF"; $parameters a grouped number;
# $memory a size such as "90.9 MB"; $source where the files came from
workbench-about-opened = { $architecture } · { $format } · { $parameters } parameters · { $memory } in memory · from { $source }
# $size and $received are sizes such as "90.9 MB"; $stage says how far the conversion is
workbench-converting = converting { $model } ({ $size }) into Glimpse's tensors: { $stage }
workbench-downloading-of = downloading { $model }: { $received } of { $total }
workbench-downloading = downloading { $model }: { $received }
# $count is how many characters (or words) the toy model knows
workbench-toy-characters = { $model } is a toy model: it knows only { $count } characters.
workbench-toy-words = { $model } is a toy model: it knows only { $count } words.
# $piece is what the user typed; $nearest lists known tokens
workbench-unknown-piece = “{ $piece }” is not in its vocabulary (read as <unk>); nearest: { $nearest }
workbench-input = Input
workbench-source = Source (encoder)
workbench-text = Text
workbench-target = Target (decoder, after <bos>)
workbench-truncated = { $count } token(s) past the model's limit were cut off
workbench-attention = Attention
workbench-layer = layer
workbench-head = head
workbench-temperature = temperature τ
workbench-compute = Compute
workbench-pass-cancelled = pass cancelled: change the text to run it again

## The compute path (CPU or GPU)

workbench-compute-on = compute on
workbench-cpu-hover = Glimpse's transformer over ndarray
workbench-gpu-hover = the same forward pass as WGSL compute shaders (wgpu)
# $threads is a number of threads
workbench-cpu-threads = CPU: { $threads ->
        [one] one thread
       *[other] { $threads } threads
    }
workbench-cpu-threads-away = CPU: { $threads ->
        [one] one thread
       *[other] { $threads } threads
    }, off the page's thread (the page only draws)
workbench-cpu-threads-starting = CPU: starting the threads…
workbench-cpu-one-thread-not-isolated = CPU: one thread, on the page's own. This page is not cross-origin isolated (its host sends no COOP and COEP headers), so the browser lends it no shared memory for threads; docs/hosting.md says how to turn them on.
workbench-cpu-one-thread-no-build = CPU: one thread, on the page's own: this copy of Glimpse was built without its threaded version.
# $why is the worker's own error, in English
workbench-cpu-worker-stopped = CPU: a worker stopped ({ $why }), so passes run on the page's thread again.
# $why is the GPU's own error, in English
workbench-gpu-fallback = the GPU could not run this, so the CPU's numbers are shown: { $why }
workbench-gpu-not-built = GPU: this build has no GPU path (feature `webgpu`)
workbench-gpu-not-looked-for = GPU: not looked for
workbench-gpu-detecting = GPU: looking for an adapter…
workbench-gpu-unavailable = running on the CPU; { $why }
# $adapter is the graphics adapter's name
workbench-gpu-software = GPU: { $adapter }: a software adapter, slower than the CPU path
# $used is CPU or GPU; $ms a time such as 3.25
workbench-timing-shown = shown: { $used } · CPU { $ms } ms
workbench-timing-gpu-running = GPU running…
# $difference is a number such as 2.4e-7
workbench-timing-difference = largest difference { $difference }
