## Accessibility: what a screen reader hears of the page around the app's drawing

# The name of the app's drawing area, read when it gets the keyboard
a11y-canvas = Glimpse: Tab pasa de un control a otro; la página que lo rodea los lee
# The name of the hidden field the browser types into, when no text field of the app is focused
a11y-text-entry = entrada de texto
# Un divisor de panel, que un lector de pantalla puede mover (un rango)
a11y-resize-panel = Cambiar el tamaño del panel
