## The Training lab (train a model with Glimpse's own backward pass), and the side-by-side training races of the Depth, Heads off and RNN labs (race-)

## The controls: task, model, learning rate, running

training-controls-header = Tarea, modelo y calendario
training-task-and-model = Tarea y modelo
training-task = tarea
training-positions = posiciones
# The layer norm's placement (pre or post)
training-norm = norma
training-heads = cabezas
training-layers = capas
training-dropout = dropout
training-dropout-hover = proporción de activaciones puestas a cero al azar durante el entrenamiento (nunca al evaluar)
# Before the seed's number
training-seed = semilla
training-learning-rate = Tasa de aprendizaje
training-training = Entrenamiento
training-start = ▶ Iniciar
training-pause = ‖ Pausa
training-step = Paso
training-step-hover = un paso de optimización
training-reset = Reiniciar
training-reset-hover = vuelve a los mismos pesos iniciales (misma semilla)
training-speed = velocidad %
training-speed-thread-hover = parte de cada 100 ms en que trabaja el hilo de entrenamiento
training-speed-frames-hover = milisegundos de cada fotograma dedicados a entrenar (de 100)
training-speed-capped-hover = milisegundos de cada fotograma dedicados a entrenar: como mucho { $max } de cada 100, para que la página siga dibujándose
training-step-count = paso { $step }
training-starting = empezando… (el proceso evalúa los pesos iniciales)
# Numbers already written out: $loss 1.2345, $lr 3.00e-3, $grad_norm 0.123
training-step-stats = pérdida { $loss } · lr { $lr } · norma del gradiente { $grad_norm }
# $steps, $tokens: per second; $place: training-worker-thread or training-in-frames
training-speed-stats = { $steps } pasos/s · { $tokens } tokens/s ({ $place })
training-worker-thread = hilo aparte
# $reason: what the browser said, or the training thread's panic
training-worker-crashed = el proceso de entrenamiento se detuvo: { $reason }
training-in-frames = en los fotogramas
# $exact, $tokens: whole percentages
training-held-out-stats = validación en el paso { $step }: exactas { $exact }% · tokens { $tokens }%
# $ms of every $period milliseconds are spent training
training-eval-note = { $examples } secuencias de validación cada { $every } pasos; velocidad { $ms } ms de cada { $period }
training-schedule-cosine = coseno
training-schedule-constant = constante
training-schedule-cosine-hover = calentamiento lineal y luego caída en coseno hasta pico/30 en el paso 3000
training-schedule-noam-hover = el transformer original: (1/√d) · min(1/√s, s/(w·√w)), escalado al pico
training-schedule-constant-hover = el pico desde el primer paso: sin calentamiento
training-peak-lr = lr pico
training-warmup-steps = pasos de calentamiento
training-clip-norm = recorte de norma
training-clip-norm-hover = reescala todo el gradiente cuando su norma supera este valor; 100 desactiva el recorte
training-schedule-title = calendario de la tasa de aprendizaje
training-learning-rate-series = tasa de aprendizaje
training-step-axis = paso

## A run's settings in words, for the legends: "cosine · warmup 200 · peak 3.0e-3 · clip 1 · pre-norm"

# $schedule: cosine, noam or constant; $warmup: training-warmup or training-no-warmup; $peak: 3.0e-3; $clip: training-clip or training-no-clipping; $norm: pre or post
training-describe = { $schedule } · { $warmup } · pico { $peak } · { $clip } · { $norm }-norm
training-clip = recorte { $norm }
training-no-clipping = sin recorte
training-warmup = calentamiento { $steps }
training-no-warmup = sin calentamiento

## The view: curves and the probe input's attention

training-export-steps = pérdida por paso en CSV
training-export-evals = evaluaciones en CSV
# $family: the model's kind (e.g. encoder–decoder); $task: the task's name
training-heading = Entrenamiento: modelo { $family } en “{ $task }”
training-loss-title = pérdida de entrenamiento (entropía cruzada por token)
training-this-run = esta ejecución
# $settings: training-describe of the run before
training-before = antes: { $settings }
training-accuracy-title = precisión en validación
training-exact-sequences = secuencias exactas
training-tokens = tokens
training-grad-norm-label = norma del gradiente antes del recorte (log₁₀), esta ejecución: { $settings }
training-grad-norm-title = norma del gradiente antes del recorte (log₁₀)
# $attention: the kind of attention shown (e.g. cross-attention)
training-probe-input = Entrada de prueba, { $attention } de la última capa:
training-head = cabeza
training-probe-context = entrada de prueba · capa { $layer } · cabeza { $head }
training-query = consulta
training-key = clave
training-weight = peso

## Training races (two or more models trained side by side in a lab)

# $count: how many models
race-train-all = ▶ entrenar los { $count }
race-what = { $count } modelos × { $steps } pasos, la misma semilla y los mismos ejemplos para cada uno
race-trained = entrenado
race-pause = ‖ pausa
race-go-on = ▶ seguir
# $time: race-seconds or race-minutes
race-left = quedan unos { $time }
race-seconds = { $seconds } s
race-minutes = { $minutes } min
race-loss-title = pérdida de entrenamiento (log₁₀, por token)
race-exact-title = coincidencia exacta en validación
race-step = paso
race-held-out-loss = pérdida en validación
race-tokens-right = tokens acertados
race-exact = exactas
# The contenders of the key/value sharing race: $count is their number of key/value heads
race-kv-multi-query = 1 cabeza KV (multi-consulta)
race-kv-multi-head = { $count } cabezas KV (multi-cabeza)
race-kv-grouped = { $count } cabezas KV (agrupadas)
