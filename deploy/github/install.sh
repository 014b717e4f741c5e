#!/usr/bin/env bash
# The GitHub Action's install steps (action.yml), in two parts:
#
#   install.sh download   fetch the release binary for the runner's system and check it
#                         against the release's SHA256SUMS; say need_build=true when there
#                         is no such release (or INPUT_BUILD_FROM_SOURCE is true)
#   install.sh build      build gantry from the action's own checkout with Go
#
# Each writes the binary's path as the step output "path". A release is expected to carry
# one bare binary per system, named gantry-<os>-<arch> (gantry-linux-amd64,
# gantry-darwin-arm64, …), and a SHA256SUMS file listing them as sha256sum prints it.
set -euo pipefail

die() {
  echo "::error::$*" >&2
  exit 1
}

: "${GITHUB_OUTPUT:?}" "${RUNNER_TEMP:?}"
bin_dir=$RUNNER_TEMP/gantry-bin
mkdir -p "$bin_dir"

# sha256 prints a file's SHA-256 in hex (sha256sum on Linux, shasum on macOS).
sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# fetch URL FILE downloads URL into FILE and prints the HTTP status (000: no answer).
fetch() {
  curl -sSL --retry 3 -o "$2" -w '%{http_code}' "$1" || true
}

download() {
  if [ "${INPUT_BUILD_FROM_SOURCE:-false}" = true ]; then
    echo "gantry: build_from_source is true: building from the action's checkout"
    echo "need_build=true" >>"$GITHUB_OUTPUT"
    return
  fi
  local os arch repo version base asset status want got
  case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  *) os='' ;;
  esac
  case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | aarch64 | arm64) arch=arm64 ;;
  *) arch='' ;;
  esac
  if [ -z "$os" ] || [ -z "$arch" ]; then
    echo "gantry: no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}: building from source"
    echo "need_build=true" >>"$GITHUB_OUTPUT"
    return
  fi
  # The release: the version input, else the action's own ref when it is a version tag,
  # else the latest release of the action's repository.
  repo=${ACTION_REPOSITORY:-}
  [ -n "$repo" ] || repo=gantry-dev/gantry
  version=${INPUT_VERSION:-}
  if [ -z "$version" ]; then
    case "${ACTION_REF:-}" in v[0-9]*) version=$ACTION_REF ;; *) version=latest ;; esac
  fi
  if [ "$version" = latest ]; then
    base=${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/latest/download
  else
    base=${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$version
  fi
  asset=gantry-$os-$arch
  status=$(fetch "$base/$asset" "$bin_dir/gantry")
  case "$status" in
  200) ;;
  404)
    echo "gantry: $repo has no release $version with $asset: building from source"
    echo "need_build=true" >>"$GITHUB_OUTPUT"
    return
    ;;
  *) die "downloading $base/$asset answered $status" ;;
  esac
  status=$(fetch "$base/SHA256SUMS" "$bin_dir/SHA256SUMS")
  [ "$status" = 200 ] || die "downloading $base/SHA256SUMS answered $status: the binary cannot be checked"
  want=$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1 }' "$bin_dir/SHA256SUMS")
  [ -n "$want" ] || die "$base/SHA256SUMS lists no $asset"
  got=$(sha256 "$bin_dir/gantry")
  if [ "$got" != "$want" ]; then
    rm -f "$bin_dir/gantry"
    die "$asset of $version has SHA-256 $got, but SHA256SUMS says $want"
  fi
  chmod +x "$bin_dir/gantry"
  echo "gantry: $("$bin_dir/gantry" version) from $base/$asset"
  echo "need_build=false" >>"$GITHUB_OUTPUT"
  echo "path=$bin_dir/gantry" >>"$GITHUB_OUTPUT"
}

# build makes gantry as the README's install command does: static, with the grammars
# of the structural tools through cgo, where the runner has a C compiler and the C
# library's static archive (Linux); a plain build elsewhere, and without cgo when the
# environment says CGO_ENABLED=0.
build() {
  : "${ACTION_PATH:?}"
  cd "$ACTION_PATH"
  local out=$bin_dir/gantry
  if [ "${CGO_ENABLED:-}" != 0 ] && [ "$(uname -s)" = Linux ] && command -v gcc >/dev/null &&
    { [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || [ -e /usr/lib/aarch64-linux-gnu/libc.a ]; }; then
    CGO_ENABLED=1 go build -trimpath -buildvcs=auto -tags netgo,osusergo \
      -ldflags="-s -w -linkmode external -extldflags -static" -o "$out" ./cmd/gantry
  else
    go build -trimpath -buildvcs=auto -o "$out" ./cmd/gantry
  fi
  echo "gantry: built $("$out" version)"
  echo "path=$out" >>"$GITHUB_OUTPUT"
}

case "${1:-}" in
download) download ;;
build) build ;;
*) die "usage: install.sh download|build" ;;
esac
