#!/usr/bin/env bash
# Re-vendors the chart library of the pages (query/web/assets/vendor/uplot)
# from npm at the pinned version and checks the tarball against the
# integrity npm publishes. Run by hand when the pin changes; the tests never
# run it (the vendored copy is committed and embedded in the binary).
set -euo pipefail
version=1.6.32
sha256=4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d # of uplot-$version.tgz
dest="$(cd "$(dirname "$0")/.." && pwd)/query/web/assets/vendor/uplot"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$version" >/dev/null)
echo "$sha256  $tmp/uplot-$version.tgz" | sha256sum -c --quiet || { echo "vendor-uplot.sh: uplot-$version.tgz does not have the pinned sha256" >&2; exit 1; }
tar -xzf "$tmp/uplot-$version.tgz" -C "$tmp"
mkdir -p "$dest"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$dest/"
echo "$version" > "$dest/VERSION"
echo "vendored uplot $version into $dest"
