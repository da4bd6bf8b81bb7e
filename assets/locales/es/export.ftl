## Export: a view or a matrix saved as PNG, CSV or JSON, and what the last export did

export-menu = exportar ▾
export-view-menu = exportar vista ▾
export-png-hover = lo que se muestra, como imagen
export-view-png-hover = toda la vista, como imagen
export-csv-hover = la matriz mostrada; las celdas enmascaradas quedan vacías
export-json-hover = la matriz mostrada; las celdas enmascaradas son null
# $done is the path written, or export-downloaded
export-exported = exportado: { $done }
# $name is a file name
export-downloaded = descargado { $name }
export-nothing = nada que exportar: la región está vacía o fuera de la pantalla
# $file is a file name
export-nothing-yet = { $file }: aún no hay nada que exportar
export-png-failed = falló la exportación PNG: el renderizador no dio captura de pantalla
# $path is where the file was to go; $error is the system's reason
export-cannot-write = no se puede escribir { $path }: { $error }
# $error is the browser's reason, in English
export-download-failed = falló la descarga: { $error }
