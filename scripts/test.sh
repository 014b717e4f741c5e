#!/usr/bin/env bash
# The whole test suite: formatting, vet, staticcheck, then every package's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$(go env GOPATH)/bin"

unformatted=$(gofmt -l . | grep -v '^testdata/' || true)
if [ -n "$unformatted" ]; then
  echo "not gofmt-clean:"; echo "$unformatted"; exit 1
fi
go vet ./...
if ! command -v staticcheck >/dev/null; then
  echo "installing staticcheck v0.8.2" >&2
  go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
staticcheck ./...
# -race: the loop, the store and the faces run goroutines side by side.
go test -race -count=1 -timeout 20m "$@" ./...
