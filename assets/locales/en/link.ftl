## Links: the notices under the top bar when a link (the address's #…) has parts the app
## could not read

# $part is a piece of the link, as written
link-not-key-value = ignored `{ $part }` (not key=value)
# $key and $value are a pair of the link, as written
link-could-not-read = could not read { $key }={ $value }: kept the default
# $version is the link's format number
link-newer = this link comes from a newer Glimpse (format { $version }); reading what this version understands
link-version-unreadable = the link's version is unreadable; reading it anyway
link-unknown-key = ignored unknown key `{ $key }`
