#!/usr/bin/env bash
# `make install`: copy the browser assets the pages load (KaTeX, pinned in package-lock.json)
# into vendor/, which Django serves as /static/vendor/; no page needs a CDN, so the site is
# whole on a closed exam network. vendor/ and node_modules/ are build output, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null; then
  echo "make install needs npm (Node.js 18 or newer) to bundle KaTeX for the pages" >&2
  exit 1
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
rm -rf vendor/katex
mkdir -p vendor/katex
cp -R node_modules/katex/dist/katex.min.js node_modules/katex/dist/katex.min.css \
      node_modules/katex/dist/fonts vendor/katex/
