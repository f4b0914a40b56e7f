#!/usr/bin/env bash
# `make install`: install the pinned npm packages (package-lock.json), bundle the pages' assets
# with esbuild into vendor/app/ (scripts/build-assets.mjs), copy axe-core for the browser tests,
# and install Debian's chromium for them when it is missing. Django serves vendor/ as
# /static/vendor/; no page needs a CDN, so the site is whole on a closed exam network.
# vendor/ and node_modules/ are build output, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null; then
  echo "make install needs npm (Node.js 18 or newer) to bundle the pages' assets" >&2
  exit 1
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
rm -rf vendor/app vendor/katex vendor/axe
mkdir -p vendor/app vendor/axe
node scripts/build-assets.mjs
# The browser tests inject axe-core from here (never from a CDN).
cp node_modules/axe-core/axe.min.js vendor/axe/

# The browser tests (tests/browser/) drive Debian's chromium through Playwright.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing chromium for the browser tests (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
  else
    echo "Note: /usr/bin/chromium is missing; the browser tests need it (apt-get install chromium as root)" >&2
  fi
fi
