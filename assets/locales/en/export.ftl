## Export: a view or a matrix saved as PNG, CSV or JSON, and what the last export did

export-menu = export ▾
export-view-menu = export view ▾
export-png-hover = what is shown, as an image
export-view-png-hover = the whole view, as an image
export-csv-hover = the matrix shown; masked cells are empty
export-json-hover = the matrix shown; masked cells are null
# $done is the path written, or export-downloaded
export-exported = exported: { $done }
# $name is a file name
export-downloaded = downloaded { $name }
export-nothing = nothing to export: the region is empty or off screen
# $file is a file name
export-nothing-yet = { $file }: nothing to export yet
export-png-failed = PNG export failed: no screenshot from the renderer
# $path is where the file was to go; $error is the system's reason
export-cannot-write = cannot write { $path }: { $error }
# $error is the browser's reason, in English
export-download-failed = download failed: { $error }
