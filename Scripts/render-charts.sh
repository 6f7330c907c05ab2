#!/usr/bin/env bash
# Render every committed chart (Reports/**/*.svg) with a real SVG renderer, rsvg-convert from
# librsvg, and fail on any file it cannot render: our own XML checks in the tests cannot tell
# whether a viewer draws the file.
#
#   Scripts/render-charts.sh            # check every chart
#   PNG_DIR=/tmp/png Scripts/render-charts.sh   # also keep the PNGs, to look at them
#
# Without rsvg-convert it installs the distribution's librsvg2-bin when it runs as root with
# apt-get available, and otherwise skips with a message (exit 0), so a fresh machine without
# the package still passes CI.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v rsvg-convert > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
        echo "render-charts: installing librsvg2-bin for rsvg-convert"
        { apt-get install -y librsvg2-bin || { apt-get update && apt-get install -y librsvg2-bin; }; } > /dev/null 2>&1 || true
    fi
fi
if ! command -v rsvg-convert > /dev/null 2>&1; then
    echo "render-charts: skipped: rsvg-convert is not installed (apt-get install librsvg2-bin)"
    exit 0
fi

out=${PNG_DIR:-$(mktemp -d)}
mkdir -p "$out"
count=0
failed=0
while IFS= read -r svg; do
    png="$out/$(echo "${svg%.svg}" | tr '/' '_').png"
    if ! rsvg-convert "$svg" -o "$png" 2> "$out/error.txt" || [ ! -s "$png" ]; then
        echo "render-charts: $svg does not render: $(head -c 300 "$out/error.txt")"
        failed=$((failed + 1))
    fi
    count=$((count + 1))
done < <(find Reports -name '*.svg' | sort)
rm -f "$out/error.txt"
[ -n "${PNG_DIR:-}" ] || rm -rf "$out"
if [ "$failed" -gt 0 ]; then
    echo "render-charts: $failed of $count charts do not render"
    exit 1
fi
echo "render-charts: all $count charts render"
