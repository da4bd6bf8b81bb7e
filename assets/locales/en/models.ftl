## Models: where they come from, the Open window, downloads and their failures, loading and
## converting, and a forward pass spread over frames (computing, Cancel, Run again)

# $url is the address of a file the app fetched
models-fetch-offline = { $url }: could not be fetched (offline?)
models-fetch-broke-off = { $url }: the download broke off
models-url-not-utf8 = { $url } is not UTF-8 text
# $model names a model or where it comes from; $file is a file name such as config.json
models-file-not-utf8 = { $model }: { $file } is not UTF-8 text
models-download-broke-off = { $model }: the download of `{ $file }` broke off
models-builtin-compiled-in = { $model }: a built-in's files are compiled in
models-remote-in-browser = { $model }: hub and URL links open in the browser build; natively, download the files and run glimpse --model PATH

## The Open window

models-open-title = Open a model
models-open-intro = A Hugging Face folder (config.json, model.safetensors, tokenizer.json) or one .gguf file. BERT, GPT-2 and Llama-family models open.
models-open-hub = A model on the Hugging Face hub:
models-open-hub-hint = ORG/NAME, e.g. sentence-transformers/all-MiniLM-L6-v2
models-open-url = A folder or .gguf file at any address:
models-open-url-hint = https://…/model/ or https://…/model.gguf
# $size is a size such as "1500.0 MB"
models-open-budget = Downloads come from the server's own address; a browser tab holds models up to about { $size } in memory.
models-open-files = Files…
models-open-folder = Folder…
models-open-drop-page = or drop them on the page
models-open-path-hint = a folder or a .gguf file
models-open-drop-window = or drop the folder or file on the window
models-open-button = Open
# $path is the folder or file; $error says why it failed (in English, from the model reader)
models-could-not-open = could not open { $path }: { $error }
models-could-not-open-files = could not open the files: { $error }
# Where an opened model came from; $names lists the file names
models-source-files = files: { $names }

## A forward pass of a large model, a slice a frame

# The word an answer still being computed starts with (the app recognises the answer by it)
models-pass-computing-word = computing
# Must start with the word above: { models-pass-computing-word }
models-pass-computing = { models-pass-computing-word } { $model }: step { $done } of { $all }…
# The word the answer for a cancelled pass starts with (the app recognises the answer by it)
models-pass-cancelled-word = cancelled
# Must start with the word above: { models-pass-cancelled-word }
models-pass-cancelled = { models-pass-cancelled-word }: { $model }'s pass was stopped before it finished
models-progress = { models-pass-computing-word } { $model }: step { $done } of { $all }
models-cancel = Cancel
models-cancel-store-hover = stop this pass: nothing is computed until you run it again
models-cancel-pass-hover = stop this pass and go back to the input whose numbers are shown
models-run-again = Run again

## Where a model comes from

models-served-minilm = BERT encoder, 6 layers × 12 heads, d=384, 22.7M parameters (sentence-transformers); bidirectional attention on WordPiece tokens
models-served-smollm2 = Llama decoder, 30 layers × 9 query / 3 key-value heads, d=576, 135M parameters (Hugging Face SmolLM2, GGUF Q4_1); causal attention, RoPE
models-served-label = { $model } (served with the app)
# $repo is ORG/NAME; $host is a web host such as huggingface.co
models-hub-label = { $repo } on { $host }
models-not-hub-model = `hf:{ $repo }` is not a hub model: write hf:ORG/NAME (letters, digits, - _ .), e.g. hf:sentence-transformers/all-MiniLM-L6-v2, or hf:ORG/NAME/FILE.gguf
models-not-plain-file = `{ $file }` is not a plain file name
models-not-web-address = `{ $url }` is not a web address: it must start with https:// (or http://)
models-http-404 = { $model }: `{ $file }` is not there (HTTP 404); check the name
models-http-404-folder = { $model }: `{ $file }` is not there (HTTP 404); check the name (a model folder needs config.json, tokenizer.json and model.safetensors)
# $status is an HTTP status such as 401
models-http-gated = { $model }: the hub refused `{ $file }` (HTTP { $status }): the model is gated or private. Accept its terms on the hub's page, download the files, and open them here
models-http-refused = { $model }: `{ $file }` was refused (HTTP { $status })
models-http-failed = { $model }: `{ $file }` failed (HTTP { $status })
models-network-failure = { $model }: `{ $file }` could not be fetched from { $host }: no network, or the server does not let other sites read its files (CORS)
# $download, $memory and $budget are sizes such as "90.9 MB" or "1.2 GB"
models-too-large = { $model } is too large for the browser: { $download } to download, about { $memory } in memory once opened, and a browser tab holds about { $budget }. Open it in the desktop app (glimpse --model PATH)

## Loading and converting

# $what is a stage of the conversion, in English ("building the tokenizer")
models-stage = { $what } ({ $done } of { $total })
# $stage is models-stage or a stage alone
models-converting = converting { $model } into Glimpse's tensors: { $stage }…
models-loading-bytes = loading { $model } ({ $received } of { $total } bytes)…
models-loading = loading { $model }…
# $folder is the model cache's folder
models-not-in-cache = { $model } is not in the model cache ({ $folder }): run scripts/fetch_models.sh
