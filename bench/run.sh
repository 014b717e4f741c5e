#!/usr/bin/env bash
# Builds gantry and measures it against a local fake model server (bench/harness).
# Usage: bash bench/run.sh [harness flags, e.g. -runs 30 -big 0]
# What the model reads (request bodies by part, prefix stability, tool results) is measured
# apart: go run ./bench/modelview -gantry bench/out/gantry (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo -ldflags="-s -w -linkmode external -extldflags -static" -o "$out/gantry" ./cmd/gantry
# A binary fresh from the linker is counted ~20 MB larger in RSS until it is copied
# (its pages stay as the linker wrote them): measure a copy, as an installed one is.
cp "$out/gantry" "$out/gantry.copy" && mv "$out/gantry.copy" "$out/gantry"
go build -o "$out/harness" ./bench/harness
echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(go version | cut -d' ' -f3)"
"$out/harness" -gantry "$PWD/$out/gantry" "$@"
