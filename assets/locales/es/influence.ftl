## The Influence lab: logit lens, direct logit attribution, activation patching, attention against influence

## Section chips and the controls above every section

influence-section-lens = capa a capa (logit lens)
influence-section-attribution = quién escribió la respuesta (atribución)
influence-section-patching = parcheo (patching)
influence-section-compare = atención frente a influencia
influence-waiting = esperando al modelo…
# $model: the model's name
influence-no-output-layer = { $model } no tiene capa de salida (es un codificador de frases): no predice tokens, así que el lens, la atribución y el parcheo no tienen nada que puntuar. El rollout y la atención en bruto siguen en “atención frente a influencia”.
influence-no-stack = la pasada no tiene pila de capas
influence-empty-input = la entrada está vacía: escribe un texto en el cuadro de la izquierda
influence-no-logits = el modelo no da logits
influence-answer-token = token de respuesta A:
# Shown in the empty answer box: the model's own top prediction is used
influence-answer-hint = mejor apuesta
influence-contrast-token = frente a B:
influence-contrast-hint = ninguno
influence-position-read = posición leída
# $position: a number; $token: the token's text
influence-position-last = { $position } “{ $token }” (última)
influence-token-help = Escribe el token con su espacio inicial si el tokenizador lo tiene (“ Paris”, no “Paris”); un texto que no sea un solo token se rechaza indicando cómo se divide.
influence-cancel = Cancelar
influence-starting = empezando…

## Words the sections share: grid axes and row names

# $block: a block's number
influence-block = bloque { $block }
# $layer, $head: numbers, as in "head 3.1"
influence-head = cabeza { $layer }.{ $head }
influence-embedding = embedding
influence-rollout = rollout
influence-axis-block = bloque
influence-axis-head = cabeza
influence-axis-key = clave
influence-axis-position = posición
influence-weight = peso
influence-effect = efecto

## Layer by layer (logit lens)

influence-lens-intro = El logit lens lee el flujo residual tras cada bloque como si fuera el último: p = softmax(W_U · final_norm(resid[l])). La profundidad 0 son los embeddings; la última es la salida del propio modelo. Cada celda muestra el token más probable ahí, sombreado según su probabilidad; pasa el ratón para ver los cinco más probables, haz clic para seguir una posición.
# $depth, $total: numbers
influence-lens-reading = leyendo la profundidad { $depth } de { $total }
influence-lens-depth = profundidad { $depth }
influence-lens-export-json = lens en JSON
influence-lens-export-csv = p(respuesta) por profundidad en CSV
# $token: a token's text; $depth, $from, $to: depths. Joined with commas into influence-lens-summary's $runs
influence-lens-run-one = “{ $token }” en la profundidad { $depth }
influence-lens-run = “{ $token }” en las profundidades { $from }–{ $to }
# $runs: a list of influence-lens-run
influence-lens-summary = En la posición { $position } (“{ $token }”) el token más probable es { $runs }.
# $p: a probability, written as 0.123
influence-lens-settles = “{ $token }” es el token más probable desde la profundidad { $depth }; su probabilidad a la salida es { $p }.
influence-lens-never-settles = “{ $token }” no es el token más probable a la salida; su probabilidad a la salida es { $p }.
# A cell's hover text, first line
influence-lens-cell = profundidad { $depth } · posición { $position } “{ $token }”
influence-lens-cell-answer = token de respuesta: p = { $p }
influence-lens-legend = p (máx.)
influence-lens-line-label = p(“{ $token }”) en la posición { $position }, profundidad a profundidad:
influence-lens-line-title = p(“{ $token }”) en la posición { $position }
influence-lens-line-x = profundidad
influence-lens-line-axis = profundidad (0 = embeddings)

## Who wrote the answer (attribution)

influence-attribution-intro = La atribución directa de logits reparte el logit de la respuesta (o logit(A) − logit(B)) según lo que cada parte escribió en el flujo residual: share(c) = (γ ⊙ c / σ) · (u_A − u_B), con la σ de la normalización final fijada en esta ejecución. Rojo empujó hacia A, azul en contra.
influence-attribution-export-json = aportes en JSON
influence-attribution-export-csv = cabezas y MLP en CSV
# $what: a formula such as logit(“ Paris”) − logit(“ Rome”); $value, $sum: numbers written as 1.234
influence-attribution-total = En la posición { $position } (“{ $token }”): { $what } = { $value }; los aportes suman { $sum }.
# $parts: a list such as "head 3.1 +0.512, MLP 2 −0.300"
influence-attribution-largest = Mayores contribuyentes: { $parts }.
influence-attribution-share-of = aporte a { $what }
influence-attribution-share = aporte
influence-attribution-click = Haz clic en una cabeza para ver adónde mira, en la pestaña Atención.
# $embed: a signed number; $biases: a list of named signed numbers
influence-attribution-rest = Fuera de la cuadrícula: el embedding { $embed }.
influence-attribution-rest-biases = Fuera de la cuadrícula: el embedding { $embed }; sesgos { $biases }.

## Patching

influence-patching-intro = Ejecuta el texto corrompido, copia en él una activación de la ejecución limpia y mira cuánto vuelve de la respuesta limpia: score = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt), con LD = logit(A) − logit(B) en la última posición. 1 restaura la respuesta limpia, 0 no cambia nada.
influence-patching-clean = limpio (la entrada de la izquierda):
influence-patching-corrupted = corrompido:
influence-patching-copy = copiar el texto limpio
influence-patching-both-tokens = Escribe los dos tokens: la respuesta limpia A y la respuesta B de la ejecución corrompida (p. ej. los dos nombres).
influence-patching-type-corrupted = Escribe un texto corrompido con tantos tokens como el limpio (cambia un nombre, por ejemplo).
influence-patching-same = Los textos no difieren en ninguna posición.
# $positions: a list such as "5: “ Mary” → “ John”"
influence-patching-differ = Los textos difieren en { $positions }.
influence-patching-running = ejecutando…
influence-patching-run = ejecutar el barrido
influence-patching-press = Pulsa “ejecutar el barrido” para parchear cada posición de la entrada de cada bloque y cada cabeza.
# $seconds: written as 1.5
influence-patching-progress = { $done } de { $all } parches · { $seconds } s
influence-patching-done = Los { $all } parches en { $seconds } s.
influence-patching-export-json = puntuaciones en JSON
influence-patching-export-resid = puntuaciones residuales en CSV
influence-patching-export-heads = puntuaciones de cabezas en CSV
influence-patching-ld = LD limpio { $clean } · LD corrompido { $corrupted }
influence-patching-resid-title = flujo residual resid[block] en cada posición
influence-patching-heads-title = la salida de cada cabeza, en todas las posiciones
influence-patching-context = puntuación de parcheo (gris: aún no)
influence-patching-score = puntuación
influence-patching-block-at = bloque { $block } en “{ $token }”
# $patches: a list of influence-patching-block-at, each with its score
influence-patching-best-resid = Mejores parches residuales: { $patches }.
influence-patching-best-heads = Mejores cabezas: { $heads }.

## Attention vs influence

influence-compare-intro = Una cabeza puede mirar mucho un token y no cambiar nada, y un peso pequeño puede llevar la respuesta. Aquí la atención de la misma consulta (cuánto mira cada cabeza) aparece junto a lo que cada cabeza hace con la respuesta.
influence-compare-export-json = comparación en JSON
influence-compare-export-csv = atención y rollout en CSV
influence-compare-mean-title = atención desde “{ $token }”: media de las cabezas, y rollout
influence-compare-mean-context = peso desde la consulta (última fila: rollout)
influence-compare-strongest-title = el mayor peso de cada cabeza (sin el primer token)
influence-compare-strongest-context = mayor peso desde la consulta sobre un token distinto del primero
# $what: one of influence-measure-*
influence-compare-effect-title = { $what } de cada cabeza
influence-effect-label = efecto:
influence-effect-attribution = atribución directa
influence-effect-ablation = ablación (cabeza apagada)
influence-effect-patching = puntuación de parcheo
influence-measure-attribution = aporte de atribución
influence-measure-ablation = efecto de ablación
influence-measure-patching = puntuación de parcheo
# Mirar frente a importar, bajo la tabla: $what es uno de influence-measure-*; $head es
# "capa.cabeza"; $weight, $effect y $rho son números como 0.86, +3.041, 0.16
influence-verdict-none = Aún no se ha medido: { $what }.
influence-verdict-looker = La cabeza { $head } pone { $weight } de su peso en “{ $token }” (posición { $position }) y aun así su valor de { $what } es solo { $effect }.
influence-verdict-strongest = La cabeza { $head } tiene el valor más alto de { $what } ({ $effect }) con como mucho { $weight } en un token (“{ $token }”, posición { $position }).
influence-verdict-correlation = Sobre { $heads } cabezas, lo fuerte que mira una cabeza y cuánto importa tienen una correlación de rangos de { $rho }.
influence-compare-no-output = Este modelo no tiene capa de salida: no hay efecto sobre una respuesta con el que comparar.
influence-compare-run-sweep-first = Ejecuta primero el barrido en la sección de parcheo (aquí se comparan sus puntuaciones por cabeza).
influence-compare-ablation-needs-b = La ablación mide logit(A) − logit(B): escribe el token de contraste B.
influence-compare-ablation-last = La ablación puntúa la respuesta en la última posición: elige el último token como consulta.
influence-compare-progress = cabeza { $done } de { $all } · { $seconds } s
# $ld: a number written as 1.234
influence-compare-ld = Con todas las cabezas encendidas, LD = { $ld }; un efecto es LD con la cabeza apagada menos eso.
# $token: the first token's text
influence-sinks-none = Ninguna cabeza pone la mitad de su peso o más en el primer token (“{ $token }”) desde esta consulta.
influence-sinks =
    { $count ->
        [one] { $count } cabeza pone
       *[other] { $count } cabezas ponen
    } la mitad de su peso o más en el primer token (“{ $token }”): sumideros. El valor que leen ahí suele ser pequeño, así que el peso aparcado ahí aporta poco a la salida.
influence-sinks-weight = peso en el primero
influence-sinks-norm-first = ‖v‖ del primero
influence-sinks-norm-rest = ‖v‖ medio de los demás
