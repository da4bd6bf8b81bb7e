## Accessibility: what a screen reader hears of the page around the app's drawing

# The name of the app's drawing area, read when it gets the keyboard
a11y-canvas = Glimpse: Tab moves between the controls; the page around it reads them
# The name of the hidden field the browser types into, when no text field of the app is focused
a11y-text-entry = text entry
# A panel divider, which a screen reader can move (a range)
a11y-resize-panel = Resize panel
