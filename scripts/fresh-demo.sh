#!/bin/bash
# The README's first-run figure: `npm run demo` as on a fresh machine that has only Rust and Node —
# a fresh clone of this repository, and empty npm, cargo (registry) and memdir (~/.cache/memdir:
# wasm-bindgen) caches, all in a temporary folder. Run it on an idle machine:
#   bash scripts/fresh-demo.sh
# (the wasm32 target comes from rustup's own folder; a machine without it adds its download)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/memdir-fresh-demo-XXXX")"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/memdir"
cd "$work/memdir"
export XDG_CACHE_HOME="$work/cache" npm_config_cache="$work/npm-cache" CARGO_HOME="$work/cargo"
export PATH="${HOME}/.cargo/bin:$PATH"
start=$(date +%s)
if ! npm run demo > "$work/demo.log" 2>&1; then
  tail -30 "$work/demo.log"
  echo "npm run demo failed" >&2
  exit 1
fi
echo "npm run demo from a fresh clone with empty caches: $(($(date +%s) - start)) s"
grep -E '^\s+\[' "$work/demo.log" || true
