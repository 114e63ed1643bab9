# shellcheck shell=bash
# A stand-in for the few `docker` commands docs/operations.md shows, on buildah, for machines with no
# Docker engine (sourced by scripts/check-image.sh, so the docs' own command lines run there as written):
#   docker run [-d] [--rm] [--name N] [--network host] [-p H:C] [-v SRC:DST[:ro]] [-e NAME[=VALUE]] IMAGE [CMD…]
#   docker exec N CMD…            docker stop [-t SECONDS] N            docker inspect -f '{{.State.ExitCode}}' N
# Each container is `buildah from IMAGE`; its commands run with `buildah run --isolation chroot` and the
# container's mounts and environment. The chroot shares the host's network: `-p` publishes nothing
# because the port is the host's already. A named volume is a folder owned as the image's own mount
# point is (docker copies that ownership into a new volume). buildah run does not pass SIGTERM on, so
# `stop` signals the container's first process (tini) itself.

shim_root="$(mktemp -d /var/tmp/reportd-shim.XXXXXX)"

docker() {
  local command="$1"
  shift
  case "$command" in
    run) shim_run "$@" ;;
    exec) shim_exec "$@" ;;
    stop) shim_stop "$@" ;;
    inspect) [ "$1 $2" = "-f {{.State.ExitCode}}" ] && cat "$shim_root/$3.exit" ;;
    *) echo "docker stand-in: \`docker $command\` is not supported" >&2; return 2 ;;
  esac
}

shim_run() {
  local detach='' remove='' name="reportd-run-$RANDOM" args=() volumes=() spec source target image_volumes
  while [ $# -gt 0 ]; do
    case "$1" in
      -d) detach=1 ;;
      --rm) remove=1 ;;
      --name) name="$2"; shift ;;
      --network) [ "$2" = host ] || { echo "docker stand-in: only --network host" >&2; return 2; }; shift ;;
      -p) shift ;;
      -v) volumes+=("$2"); shift ;;
      -e)
        if [[ "$2" == *=* ]]; then args+=(-e "$2"); elif [ -n "${!2+x}" ]; then args+=(-e "$2=${!2}"); fi
        shift ;;
      -*) echo "docker stand-in: \`docker run $1\` is not supported" >&2; return 2 ;;
      *) break ;;
    esac
    shift
  done
  local image="$1"
  shift
  buildah from --pull-never --name "$name" "$image" >/dev/null
  image_volumes="$(shim_config "$image" Volumes | tr '\0' '\n')"
  echo "$name" >>"$shim_root/containers"
  for spec in "${volumes[@]}"; do
    source="${spec%%:*}"
    if [[ "$source" != /* ]]; then
      source="$shim_root/volumes/$source"
      if [ ! -d "$source" ]; then
        mkdir -p "$source"
        chown "$(buildah run --isolation chroot --user 0 "$name" -- stat -c %u:%g "$(cut -d: -f2 <<<"$spec")")" "$source"
      fi
    fi
    target="${spec#*:}"
    # buildah 1.28 mounts the image's own VOLUME over a bind mount of the same path unless the path
    # ends in a slash (then the bind mount wins, as it does under docker).
    if grep -qxF "${target%%:*}" <<<"$image_volumes"; then target="${target%%:*}/${target#"${target%%:*}"}"; fi
    args+=(-v "$source:$target")
  done
  local command=("$@")
  if [ "${#command[@]}" -eq 0 ]; then
    mapfile -d '' -t command < <(shim_config "$image" Cmd)
  fi
  local entrypoint=()
  mapfile -d '' -t entrypoint < <(shim_config "$image" Entrypoint)
  # chroot has no pid namespace: tini is not PID 1 there, so it registers as a subreaper instead.
  args+=(-e TINI_SUBREAPER=1)
  printf '%s\0' "${args[@]}" >"$shim_root/$name.args"
  if [ -n "$detach" ]; then
    buildah run --isolation chroot "${args[@]}" "$name" -- "${entrypoint[@]}" "${command[@]}" >"$shim_root/$name.log" 2>&1 &
    echo $! >"$shim_root/$name.pid"
    echo "$name"
    return 0
  fi
  local status=0
  buildah run --isolation chroot "${args[@]}" "$name" -- "${entrypoint[@]}" "${command[@]}" || status=$?
  [ -z "$remove" ] || buildah rm "$name" >/dev/null
  return "$status"
}

shim_exec() {
  local name="$1" args=()
  shift
  mapfile -d '' -t args <"$shim_root/$name.args"
  buildah run --isolation chroot "${args[@]}" "$name" -- "$@"
}

shim_stop() {
  local wait=10
  if [ "$1" = -t ]; then wait="$2"; shift 2; fi
  local name="$1" pid
  pid="$(cat "$shim_root/$name.pid")"
  kill -TERM "$(shim_first_process "$pid")"
  for _ in $(seq 1 "$wait"); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -0 "$pid" 2>/dev/null && shim_kill_tree "$pid"
  local status=0
  wait "$pid" || status=$?
  echo "$status" >"$shim_root/$name.exit"
  echo "$name"
}

# The container's first process: the entrypoint buildah started under `pid` (tini here), the first
# process in the chroot that is not buildah's own launcher.
shim_first_process() {
  local pid="$1" child
  for child in $(pgrep -P "$pid"); do
    if [ "$(readlink "/proc/$child/root")" != / ] && ! grep -q '^buildah' "/proc/$child/cmdline"; then
      echo "$child"
      return
    fi
    shim_first_process "$child" && return
  done
  return 1
}

shim_kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do shim_kill_tree "$child"; done
  kill -KILL "$1" 2>/dev/null || true
}

# The image's Entrypoint, Cmd or Volumes as NUL-separated words (none when unset).
shim_config() {
  buildah inspect --type image "$1" | node -e '
    const value = JSON.parse(require("fs").readFileSync(0, "utf8")).OCIv1.config[process.argv[1]];
    // Volumes is an object keyed by path; Entrypoint and Cmd are arrays.
    const words = Array.isArray(value) ? value : Object.keys(value ?? {});
    for (const word of words) process.stdout.write(word + "\0");' "$2"
}

shim_cleanup() {
  local pidfile name
  for pidfile in "$shim_root"/*.pid; do
    [ -e "$pidfile" ] || continue
    if kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      shim_kill_tree "$(cat "$pidfile")"
      { wait "$(cat "$pidfile")"; } 2>/dev/null || true # reaped quietly: no "Killed" line
    fi
  done
  if [ -e "$shim_root/containers" ]; then
    while read -r name; do buildah rm "$name" >/dev/null 2>&1 || true; done <"$shim_root/containers"
  fi
  rm -rf "$shim_root"
}
