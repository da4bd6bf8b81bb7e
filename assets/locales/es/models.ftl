## Models: where they come from, the Open window, downloads and their failures, loading and
## converting, and a forward pass spread over frames (computing, Cancel, Run again)

# $url is the address of a file the app fetched
models-fetch-offline = { $url }: no se pudo descargar (¿sin conexión?)
models-fetch-broke-off = { $url }: la descarga se interrumpió
models-url-not-utf8 = { $url } no es texto UTF-8
# $model names a model or where it comes from; $file is a file name such as config.json
models-file-not-utf8 = { $model }: { $file } no es texto UTF-8
models-download-broke-off = { $model }: la descarga de `{ $file }` se interrumpió
models-builtin-compiled-in = { $model }: los archivos de un modelo integrado vienen compilados
models-remote-in-browser = { $model }: los enlaces a un hub o a una URL se abren en la versión para navegador; en escritorio, descarga los archivos y ejecuta glimpse --model RUTA

## The Open window

models-open-title = Abrir un modelo
models-open-intro = Una carpeta de Hugging Face (config.json, model.safetensors, tokenizer.json) o un archivo .gguf. Se abren modelos BERT, GPT-2 y de la familia Llama.
models-open-hub = Un modelo del hub de Hugging Face:
models-open-hub-hint = ORG/NOMBRE, p. ej. sentence-transformers/all-MiniLM-L6-v2
models-open-url = Una carpeta o un archivo .gguf en cualquier dirección:
models-open-url-hint = https://…/modelo/ o https://…/modelo.gguf
# $size is a size such as "1500.0 MB"
models-open-budget = Las descargas vienen de la dirección del propio servidor; una pestaña del navegador admite modelos de hasta unos { $size } en memoria.
models-open-files = Archivos…
models-open-folder = Carpeta…
models-open-drop-page = o suéltalos en la página
models-open-path-hint = una carpeta o un archivo .gguf
models-open-drop-window = o suelta la carpeta o el archivo en la ventana
models-open-button = Abrir
# $path is the folder or file; $error says why it failed (in English, from the model reader)
models-could-not-open = no se pudo abrir { $path }: { $error }
models-could-not-open-files = no se pudieron abrir los archivos: { $error }
# Where an opened model came from; $names lists the file names
models-source-files = archivos: { $names }

## A forward pass of a large model, a slice a frame

# The word an answer still being computed starts with (the app recognises the answer by it)
models-pass-computing-word = calculando
# Must start with the word above: { models-pass-computing-word }
models-pass-computing = { models-pass-computing-word } { $model }: paso { $done } de { $all }…
# The word the answer for a cancelled pass starts with (the app recognises the answer by it)
models-pass-cancelled-word = cancelado
# Must start with the word above: { models-pass-cancelled-word }
models-pass-cancelled = { models-pass-cancelled-word }: la pasada de { $model } se detuvo antes de terminar
models-progress = { models-pass-computing-word } { $model }: paso { $done } de { $all }
models-cancel = Cancelar
models-cancel-store-hover = detener esta pasada: no se calcula nada hasta que la ejecutes de nuevo
models-cancel-pass-hover = detener esta pasada y volver a la entrada cuyos números se muestran
models-run-again = Ejecutar de nuevo

## Where a model comes from

models-served-minilm = Codificador BERT, 6 capas × 12 cabezas, d=384, 22.7M parámetros (sentence-transformers); atención bidireccional sobre tokens WordPiece
models-served-smollm2 = Decodificador Llama, 30 capas × 9 cabezas de consulta / 3 de clave-valor, d=576, 135M parámetros (Hugging Face SmolLM2, GGUF Q4_1); atención causal, RoPE
models-served-label = { $model } (servido con la app)
# $repo is ORG/NAME; $host is a web host such as huggingface.co
models-hub-label = { $repo } en { $host }
models-not-hub-model = `hf:{ $repo }` no es un modelo del hub: escribe hf:ORG/NOMBRE (letras, dígitos, - _ .), p. ej. hf:sentence-transformers/all-MiniLM-L6-v2, o hf:ORG/NOMBRE/ARCHIVO.gguf
models-not-plain-file = `{ $file }` no es un nombre de archivo simple
models-not-web-address = `{ $url }` no es una dirección web: debe empezar por https:// (o http://)
models-http-404 = { $model }: `{ $file }` no está (HTTP 404); revisa el nombre
models-http-404-folder = { $model }: `{ $file }` no está (HTTP 404); revisa el nombre (una carpeta de modelo necesita config.json, tokenizer.json y model.safetensors)
# $status is an HTTP status such as 401
models-http-gated = { $model }: el hub rechazó `{ $file }` (HTTP { $status }): el modelo es restringido o privado. Acepta sus condiciones en la página del hub, descarga los archivos y ábrelos aquí
models-http-refused = { $model }: se rechazó `{ $file }` (HTTP { $status })
models-http-failed = { $model }: `{ $file }` falló (HTTP { $status })
models-network-failure = { $model }: no se pudo descargar `{ $file }` de { $host }: no hay red, o el servidor no deja que otros sitios lean sus archivos (CORS)
# $download, $memory and $budget are sizes such as "90.9 MB" or "1.2 GB"
models-too-large = { $model } es demasiado grande para el navegador: { $download } de descarga, unos { $memory } en memoria una vez abierto, y una pestaña del navegador admite unos { $budget }. Ábrelo en la app de escritorio (glimpse --model RUTA)

## Loading and converting

# $what is a stage of the conversion, in English ("building the tokenizer")
models-stage = { $what } ({ $done } de { $total })
# $stage is models-stage or a stage alone
models-converting = convirtiendo { $model } a tensores de Glimpse: { $stage }…
models-loading-bytes = cargando { $model } ({ $received } de { $total } bytes)…
models-loading = cargando { $model }…
# $folder is the model cache's folder
models-not-in-cache = { $model } no está en la caché de modelos ({ $folder }): ejecuta scripts/fetch_models.sh
