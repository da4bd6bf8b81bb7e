## Nombres que da la capa del modelo: tipos de atención, familias de modelos, esquemas
## posicionales, los patrones por los que se reconoce una cabeza (con cómo se mide cada uno)

names-encoder-self = autoatención del codificador
names-decoder-self = autoatención del decodificador
names-cross = atención cruzada
names-encoder-only = solo codificador
names-decoder-only = solo decodificador
names-encoder-decoder = codificador–decodificador
names-positional-none = ninguna
names-positional-sinusoidal = sinusoidal
names-positional-learned = aprendida
names-positional-relative = sesgo relativo
names-pattern-self = sí mismo / diagonal
names-pattern-previous = token anterior
names-pattern-next = token siguiente
names-pattern-first = primer token
names-pattern-last = último token
names-pattern-same-word = propia palabra
names-pattern-broad = amplia
names-pattern-induction = tipo inducción
names-pattern-aligned = alineación de palabras
names-pattern-self-explained = Atención media que cada consulta presta a su propia posición.
names-pattern-previous-explained = Atención media que cada consulta (de la segunda en adelante) presta a la posición justo anterior.
names-pattern-next-explained = Atención media que cada consulta (salvo la última) presta a la posición justo siguiente: solo puede tenerla un modelo sin máscara causal.
names-pattern-first-explained = Atención media que cada consulta presta a la primera clave (en la autoatención se deja fuera la primera consulta: en un modelo causal solo puede verse a sí misma). El [CLS] de BERT, el <bos> de un decodificador.
names-pattern-last-explained = Atención media que cada consulta (salvo la última) presta a la última clave: el [SEP] de BERT cierra toda entrada.
names-pattern-same-word-explained = Para cada token de una palabra cortada en varias piezas (token ##ization), la atención que presta a las otras piezas de esa palabra, en promedio.
names-pattern-broad-explained = La entropía de cada fila dividida entre la máxima posible (log2 de sus claves visibles), en promedio: 1 significa atención repartida por igual.
names-pattern-induction-explained = Para cada consulta cuyo token apareció antes, la atención que presta al token que siguió a esa aparición anterior, en promedio.
names-pattern-aligned-explained = Atención cruzada: el mayor peso de la fila de cada consulta, en promedio, por la fracción de tokens de origen distintos en los que caen esos mayores pesos. Alta cuando cada token de destino lee sobre todo su propio token de origen, esté donde esté: una alineación de palabras, como cuando una traducción reordena las palabras.

## Las frases fijas de la capa del modelo: las etapas de una conversión, por qué no hay GPU, por qué un laboratorio no puede ejecutarse

names-stage-reading = leyendo los archivos
names-stage-copying = copiando los tensores del archivo
names-stage-tokenizer = construyendo el tokenizador
names-stage-vocabulary = listando el vocabulario
names-stage-mapping = asignando los tensores al modelo
names-stage-assembling = montando el modelo
names-stage-done = hecho
# $reason dice por qué (names-no-webgpu, o las palabras del propio controlador gráfico)
names-no-gpu = sin GPU: { $reason }
names-no-webgpu = este navegador no ofrece WebGPU (navigator.gpu no dio ningún adaptador)
names-induction-needs-decoder = la inducción necesita un modelo solo decodificador: predice cada token siguiente a partir de los anteriores
names-waiting-for-pass = esperando la pasada hacia delante de la entrada
