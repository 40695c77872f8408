#!/usr/bin/env bash
# Renders an HTML report of `menudeck compare --report` to a PNG with headless Chromium, to look
# at it as a reader would (the report is self-contained: nothing is fetched).
#
# Usage: Scripts/render-report.sh REPORT.html OUT.png [WIDTH,HEIGHT]
#   WIDTH,HEIGHT  the browser window in CSS pixels (default 1240,4000); the PNG is the window,
#                 so a longer report needs a taller window.
# Needs Chromium (Debian: apt-get install -y chromium).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTH,HEIGHT]" >&2
  exit 64
fi
html=$1
png=$2
size=${3:-1240,4000}
if [[ ! -f $html ]]; then
  echo "render-report: no such file '$html'; write one with menudeck compare --report FILE.html" >&2
  exit 66
fi
if [[ ! $size =~ ^[0-9]+,[0-9]+$ ]]; then
  echo "render-report: bad size '$size'; write WIDTH,HEIGHT, e.g. 1240,4000" >&2
  exit 64
fi
browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$(command -v "$candidate")
    break
  fi
done
if [[ -z $browser ]]; then
  echo "render-report: chromium not found; install it: apt-get install -y chromium" >&2
  exit 69
fi

html_path=$(realpath "$html")
png_dir=$(cd "$(dirname "$png")" && pwd)
png_path="$png_dir/$(basename "$png")"
profile=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$profile" "$log"' EXIT
rm -f "$png_path"

# A fresh profile, no GPU, no network use beyond the file itself.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --disable-extensions --disable-background-networking --user-data-dir="$profile" \
  --force-device-scale-factor=1 --window-size="$size" --screenshot="$png_path" \
  "file://$html_path" >"$log" 2>&1 || true

if [[ ! -s $png_path ]]; then
  echo "render-report: chromium wrote no screenshot; its output:" >&2
  cat "$log" >&2
  exit 70
fi
echo "$png_path"
