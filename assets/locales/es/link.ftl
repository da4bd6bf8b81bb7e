## Links: the notices under the top bar when a link (the address's #…) has parts the app
## could not read

# $part is a piece of the link, as written
link-not-key-value = se ignoró `{ $part }` (no es clave=valor)
# $key and $value are a pair of the link, as written
link-could-not-read = no se pudo leer { $key }={ $value }: se mantiene el valor por defecto
# $version is the link's format number
link-newer = este enlace viene de un Glimpse más reciente (formato { $version }); se lee lo que esta versión entiende
link-version-unreadable = la versión del enlace no se puede leer; se lee de todos modos
link-unknown-key = se ignoró la clave desconocida `{ $key }`
