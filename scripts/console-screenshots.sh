#!/usr/bin/env bash
# Regenerates the console's screenshots, docs/console/*.png (each page at
# 1280×800, the objects page at a phone's 375×800), for docs/CONSOLE.md:
# TestScreenshots (test/console) with -update drives headless Chromium
# (Debian: apt-get install chromium) over a `jog server` built from this tree
# and filled with a few buckets and objects. Review the PNGs before
# committing them. Usage: scripts/console-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || {
	echo "no Chromium: apt-get install chromium" >&2
	exit 1
}
go test ./test/console -run '^TestScreenshots$' -update -count=1 -v -timeout 20m
ls -l docs/console/*.png
