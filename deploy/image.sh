#!/usr/bin/env bash
# Builds, saves and runs gantry's container image (deploy/Containerfile) with podman,
# from Debian's packages only: no registry is needed. deploy/README.md says more.
#
#   deploy/image.sh rootfs        make the root file system tarball (cached) and print its path
#   deploy/image.sh build         rootfs, the static gantry, then podman build: the image $GANTRY_IMAGE
#   deploy/image.sh save FILE     save the image $GANTRY_IMAGE as an OCI archive in FILE
#   deploy/image.sh flags         print the podman run flags this machine needs, one a line
#   deploy/image.sh run ARGS…     podman run the image with those flags, the current folder
#                                 mounted at /work, the model's keys and base URLs passed on,
#                                 and ARGS given to gantry
#   deploy/image.sh run-test      the image's Go test (deploy/image_test.go) with go test -v
#
# Environment (every one optional):
#   GANTRY_IMAGE         the image's name and tag (default localhost/gantry:latest)
#   GANTRY_IMAGE_CACHE   where the root file system tarball and the build context are kept
#                        (default deploy/.cache, which git ignores)
#   GANTRY_IMAGE_SUITE   the Debian suite of the root file system (default bookworm)
#   GANTRY_IMAGE_MIRROR  the Debian mirror mmdebstrap reads (default: mmdebstrap's own)
#   PODMAN               the podman program (default podman)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
image=${GANTRY_IMAGE:-localhost/gantry:latest}
cache=${GANTRY_IMAGE_CACHE:-$root/deploy/.cache}
suite=${GANTRY_IMAGE_SUITE:-bookworm}
podman=${PODMAN:-podman}

# The packages of the root file system, beside minbase's (dpkg, apt, coreutils, …):
# bash for the bash tool, git for the project's history, ca-certificates for the
# model's HTTPS, bubblewrap for the bash tool's sandbox.
packages=bash,git,ca-certificates,bubblewrap

# mmdebstrap's arguments but the suite, the output and the mirror. They are the
# tarball's recipe: the cache key is their hash, so that a change here makes a new one.
recipe=(
  --variant=minbase
  --include="$packages"
  # Only what the packages depend on; the image stays slim (recommends would bring
  # openssh-client, less, patch, …).
  --aptopt='APT::Install-Recommends "false"'
  # No manuals, documentation (but the copyright files) or translations.
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  # The non-root user gantry (uid and gid 1000, HOME /home/gantry) and the writable
  # work folder /work, where the project is mounted.
  --customize-hook='chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/bash gantry'
  --customize-hook='install -d -o 1000 -g 1000 -m 0755 "$1/work"'
  # git refuses a repository owned by another user ("dubious ownership"): a mounted
  # checkout often is (a volume's owner, a runner's uid), and the container is the
  # boundary here, so every folder is safe.
  --customize-hook='printf "[safe]\n\tdirectory = *\n" > "$1/etc/gitconfig"'
  # Logs and caches of the installation.
  --customize-hook='rm -rf "$1"/var/log/*.log "$1"/var/log/apt/* "$1"/var/cache/debconf/*-old "$1"/var/cache/ldconfig/aux-cache'
)

die() { echo "image.sh: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || die "$1 is not installed (Debian: apt-get install $2)"; }

# rootfs makes the tarball unless the cache has the one of this recipe, and prints its path.
rootfs() {
  need mmdebstrap mmdebstrap
  local key out
  key=$( { printf '%s\n' "$suite" "$(dpkg --print-architecture 2>/dev/null || uname -m)" "${recipe[@]}"; } | sha256sum | cut -c1-16)
  out=$cache/rootfs-$suite-$key.tar
  if [ ! -s "$out" ]; then
    mkdir -p "$cache"
    # Only the current recipe's tarball is kept.
    rm -rf "$cache"/rootfs-*.tar "$cache"/rootfs-*.tar.tmp
    mmdebstrap --quiet --format=tar "${recipe[@]}" "$suite" "$out.tmp" ${GANTRY_IMAGE_MIRROR:+"$GANTRY_IMAGE_MIRROR"} >&2
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# build puts the tarball and the static gantry in the build context and builds the image.
build() {
  need "$podman" podman
  local tar ctx version revision old new
  tar=$(rootfs)
  ctx=$cache/context
  rm -rf "$ctx"
  mkdir -p "$ctx"
  ln "$tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$tar" "$ctx/rootfs.tar"
  # The README's install command's build, into the context.
  (cd "$root" && CGO_ENABLED=1 go build -trimpath -buildvcs=auto -tags netgo,osusergo \
    -ldflags="-s -w -linkmode external -extldflags -static" -o "$ctx/gantry" ./cmd/gantry)
  version=$("$ctx/gantry" version | awk 'NR == 1 { print $2 }')
  revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
  old=$("$podman" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  new=$("$podman" build --quiet --file "$root/deploy/Containerfile" --tag "$image" \
    --label org.opencontainers.image.version="$version" --label org.opencontainers.image.revision="$revision" "$ctx")
  rm -rf "$ctx"
  # The image this one replaces (now untagged) goes, with its build's intermediate
  # images; one a container still uses stays, and podman says so.
  if [ -n "$old" ] && [ "$old" != "$new" ]; then
    "$podman" rmi "$old" >/dev/null || echo "image.sh: the previous $image ($old) is kept" >&2
  fi
  echo "$image"
}

# flags prints what podman run needs on this machine to run the image with gantry's
# sandbox working, one flag a line (deploy/README.md says why each).
flags() {
  # bubblewrap mounts a new /proc for each sandboxed command; the kernel refuses that
  # while parts of the container's /proc are covered, as the runtime covers them.
  echo '--security-opt=unmask=/proc/*'
  # crun refuses a machine whose cgroup v2 hierarchy has controllers beside v1's
  # ("cgroups in hybrid mode not supported"); runc runs there.
  if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ] && [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ]; then
    command -v runc >/dev/null || die "this machine's cgroups are in hybrid mode, where crun cannot run containers: install runc (apt-get install runc)"
    echo '--runtime=runc'
  fi
  # Without CAP_SYS_RESOURCE podman cannot raise the limits it gives by default
  # (1048576 open files and processes): give the caller's own instead. The count of
  # processes is per user and podman's pids limit (2048) binds first.
  local capeff
  capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
  if (( (0x$capeff >> 24 & 1) == 0 )); then
    local nofile nproc
    nofile=$(ulimit -Hn)
    nproc=$(ulimit -Hu)
    [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ] && nproc=4096
    echo "--ulimit=nofile=$nofile:$nofile"
    echo "--ulimit=nproc=$nproc:$nproc"
  fi
  # Rootless podman: the caller's own uid is gantry's inside, so that a mounted folder
  # of the caller's is gantry's to write.
  if [ "$(id -u)" != 0 ]; then
    echo '--userns=keep-id:uid=1000,gid=1000'
  fi
}

case "${1:-}" in
  rootfs) rootfs ;;
  build) build ;;
  save)
    [ -n "${2:-}" ] || die "save needs the archive's file name"
    rm -f "$2"
    "$podman" save --quiet --format oci-archive --output "$2" "$image"
    ;;
  flags) flags ;;
  run)
    shift
    mapfile -t f < <(flags)
    tty=()
    [ -t 0 ] && [ -t 1 ] && tty=(--tty)
    # The model's keys and base URLs, where the caller has them set.
    envs=()
    for v in ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL; do
      [ -z "${!v:-}" ] || envs+=(--env "$v")
    done
    exec "$podman" run --rm --interactive "${tty[@]}" "${f[@]}" "${envs[@]}" --volume "$PWD:/work" "$image" "$@"
    ;;
  run-test)
    cd "$root"
    exec go test -count=1 -v -run 'TestImage' ./deploy/
    ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
