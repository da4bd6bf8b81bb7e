## The keyboard shortcut list (opened with ?), and the screen shown when the app stops on an
## internal error

shortcuts-title = Keyboard shortcuts
shortcuts-close = close (Escape)
# Where a shortcut works (the list's first column)
shortcuts-everywhere = everywhere
shortcuts-lessons = lessons
shortcuts-heatmaps = heatmaps
shortcuts-walkthrough = Attention walkthrough
shortcuts-decoding = Decoding
shortcuts-beam-tree = beam tree
# The keys (the second column) and what they do (the third); key names as printed on keys
shortcuts-tab-keys = Tab / Shift+Tab
shortcuts-tab = next / previous control, in reading order
shortcuts-press-keys = Enter or Space
shortcuts-press = press the focused button, tick the focused box
shortcuts-escape-keys = Escape
shortcuts-escape = let go of the focused control (the arrows then step the view)
shortcuts-slider-keys = ← → on a slider
shortcuts-slider = move the slider one step
shortcuts-list = this list (Escape closes it)
shortcuts-presenter = presenter mode: large type for a projector
shortcuts-page-keys = Page Down / Page Up
shortcuts-page = next / previous page
shortcuts-map-keys = Tab to the map, then ← ↑ → ↓
shortcuts-map = move the selected cell; it is read aloud
shortcuts-row-keys = Home / End
shortcuts-row = first / last cell of the row
shortcuts-enter-keys = Enter
shortcuts-cell = open the cell (Attention: make its row the query)
shortcuts-walkthrough-step = previous / next step of the computation
shortcuts-decoding-step = one decoding step forward / back
shortcuts-space-keys = Space
shortcuts-play = play or pause the search
shortcuts-box-keys = Tab to a box, then ← / →
shortcuts-box = its parent / its best child
shortcuts-above-below = the box above / below in the same step

## The screen over the app when it stops on an internal error (the browser build)

crash-title = Glimpse stopped because of an internal error
crash-body = Nothing you typed is lost: the link below reopens this view. Reload the page to continue.
# Shown when the error carries no message
crash-unknown = unknown error
