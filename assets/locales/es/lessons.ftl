## La vista de Lecciones alrededor del texto de las páginas

lessons-position = Lección { $lesson } de { $lessons } · página { $page } de { $pages }
lessons-previous = Anterior
lessons-next = Siguiente
lessons-page-keys = RePág / AvPág
lessons-set-up-again = Volver a preparar esta página
lessons-input-controls = Controles de entrada y de atención
lessons-model = Modelo: { $name } ({ $layers } capas × { $heads } cabezas, d = { $d })
lessons-input = Entrada: “{ $text }”
lessons-input-pair = Entrada: “{ $source }” → “{ $target }”
lessons-toy-vocabulary = Un modelo de juguete entrenado por Glimpse: solo conoce estos { $count } tokens, y todo lo demás que escribas se lee como <unk>: { $tokens }
lessons-contents = Contenido
