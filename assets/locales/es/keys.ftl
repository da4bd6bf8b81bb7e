## The keyboard shortcut list (opened with ?), and the screen shown when the app stops on an
## internal error

shortcuts-title = Atajos de teclado
shortcuts-close = cerrar (Esc)
# Where a shortcut works (the list's first column)
shortcuts-everywhere = en todas partes
shortcuts-lessons = lecciones
shortcuts-heatmaps = mapas de calor
shortcuts-walkthrough = Recorrido de Atención
shortcuts-decoding = Decodificación
shortcuts-beam-tree = árbol del haz
# The keys (the second column) and what they do (the third); key names as printed on keys
shortcuts-tab-keys = Tab / Mayús+Tab
shortcuts-tab = control siguiente / anterior, en orden de lectura
shortcuts-press-keys = Intro o Espacio
shortcuts-press = pulsa el botón enfocado, marca la casilla enfocada
shortcuts-escape-keys = Esc
shortcuts-escape = suelta el control enfocado (las flechas pasan a mover la vista)
shortcuts-slider-keys = ← → en un deslizador
shortcuts-slider = mueve el deslizador un paso
shortcuts-list = esta lista (Esc la cierra)
shortcuts-presenter = modo presentador: letra grande para un proyector
shortcuts-page-keys = Av Pág / Re Pág
shortcuts-page = página siguiente / anterior
shortcuts-map-keys = Tab hasta el mapa, luego ← ↑ → ↓
shortcuts-map = mueve la celda seleccionada; se lee en voz alta
shortcuts-row-keys = Inicio / Fin
shortcuts-row = primera / última celda de la fila
shortcuts-enter-keys = Intro
shortcuts-cell = abre la celda (Atención: su fila pasa a ser la consulta)
shortcuts-walkthrough-step = paso anterior / siguiente del cálculo
shortcuts-decoding-step = un paso de decodificación adelante / atrás
shortcuts-space-keys = Espacio
shortcuts-play = reproduce o pausa la búsqueda
shortcuts-box-keys = Tab hasta una caja, luego ← / →
shortcuts-box = su padre / su mejor hijo
shortcuts-above-below = la caja de arriba / abajo en el mismo paso

## The screen over the app when it stops on an internal error (the browser build)

crash-title = Glimpse se detuvo por un error interno
crash-body = No se ha perdido nada de lo que escribiste: el enlace de abajo vuelve a abrir esta vista. Recarga la página para continuar.
# Shown when the error carries no message
crash-unknown = error desconocido
