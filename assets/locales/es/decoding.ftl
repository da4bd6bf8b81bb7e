## El laboratorio de decodificación: la búsqueda en haz como árbol, la decodificación voraz, el
## muestreo, la caché KV y rellenar el hueco cuando el modelo elegido es un codificador

decoding-export-candidates = candidatos en JSON
decoding-export-tree = árbol del haz en JSON
decoding-heading-fill = Decodificación: rellena el hueco
decoding-heading = Decodificación: búsqueda en haz, voraz y muestreo
decoding-intro = Un modelo da una probabilidad a cada posible token siguiente. La decodificación voraz toma cada vez el más probable; la búsqueda en haz conserva las B mejores frases parciales (el haz) y puede encontrar una frase completa más probable que empieza con una palabra menos probable.
# Las dos partes plegables bajo la búsqueda.
decoding-part-sampling = Muestreo
decoding-part-kv = Caché KV

## De dónde salen las probabilidades, y los ajustes de la búsqueda

decoding-source-pick = Probabilidades de:
decoding-source-translate = modelo de traducción
decoding-source-lm = LM de caracteres
decoding-source-table = tabla escrita
# El modelo elegido en la barra superior.
decoding-source-picked = el modelo elegido
decoding-translate-label = Frase en francés para traducir:
decoding-lm-label = texto que el LM debe continuar:
# $model: el nombre del modelo elegido.
decoding-picked-label = texto que { $model } debe continuar:
decoding-table-label = tabla del siguiente token, un prefijo por línea (prefijo -> token p, token p; un prefijo sin línea termina con <eos>):
decoding-beam-width = ancho del haz
decoding-alpha = α (normalización por longitud)
decoding-max-length = longitud máxima
decoding-temperature = temperatura
decoding-use-cache = usar caché KV

## Avanzar la búsqueda paso a paso

decoding-reset = Reiniciar
decoding-back = ◀ Atrás
decoding-step = Paso ▶
decoding-pause = Pausa
decoding-play = Reproducir
decoding-run-to-end = Hasta el final
decoding-keys = teclas: → paso · ← atrás · espacio reproducir/pausa · Tab hasta una caja, y las flechas recorren el árbol
decoding-no-search = sin búsqueda
# $ready de $of: las hipótesis del paso $step cuya pasada ya terminó.
decoding-computing-step = calculando el paso { $step }: { $ready } de { $of } hipótesis puntuadas
decoding-step-done = paso { $step } de { $step } (terminado)
# $most: lo más lejos que puede llegar la búsqueda.
decoding-step-of = paso { $step } de { $most } como máximo
# $error: por qué se detuvo la búsqueda (lo escribe el modelo o la tabla).
decoding-search-stopped = la búsqueda se detuvo: { $error }
decoding-room = Al modelo le queda sitio para { $count } tokens más tras este prompt.
decoding-tree-heading = El árbol de búsqueda
decoding-candidates-heading = Los candidatos de este paso
decoding-press-step = Pulsa Paso ▶ (o →) para expandir el inicio.
decoding-ranking-heading = Clasificación final
decoding-attention-heading = Atención de la hipótesis seleccionada

## Por qué no hay búsqueda ($model: el nombre de un modelo)

decoding-error-not-loaded = el modelo aún no está cargado
decoding-error-no-model = no hay ningún modelo elegido
decoding-error-table-model = una tabla escrita no tiene modelo
decoding-error-encoder = { $model } es un codificador: puntúa todos los tokens a la vez y no predice ningún token siguiente; elige un LM decodificador (SmolLM2, lm) en la barra superior
decoding-error-unknown = { $count ->
        [one] { $count } fragmento del texto no está
       *[other] { $count } fragmentos del texto no están
    } en el vocabulario de { $model }
decoding-error-prompt-fills = el prompt ocupa las { $count } posiciones del modelo

## El árbol del haz: una caja por hipótesis, su texto emergente y su nombre para lectores de pantalla

decoding-state-live = viva (en el haz)
decoding-state-expanded = expandida
decoding-state-finished = terminada (acabó con <eos> dentro del haz)
decoding-state-stopped = detenida en el límite de longitud
decoding-state-outscored = descartada al final: una hipótesis terminada ya puntúa más, y cada token más solo podría bajar la puntuación de esta
# $rank de $of: el puesto de la hipótesis entre los candidatos del paso.
decoding-state-pruned = podada: puesto { $rank } de { $of }: fuera del haz
# El rótulo de la primera caja del árbol.
decoding-node-start = inicio
# Las líneas del texto emergente de una caja ($value: un número ya formateado).
decoding-hover-token = token { $token }
decoding-hover-log-p = log p { $value }
decoding-hover-cumulative = acumulado { $value }
decoding-hover-score = puntuación { $value }
decoding-hover-length = longitud { $length }
decoding-hover-greedy = en el camino voraz
# El nombre de una caja para lectores de pantalla. $id: el número del nodo; $token: su token; $state: uno de los mensajes decoding-state-.
decoding-node-name = nodo { $id } { $token }: paso { $step }, log p { $log_p }, acumulado { $cumulative }, { $state }
# La leyenda de colores bajo el árbol.
decoding-legend-live = viva
decoding-legend-expanded = expandida
decoding-legend-finished = terminada
decoding-legend-stopped = detenida
decoding-legend-outscored = superada
decoding-legend-pruned = podada
decoding-legend-greedy = camino voraz (naranja)

## Los candidatos de un paso, y la clasificación final junto a la decodificación voraz

# $width: el ancho del haz; $alpha: la normalización por longitud, ya formateada.
decoding-candidates-note = Paso { $step }: cada hipótesis viva propone sus { $width } mejores tokens siguientes; todos se ordenan por puntuación = log p acumulado dividido entre L elevado a α (L tokens, α = { $alpha }) y se conservan los { $width } mejores.
decoding-col-rank = puesto
decoding-col-hypothesis = hipótesis
decoding-col-log-p = log p (token nuevo)
decoding-col-cumulative = acumulado
decoding-col-score = puntuación
decoding-verdict-pruned = podada
decoding-verdict-finished = conservada · terminada
decoding-verdict-stopped = conservada · detenida en el límite de longitud
decoding-verdict-kept = conservada
decoding-ranking-beam = Búsqueda en haz: hipótesis terminadas
decoding-ranking-best = mejor: { $hypothesis } (puntuación { $score })
decoding-greedy-heading = Decodificación voraz (el token más probable en cada paso)
decoding-greedy-computing = decodificación voraz: calculando… ({ $count } tokens hasta ahora)
# $text: los tokens que eligió la decodificación voraz.
decoding-greedy-result = decodificación voraz: { $text } (acumulado { $cumulative })
decoding-greedy-agree = Aquí la búsqueda en haz y la voraz coinciden.
# $beam y $greedy: probabilidades, ya formateadas.
decoding-greedy-beam-likelier = La búsqueda en haz encontró una secuencia más probable: p ≈ { $beam } frente a { $greedy } de la voraz.
decoding-greedy-differ = Difieren: la penalización por longitud α cambió qué final gana.
decoding-greedy-error = voraz: { $error }

## La atención detrás de la hipótesis seleccionada

decoding-attention-table = Una tabla escrita no tiene atención: elige un modelo como fuente para mirar dentro.
decoding-attention-click = Haz clic en un nodo del árbol para ver a qué atendió el modelo hasta llegar ahí.
decoding-layer = capa
decoding-head = cabeza
# $hypothesis: el texto de la hipótesis seleccionada.
decoding-attention-run = El modelo ejecutado sobre «{ $hypothesis }»: la última fila es la consulta que eligió el siguiente token.
# $kind: el tipo de atención (decoder self-attention, cross-attention), como lo nombra el modelo.
decoding-attention-context = { $kind } · capa { $layer } · cabeza { $head }

## La caché KV: la decodificación voraz con y sin ella

decoding-kv-table = Una tabla escrita no calcula nada: no tiene claves ni valores que guardar en caché.
decoding-kv-intro = Con la caché, cada paso calcula una posición nueva y reutiliza las claves y los valores de las demás; sin ella, cada paso vuelve a calcular todo el prefijo (trabajo total cuadrático). Ambas producen los mismos tokens.
# $cached y $plain: pasos medidos hasta ahora con caché y sin ella; $of: el máximo posible.
decoding-kv-measuring = midiendo… pasos voraces con la caché { $cached } de { $of } como máximo, recalculados { $plain }
# $width: cabezas × d_head para un token.
decoding-kv-size = tamaño de la caché = { $layers } capas × 2 (K y V) × posiciones × { $width } (cabezas × d_head) floats
decoding-kv-times = Los tiempos son totales hasta ahora. Ambas ejecuciones leen el prompt en una sola pasada en el primer paso; desde el segundo, la ejecución con caché calcula una posición nueva y la recalculada todas.
decoding-kv-same = Los mismos tokens con y sin la caché ({ $count } pasos).
decoding-kv-different = Las ejecuciones con caché y recalculada eligieron tokens distintos.
# Las cabeceras de la tabla, en dos líneas: "cached:" sobre "positions", luego "total", "time so far".
decoding-kv-col-step = paso
decoding-kv-col-token = token
decoding-kv-col-cached = con caché:
decoding-kv-col-recomputed = recalculado:
decoding-kv-col-positions = posiciones
decoding-kv-col-total = total
decoding-kv-col-time = tiempo acumulado
decoding-kv-col-size = tamaño caché
decoding-kv-col-floats = (floats)
decoding-kv-plot-caption = posiciones calculadas hasta ahora, frente al paso
decoding-kv-plot-title = posiciones calculadas hasta ahora
decoding-kv-plot-x = paso
decoding-kv-with-cache = con la caché
decoding-kv-recomputing = recalculando

## Rellenar el hueco (el modelo elegido es un codificador)

decoding-fill-intro = { $model } es un codificador: lee toda la frase a la vez, en ambas direcciones, y no predice ningún token siguiente. Su tarea de preentrenamiento era rellenar huecos: esconde una palabra tras el token de máscara y propondrá las palabras que encajan, a partir de las palabras de ambos lados.
decoding-fill-pick-decoder = Elige un LM decodificador (SmolLM2, lm) en la barra superior para la búsqueda en haz.
# $mask: el token de máscara del modelo, p. ej. [MASK].
decoding-fill-sentence = frase con { $mask }:
# $blank: el número del hueco; $position: la posición de su token.
decoding-fill-blank = hueco { $blank } (token { $position })

## Muestreo

decoding-sampling-intro = En lugar de conservar las mejores hipótesis, elige al azar un token siguiente entre los candidatos renormalizados. La semilla fija los sorteos: la misma semilla y los mismos ajustes dan siempre el mismo texto.
decoding-sample = muestrear
decoding-sampling-drawn = muestreando… { $count } tokens sorteados
decoding-seed = semilla
decoding-sampling-temperature = temperatura de muestreo
# $text: los tokens muestreados.
decoding-sample-run = semilla { $seed }: { $text }
# $draw: el número aleatorio uniforme, ya formateado.
decoding-sample-step = paso { $step }: { $count ->
        [one] { $count } candidato conservado
       *[other] { $count } candidatos conservados
    }, sorteo uniforme { $draw }
decoding-sample-more = … y { $count } más
# Tras el porcentaje de una barra: este token salió en el sorteo.
decoding-sample-chosen = elegido
