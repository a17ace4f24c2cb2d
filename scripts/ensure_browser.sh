#!/usr/bin/env bash
# The browser of tests/test_render_browser.py, installed where it is missing (`make test` runs this first):
# the system's Chromium when one is on PATH or the package manager may install it (Debian / Ubuntu: apt-get as root or
# through password-less sudo), else Playwright's own Chromium in its cache (~/.cache/ms-playwright; the test finds it).
# Usage: scripts/ensure_browser.sh [PYTHON]   (the venv's python, for `python -m playwright install chromium`)
set -euo pipefail
PYTHON=${1:-python3}
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if "$PYTHON" - <<'PY' 2>/dev/null; then
import sys
from pathlib import Path
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    sys.exit(0 if Path(p.chromium.executable_path).exists() else 1)
PY
    exit 0  # Playwright's own Chromium is there already
fi
if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi
    if [ "$SUDO" != none ]; then
        echo "ensure_browser: installing Debian's chromium for the browser test (apt-get)" >&2
        if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
                --no-install-recommends chromium >/dev/null; then
            exit 0
        fi
        echo "ensure_browser: apt-get could not install chromium; trying Playwright's own browser" >&2
    fi
fi
echo "ensure_browser: installing Playwright's Chromium for the browser test (python -m playwright install chromium)" >&2
"$PYTHON" -m playwright install chromium
