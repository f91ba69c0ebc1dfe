#!/bin/sh
# Renders a report in headless Chromium to a PNG and checks the picture is not blank: at least
# 200 distinct colours and 5 % non-white pixels. The sample report gives about 4700 colours and
# 18 %; a page with one word about 40 colours (anti-aliasing) and 0.00 %.
# Exit 77 (SKIPPED) without chromium.
# Usage: chromium_render.sh GPUCOST PNG_CHECK TESTDATA WORK_DIR
set -eu
gpucost=$1 png_check=$2 testdata=$3 work=$4
browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$gpucost" report --config "$testdata/samples/a100x2.toml" --tz Europe/Berlin --host h100box \
  "$testdata/samples/report-h100x2_query.csv" "$testdata/samples/report-h100x2_kern.log" -o "$work/report.html"
# Its own profile directory: nothing from, or left in, the user's home.
if ! timeout 180 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$work/profile" \
     --screenshot="$work/out.png" --window-size=1280,2000 "file://$work/report.html" >"$work/chromium.log" 2>&1; then
  cat "$work/chromium.log"
  echo "FAILED: $browser did not render the report"
  exit 1
fi
if [ ! -s "$work/out.png" ]; then
  cat "$work/chromium.log"
  echo "FAILED: $browser wrote no screenshot"
  exit 1
fi
"$png_check" "$work/out.png" 200 5
