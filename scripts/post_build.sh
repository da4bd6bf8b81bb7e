#!/usr/bin/env bash
# Trunk's post-build hook (Trunk.toml): first place the real checkpoints beside the app, then
# add the threaded build (scripts/web_threads.sh), then write the service worker, whose precache list must see the models' `served.json`. One hook
# running both in order, because Trunk may run hooks of one stage side by side.
set -euo pipefail
DIR="$(dirname "${BASH_SOURCE[0]}")"
bash "$DIR/serve_models.sh" "$@"
bash "$DIR/web_threads.sh" "$@"
bash "$DIR/pwa.sh" "$@"
