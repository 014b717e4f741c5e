#!/usr/bin/env bash
# The side-by-side peer bench "edit and test" (bench/peer, docs/benchmarks.md "Peer bench"):
# gantry, the floor agent (bench/refagent) and crush when it can be had, alternated in
# one run. crush comes from bench/peer's package.json (npm ci --prefix bench/peer), else
# from PATH, else it is left out. A benchmark, not a test: no figure is asserted.
# Usage: bash bench/peer.sh [-rounds N] [-v] [-crush PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo -ldflags="-s -w -linkmode external -extldflags -static" -o "$out/gantry" ./cmd/gantry
go build -trimpath -ldflags="-s -w" -o "$out/refagent" ./bench/refagent
# A binary fresh from the linker is counted up to ~20 MB larger in RSS (its page cache
# is mapped in huge pages) until it is copied: measure copies, as installed binaries are.
for b in gantry refagent; do cp "$out/$b" "$out/$b.copy" && mv "$out/$b.copy" "$out/$b"; done
go build -o "$out/peer" ./bench/peer
echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
"$out/peer" -gantry "$out/gantry" -floor "$out/refagent" "$@"
