## El marco alrededor de los laboratorios: la barra superior y sus pestañas

# El nombre de este idioma, escrito en él mismo, como lo muestra la elección de idioma.
language-name = Español

shell-tab-lessons = Lecciones
shell-lessons-about = lecciones guiadas: lee a la izquierda, juega con el laboratorio a la derecha
shell-presenter = presentador (F)
shell-presenter-hover = letra grande para un proyector
shell-keys = teclas (?)
shell-keys-hover = todos los atajos de teclado
# $theme es uno de theme-dark, theme-light, theme-contrast
shell-theme = tema: { $theme }
shell-theme-hover = oscuro, claro o alto contraste (un enlace lo guarda como theme=)
theme-dark = oscuro
theme-light = claro
theme-contrast = contraste
shell-language = idioma: { $language }
shell-language-hover = el idioma de la aplicación y de sus lecciones (un enlace lo guarda como lang=)
shell-open = Abrir…
shell-open-hover = abre tu propio modelo: archivos, una carpeta, un nombre del hub o una URL
shell-dismiss = descartar

## Las pestañas de los laboratorios, y la línea junto a ellas para los que traen sus propios modelos

tab-attention = Atención
tab-scoring = Puntuación
tab-softmax = Softmax
tab-masking = Máscaras
tab-positions = Posiciones
tab-heads = Cabezas apagadas
tab-depth = Profundidad
tab-training = Entrenamiento
tab-decoding = Decodificación
tab-cost = Coste
tab-rnn = RNN
tab-contrastive = Contrastivo
tab-vision = Visión
tab-induction = Inducción
tab-influence = Influencia
tab-cost-about = lo que cuestan la atención, la recurrencia y la convolución: trabajo, pasos, memoria, parámetros
tab-decoding-about = la búsqueda en haz como un árbol, paso a paso; voraz, muestreo y la caché KV
tab-induction-about = palabras al azar leídas dos veces: la pérdida cae en la repetición y aparecen las cabezas que copian
tab-positions-about = cada esquema posicional, dibujado con las funciones que ejecuta el modelo, en modelos entrenados con él
tab-rnn-about = por qué atención: un traductor GRU con un solo vector de contexto frente a uno con atención aditiva
tab-softmax-about = softmax a mano: escribe puntuaciones o Q, K, V pequeñas y mira cada paso
tab-vision-about = un Vision Transformer pequeño entrenado aquí: parches, la atención del token de clase, suave y dura
tab-training-about = entrena un modelo con la propia retropropagación de Glimpse y mira cómo se forma su atención
