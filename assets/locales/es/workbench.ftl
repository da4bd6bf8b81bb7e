## The shared input: the model picker and its loading line in the top bar, and the left panel
## (text, attention, layer, head, temperature, compute path)

# The model picker's label
workbench-model = modelo
workbench-real-models = Modelos reales (se descargan al elegirlos)
# $description says what the model is; $licence is a licence name such as Apache-2.0
workbench-served-hover = { $description }. Licencia { $licence }
workbench-opened-models = Abiertos desde archivos o enlaces
workbench-own-models = Modelos propios de Glimpse (entrenados en tareas de juguete, o aleatorios)
# $architecture is such as "llama", $format such as "GGUF"; $parameters a grouped number;
# $memory a size such as "90.9 MB"; $source where the files came from
workbench-about-opened = { $architecture } · { $format } · { $parameters } parámetros · { $memory } en memoria · de { $source }
# $size and $received are sizes such as "90.9 MB"; $stage says how far the conversion is
workbench-converting = convirtiendo { $model } ({ $size }) a tensores de Glimpse: { $stage }
workbench-downloading-of = descargando { $model }: { $received } de { $total }
workbench-downloading = descargando { $model }: { $received }
# $count is how many characters (or words) the toy model knows
workbench-toy-characters = { $model } es un modelo de juguete: solo conoce { $count } caracteres.
workbench-toy-words = { $model } es un modelo de juguete: solo conoce { $count } palabras.
# $piece is what the user typed; $nearest lists known tokens
workbench-unknown-piece = “{ $piece }” no está en su vocabulario (se lee como <unk>); lo más cercano: { $nearest }
workbench-input = Entrada
workbench-source = Origen (codificador)
workbench-text = Texto
workbench-target = Destino (decodificador, tras <bos>)
workbench-truncated = { $count ->
        [one] { $count } token que pasaba del límite del modelo se ha recortado
       *[other] { $count } tokens que pasaban del límite del modelo se han recortado
    }
workbench-attention = Atención
workbench-layer = capa
workbench-head = cabeza
workbench-temperature = temperatura τ
workbench-compute = Cálculo
workbench-pass-cancelled = pasada cancelada: cambia el texto para ejecutarla de nuevo

## The compute path (CPU or GPU)

workbench-compute-on = calcular en
workbench-cpu-hover = el transformer de Glimpse sobre ndarray
workbench-gpu-hover = la misma pasada hacia delante como shaders de cómputo WGSL (wgpu)
# $threads is a number of threads
workbench-cpu-threads = CPU: { $threads ->
        [one] un hilo
       *[other] { $threads } hilos
    }
workbench-cpu-threads-away = CPU: { $threads ->
        [one] un hilo
       *[other] { $threads } hilos
    }, fuera del hilo de la página (la página solo dibuja)
workbench-cpu-threads-starting = CPU: arrancando los hilos…
workbench-cpu-one-thread-not-isolated = CPU: un hilo, el de la propia página. Esta página no está aislada entre orígenes (su servidor no envía las cabeceras COOP y COEP), así que el navegador no le presta memoria compartida para hilos; docs/hosting.md explica cómo activarlas.
workbench-cpu-one-thread-no-build = CPU: un hilo, el de la propia página: esta copia de Glimpse se compiló sin su versión con hilos.
# $why is the worker's own error, in English
workbench-cpu-worker-stopped = CPU: un worker se detuvo ({ $why }), así que las pasadas vuelven al hilo de la página.
# $why is the GPU's own error, in English
workbench-gpu-fallback = la GPU no pudo ejecutar esto, así que se muestran los números de la CPU: { $why }
workbench-gpu-not-built = GPU: esta compilación no tiene ruta de GPU (feature `webgpu`)
workbench-gpu-not-looked-for = GPU: no se ha buscado
workbench-gpu-detecting = GPU: buscando un adaptador…
workbench-gpu-unavailable = calculando en la CPU; { $why }
# $adapter is the graphics adapter's name
workbench-gpu-software = GPU: { $adapter }: un adaptador por software, más lento que la ruta de CPU
# $used is CPU or GPU; $ms a time such as 3.25
workbench-timing-shown = mostrado: { $used } · CPU { $ms } ms
workbench-timing-gpu-running = GPU en marcha…
# $difference is a number such as 2.4e-7
workbench-timing-difference = mayor diferencia { $difference }
