#!/usr/bin/env bash
# Builds the reportd image from the Dockerfile as localhost/reportd:latest:
#   - with `docker build` where a Docker engine answers, else with Debian's buildah
#     (`buildah build --isolation chroot`: no daemon, no user namespaces needed), in Docker's image
#     format: the default OCI format has no HEALTHCHECK and buildah drops it with a warning;
#   - when the Dockerfile's base image is neither present nor pullable (no container registry), it is
#     made locally under that same name from Debian's packages and the npm registry
#     (scripts/image-base.sh), and the Dockerfile is built as it stands.
# Layers are cached (buildah --layers; docker caches by default): a rebuild after a change to src/
# recompiles and copies the app again, not the system packages or the npm install.
#   bash scripts/build-image.sh               # build (or rebuild) the image
#   REPORTD_IMAGE=name:tag                    # another name
#   REPORTD_IMAGE_FRESH=1                     # make the local base again and build without the cache
# Needs, as root (or sudo): buildah where there is no docker engine, debootstrap where the base must
# be made; either is installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

image="${REPORTD_IMAGE:-localhost/reportd:latest}"
fresh="${REPORTD_IMAGE_FRESH:-}"

if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else sudo=(none); fi
run() { if [ "${sudo[0]:-}" = none ]; then "$@"; else "${sudo[@]}" "$@"; fi; }

# Installs Debian packages that are missing (a command each), or says which are needed.
need() {
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1 || [ "${sudo[0]:-}" = none ]; then
    echo "build-image: please install ${missing[*]} (as root), then run this again" >&2
    exit 1
  fi
  echo "build-image: installing ${missing[*]}"
  run apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if command -v docker >/dev/null 2>&1 && run docker info >/dev/null 2>&1; then
  engine=docker
else
  engine=buildah
  need buildah:buildah
fi

# The base images the Dockerfile names (stage names excluded), present, pulled, or made here.
bases="$(awk 'toupper($1) == "FROM" { for (i = 2; i <= NF; i++) if ($i !~ /^--/) { print $i; break } }' Dockerfile \
  | sort -u | grep -v -x -F -f <(awk 'toupper($1) == "FROM" && toupper($(NF-1)) == "AS" { print $NF }' Dockerfile) || true)"
for base in $bases; do
  if [ "$engine" = docker ]; then
    present() { run docker image inspect "$base" >/dev/null 2>&1; }
    pull() { run docker pull -q "$base" >/dev/null 2>&1; }
  else
    present() { run buildah inspect --type image "$base" >/dev/null 2>&1; }
    pull() { run buildah pull --quiet "$base" >/dev/null 2>&1; }
  fi
  if [ -n "$fresh" ] || ! present; then
    if [ -z "$fresh" ] && pull; then
      echo "build-image: pulled $base"
    else
      echo "build-image: $base cannot be pulled here; making it locally"
      need debootstrap:debootstrap
      run bash scripts/image-base.sh "$engine" "$base"
    fi
  fi
done

# npm inside the build trusts what npm here trusts: behind a TLS-inspecting proxy that is an extra CA
# (NODE_EXTRA_CA_CERTS, or npm's `cafile`), handed to the build as a secret so no layer keeps it.
secret=()
ca="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
if [ -n "$ca" ] && [ "$ca" != null ] && [ -s "$ca" ]; then secret=(--secret "id=npm_ca,src=$ca"); fi

start=$SECONDS
echo "build-image: building $image with $engine"
if [ "$engine" = docker ]; then
  run env DOCKER_BUILDKIT=1 docker build ${fresh:+--no-cache} "${secret[@]}" -t "$image" .
else
  # --pull=never: the bases are local by now (and a registry may not answer at all).
  # --format docker: the OCI image config has no field for HEALTHCHECK, so buildah's default format would
  # ship an image without its health check (check-image.sh reads it back from the built image).
  run buildah build --isolation chroot --format docker --layers ${fresh:+--no-cache} --pull=never "${secret[@]}" \
    -t "$image" .
fi
echo "build-image: built $image in $((SECONDS - start)) s"
