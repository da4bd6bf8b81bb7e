## El laboratorio de cabezas ("Heads off"): apagar cabezas de atención en el modelo elegido,
## ordenarlas, y el traductor entrenado con claves y valores compartidos entre cabezas de consulta.

heads-section-off = apagar cabezas
heads-section-kv = compartir claves y valores (entrenado)
# Items of the export menu
heads-export-runs = ejecuciones como JSON
heads-export-ranking = clasificación como JSON

## Apagar cabezas

heads-intro = Haz clic en una cabeza para apagarla: su salida se pone a cero antes de concatenar las cabezas y mezclarlas con W_O, como si no estuviera. La pérdida y la precisión del modelo cambian según lo que aportaba esa cabeza.
heads-waiting = esperando al modelo…
# $model is a model's name; $measure is heads-measure-task or heads-measure-text
heads-measured = { $model }, medido en { $measure }.
# $task is a task's name (copy, reverse, translate…), kept in English
heads-measure-task = { $examples } ejemplos reservados de la tarea { $task } con la que se entrenó
heads-measure-text = el texto de la caja de entrada: { $predictions } predicciones del siguiente token
# $loss and $accuracy are numbers such as 0.031 and 99.1
heads-score = pérdida { $loss } nats · precisión por token { $accuracy } %
heads-score-exact = pérdida { $loss } nats · precisión por token { $accuracy } % · exactas { $exact } %
# $score is heads-score or heads-score-exact
heads-all-on = Las { $count } cabezas encendidas: { $score }
# $loss and $accuracy are signed changes such as +0.123 and −4.5
heads-off = { $count ->
        [one] { $count } cabeza apagada
       *[other] { $count } cabezas apagadas
    }: { $score } (pérdida { $loss }, precisión { $accuracy } puntos)
heads-none-off = Ninguna cabeza está apagada.
heads-all-on-button = encender todas
heads-ranked = ordenadas
heads-ranking = ordenando…
heads-rank = ordenar todas las cabezas
heads-stop = parar
# $time is a duration such as "40 s" or "3 min"
heads-rank-about = (apaga cada una de las { $count } cabezas por separado y luego las quita de la menos importante en adelante: { $scores } evaluaciones, unos { $time })
heads-progress = { $done } de { $total } evaluaciones
# Which attention a head belongs to, as in heads-describe
heads-kind-encoder = codificador
heads-kind-decoder = auto del decodificador
heads-kind-cross = cruzada
# $kind is heads-kind-encoder, heads-kind-decoder or heads-kind-cross
heads-describe = { $kind } · capa { $layer } · cabeza { $head }
heads-layer = capa { $layer }
heads-click-on = clic para encenderla
heads-click-off = clic para apagarla
# $head is heads-describe; $rise a signed number such as +0.123; $action is heads-click-on or heads-click-off
heads-hover-rise = { $head }: pérdida { $rise } sin ella; { $action }

## La clasificación y la curva de poda

heads-matter-most = Las cabezas que más importan
heads-rank-loss = pérdida { $rise }
# Short for "accuracy"; $change is a signed number of points such as −4.5
heads-rank-acc = prec. { $change }
heads-negligible = { $negligible } de { $count } cabezas cambian la pérdida menos de 0.01 nats al apagarlas por separado.
# $points is a whole number of percentage points
heads-removable = { $removable } de { $total } cabezas se pueden apagar a la vez, de la menos importante en adelante, con la precisión por token a { $points } punto o menos de la del modelo completo.
heads-removable-so-far = { $removable } de { $total } cabezas se pueden apagar a la vez, de la menos importante en adelante, con la precisión por token a { $points } punto o menos de la del modelo completo (por ahora).
heads-switch-those-off = apagar esas { $count }
heads-plot-title = precisión según se apagan cabezas
heads-plot-x-short = cabezas apagadas
heads-plot-x = cabezas apagadas, de la menos importante en adelante
heads-plot-accuracy = precisión por token
heads-plot-exact = coincidencia exacta
heads-plot-floor = modelo completo − 1 punto

## Claves y valores compartidos entre cabezas de consulta

# $kind is heads-multi-query or heads-grouped-query
heads-shared = Claves y valores compartidos: { $heads } cabezas de consulta leen { $kv } { $kv ->
        [one] cabeza
       *[other] cabezas
    } de clave/valor ({ $kind })
heads-multi-query = atención multiconsulta (multi-query)
heads-grouped-query = atención de consultas agrupadas (grouped-query), grupos de { $group }
# $numbers and $all_numbers are counts with thousands separators; $size is e.g. "1.2 MB"
heads-kv-cache = Caché KV por token y capa: 2 · { $kv } · { $d_head } = { $numbers } números, frente a 2 · { $heads } · { $d_head } = { $all_numbers } si cada cabeza de consulta tuviera las suyas ({ $group }× menos; { $size } en { $layers } capas y { $tokens } tokens en f32).
heads-kv-heading = Compartir claves y valores, entrenado
# $task is a task's name (translate), kept in English
heads-kv-intro = El modelo { $task } (4 cabezas de consulta por atención, 2 + 2 capas) entrenado tres veces durante { $steps } pasos desde la misma semilla: cada cabeza de consulta con sus propias claves y valores (multi-head), pares de cabezas de consulta compartiendo unas (grouped-query), y las cuatro compartiendo unas (multi-query). La caché KV que un decodificador guarda por token se reduce con las cabezas de clave/valor; mira qué pasa con la calidad.
# Written before the seed's number
heads-seed = semilla
heads-seed-about = otra semilla da otros pesos iniciales y otros ejemplos: en una tarea tan pequeña las tres difieren unos puntos en un sentido u otro, mientras la caché es 4× menor
# A column of the runs' table
heads-kv-cache-column = Caché KV por token
# $floats numbers per token, $bytes the same in bytes
heads-kv-floats = { $floats } floats ({ $bytes } B)

## Cuántas cabezas: una anchura repartida en 1 … 32 cabezas, entrenadas lado a lado
heads-section-count = cuántas cabezas (entrenado)
heads-count-heading = ¿Cuántas cabezas?
# $width is d_model (64), $steps the steps per run
heads-count-intro = El modelo de caracteres ({ $width } de ancho, 2 capas) entrenado seis veces durante { $steps } pasos desde la misma semilla sobre el mismo texto, con su anchura cortada en 1, 2, 4, 8, 16 y 32 cabezas: d_k = { $width } / h. W_Q, W_K y W_V son { $width } × { $width } sea cual sea h, así que todas las ejecuciones tienen los mismos parámetros y las mismas multiplicaciones-sumas; solo cambia cómo se reparte la anchura. La pérdida en validación (mejor cuanto más baja) se mide sobre texto con el que ninguna entrenó.
heads-count-seed-about = otra semilla da otros pesos iniciales y otros ejemplos: el orden de recuentos vecinos puede cambiar, los extremos rara vez
# A column of the runs' table
heads-count-column = d_k · parámetros · tiempo
# $d_k the width of a head, $parameters the model's count, $seconds its training time
heads-count-shape = { $d_k } · { $parameters } · { $seconds } s
heads-count-axis = cabezas (h)
heads-count-loss-title = pérdida en validación tras entrenar, por cabezas
heads-count-time-title = segundos de entrenamiento, por cabezas
# $best heads had the lowest held-out loss $loss; $one is one head's, $most_loss $most heads'
heads-count-verdict = Menor pérdida en validación: { $best } cabezas ({ $loss }). Una cabeza termina en { $one }, { $most } cabezas en { $most_loss }. Una cabeza entrenó en { $fast } s, { $most } cabezas en { $slow } s.
heads-count-why = Pocas cabezas: una cabeza devuelve un solo promedio ponderado por posición, así que una única cabeza que quiere dos caracteres distintos los mezcla en uno. Demasiadas: con d_k = 2 una cabeza compara tokens por solo dos números (q·k es una suma de dos productos), demasiado pocos para distinguir muchos caracteres. El tiempo crece aunque las multiplicaciones-sumas no, porque cada cabeza es un producto estrecho aparte y un softmax T × T aparte. La tabla de los apuntes (traducción, d_model = 512) tiene la misma forma: lo mejor con 8 cabezas, peor con 1 y con 32.
