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
# The patched Bubble Tea (third_party/bubbletea, see its GANTRY.md): every file but the
# patch's is upstream's, and upstream's tests of the package pass with the patch.
bt=third_party/bubbletea
bt_version=$(go list -m -f '{{.Version}}' charm.land/bubbletea/v2)
bt_upstream=$(go mod download -json "charm.land/bubbletea/v2@$bt_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
bt_drift=$(diff -rq "$bt_upstream" "$bt" | grep -v -e "^Only in $bt: GANTRY.md\$" -e "^Only in $bt: gantry_idle_test.go\$" -e "^Files $bt_upstream/tea.go and $bt/tea.go differ\$" || true)
if [ -z "$bt_upstream" ] || [ -n "$bt_drift" ]; then
  echo "$bt is not upstream's $bt_version but for its patch:"; echo "${bt_drift:-upstream not downloaded}"; exit 1
fi
# Upstream's TestClearMsg sends its commands from a goroutine started before the program
# runs, so on a loaded machine their output may come before the first frame (rare: 0 in
# 30 runs here, for upstream's copy as for ours): a failure is run once more, and a
# second failure fails.
(cd "$bt" && go vet . && { go test -race -count=1 . || { echo "$bt: upstream's tests again"; go test -race -count=1 .; }; })
# Without cgo gantry still builds, and its parser says that it needs cgo (the tests
# below run with cgo: -race needs it).
CGO_ENABLED=0 go build -o /dev/null ./cmd/gantry
CGO_ENABLED=0 go test -count=1 ./internal/syntax/
# The macOS build (the computer tool's macOS backend, everything else): built, not run.
GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go build -o /dev/null ./cmd/gantry
GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet ./internal/desktop/
# The ACP end-to-end tests (cmd/gantry/acp_e2e_test.go) drive gantry acp with the
# TypeScript ACP SDK; install the client's pinned package when it is missing.
acp_client=cmd/gantry/testdata/acp-client
if [ ! -d "$acp_client/node_modules/@agentclientprotocol/sdk" ]; then
  if ! command -v npm >/dev/null; then
    echo "npm is missing: the ACP end-to-end tests need Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
  npm ci --no-audit --no-fund --prefix "$acp_client"
fi
# The end-to-end tests of gantry mcp (cmd/gantry/mcp_e2e_test.go) drive it with the
# TypeScript MCP SDK's client and the MCP Inspector's CLI, pinned by this folder's
# lockfile; install them when they are missing.
mcp_client=cmd/gantry/testdata/mcp-client
if [ ! -d "$mcp_client/node_modules/@modelcontextprotocol/inspector" ] || [ ! -d "$mcp_client/node_modules/@modelcontextprotocol/sdk" ]; then
  if ! command -v npm >/dev/null; then
    echo "npm is missing: the gantry mcp end-to-end tests need Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
  npm ci --no-audit --no-fund --prefix "$mcp_client"
fi
# The MCP client's tests (internal/mcpclient/everything_test.go) connect to the MCP
# project's reference server, @modelcontextprotocol/server-everything, pinned by its
# lockfile; install it when it is missing (without npm the test is skipped).
mcp_everything=internal/mcpclient/testdata/everything
if [ ! -d "$mcp_everything/node_modules/@modelcontextprotocol/server-everything" ] && command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --prefix "$mcp_everything"
fi
# The language-server tests (internal/lsp) start pyright and typescript-language-server
# (with typescript) from this folder, pinned by its lockfile; install them when they are
# missing (without npm those tests are skipped). gopls and clangd-19 come from .ci/run.
lsp_servers=internal/lsp/testdata/servers
if [ ! -x "$lsp_servers/node_modules/.bin/typescript-language-server" ] && command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --prefix "$lsp_servers"
fi
# The structural-search conformance tests (internal/astmatch) compare gantry with the
# ast-grep CLI pinned by this folder's lockfile; install it when it is missing (without
# npm that test is skipped).
astgrep=internal/astmatch/testdata/astgrep
if [ ! -x "$astgrep/node_modules/.bin/ast-grep" ] && command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --prefix "$astgrep"
fi
# -race: the loop, the store and the faces run goroutines side by side.
go test -race -count=1 -timeout 20m "$@" ./...
