#!/usr/bin/env bash
# Runs the image built by scripts/build-image.sh the way docs/operations.md ("Docker") tells operators
# to, and checks what they rely on. CI runs it right after the build:
#   1. `reportd --version`, as the image's unprivileged user (uid 10001, not root);
#   2. `reportd demo` onto the /data volume (a host folder): a PDF and a workbook, owned by that user;
#   3. the daemon started by the docs' own `docker run -d` command (read from docs/operations.md,
#      with the docs' config fragment after an account on the sandbox, itself run from the image):
#      /healthz and /readyz answered on the published port;
#   4. the image's health check (read from the built image's config, as the engine runs it, so an image
#      built without it fails here): exit 0 with that config, exit 1 and its reason with a config that
#      has no fixed http.port;
#   5. the docs' `docker exec reportd reportd status` and `docker stop -t 80 reportd`: a clean exit 0;
#   6. compose.yaml parsed, and `reportd check` on the config it mounts, with the environment it sets;
#   7. the image's size and what takes the room.
# Where no Docker engine answers, `docker` is a stand-in on buildah for the three commands the docs
# use (run, exec, stop): `buildah run --isolation chroot` with the same mounts and environment; the
# chroot shares the host's network, so a published port is simply the port.
#   bash scripts/check-image.sh        (REPORTD_IMAGE=name:tag for another image)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
image="${REPORTD_IMAGE:-localhost/reportd:latest}"
# The docs' commands name the image localhost/reportd:latest; another image is checked under that name.
[ "$image" = localhost/reportd:latest ] || { echo "check-image: checks localhost/reportd:latest only" >&2; exit 2; }

work="$(mktemp -d /var/tmp/reportd-check.XXXXXX)"
ok() { echo "check-image: ok: $*"; }
fail() { echo "check-image: FAILED: $*" >&2; exit 1; }

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  engine=docker
  cleanup() { docker rm -f reportd reportd-sandbox >/dev/null 2>&1 || true; rm -rf "$work"; }
else
  engine=buildah
  # shellcheck source=scripts/image-docker-shim.sh
  source scripts/image-docker-shim.sh
  cleanup() { shim_cleanup; rm -rf "$work"; }
fi
trap cleanup EXIT
echo "check-image: $image with $engine"

# A one-off command in the image, as `docker run --rm` runs it (the image's user, its entrypoint).
in_image() { docker run --rm "$@"; }

# 1. The version, and who runs it.
version="$(in_image localhost/reportd:latest reportd --version)"
user="$(in_image localhost/reportd:latest id -u)"
[ "$user" = 10001 ] || fail "the image runs as uid $user, not the unprivileged reportd user (10001)"
ok "reportd --version: $version, as uid $user"

# 2. The demo onto the volume, as that user.
mkdir -p "$work/volume"
chown 10001:10001 "$work/volume"
in_image -v "$work/volume:/data" localhost/reportd:latest reportd demo --out /data/demo >"$work/demo.log" 2>&1 \
  || { tail -20 "$work/demo.log" >&2; fail "reportd demo"; }
pdf="$(find "$work/volume/demo" -name '*.pdf' | head -1)"
xlsx="$(find "$work/volume/demo" -name '*.xlsx' | head -1)"
[ -s "$pdf" ] && [ -s "$xlsx" ] || fail "reportd demo wrote no PDF or no workbook on the volume"
[ "$(stat -c %u "$pdf")" = 10001 ] || fail "the demo's PDF is not owned by the reportd user"
head -c 5 "$pdf" | grep -q '%PDF-' || fail "$pdf is not a PDF"
ok "reportd demo on /data: $(find "$work/volume/demo" -name '*.pdf' | wc -l) PDFs, $(find "$work/volume/demo" -name '*.xlsx' | wc -l) workbooks, owned by uid 10001"

# 3. The sandbox (from the image), then the daemon exactly as the docs start it.
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
sandbox_port="$(free_port)"
# The daemon's container reaches the host's network at the bridge's gateway under docker, at
# 127.0.0.1 in a chroot.
sandbox_host=127.0.0.1
[ "$engine" = buildah ] || sandbox_host="$(docker network inspect bridge -f '{{(index .IPAM.Config 0).Gateway}}')"
docker run -d --name reportd-sandbox --network host localhost/reportd:latest \
  reportd sandbox --host "$sandbox_host" --port "$sandbox_port" --rate 1000/60 >/dev/null
# The docs' config for a container (the ```yaml block after "turn the HTTP listener on"), after an
# account on the sandbox.
section="$(awk '/^## Docker$/ { on = 1; next } on && /^## / { exit } on' docs/operations.md)"
fragment="$(awk '/^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' <<<"$section")"
port="$(sed -n 's/^http: *{ *port: *\([0-9]*\).*/\1/p' <<<"$fragment")"
[ -n "$port" ] || fail "docs/operations.md's container config sets no http.port"
cd "$work"
cat >reportd.yaml <<EOF
accounts:
  - name: sandbox
    base_url: http://$sandbox_host:$sandbox_port/v2/integration
    api_key: \${REPORTD_API_KEY}
    api_secret: \${REPORTD_API_SECRET}
    rate_limit: { requests: 1000, window_seconds: 60 }
$fragment
EOF
export REPORTD_API_KEY=sandbox-key REPORTD_API_SECRET=sandbox-secret SMTP_PASSWORD=unused
run_block="$(awk '/^```sh$/ { on = 1; block = ""; next } on && /^```$/ { if (block ~ /^docker run -d/) { printf "%s", block; exit } on = 0; next } on { block = block $0 "\n" }' <<<"$section")"
[ -n "$run_block" ] || fail "docs/operations.md has no \`docker run -d\` block under Docker"
echo "check-image: running docs/operations.md's command:"
sed 's/^/    /' <<<"$run_block"
daemon_start=$SECONDS
eval "$run_block" >/dev/null
cd "$repo"
probe() { curl -s -o "$work/probe.out" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port$1" || true; }
for _ in $(seq 1 180); do
  [ "$(probe /readyz)" = 200 ] && break
  sleep 1
done
[ "$(probe /healthz)" = 200 ] || fail "/healthz on port $port answered $(probe /healthz)"
[ "$(probe /readyz)" = 200 ] || { cat "$work/probe.out" >&2; fail "/readyz on port $port did not answer 200 within 180 s"; }
ok "daemon: /healthz 200, /readyz 200 on port $port, $((SECONDS - daemon_start)) s after its start"

# 4. The health check the engine will run: read from the built image, not from the Dockerfile (an image
# built in OCI format silently has none). Docker keeps it at .Config.Healthcheck, buildah's Docker-format
# image at .Docker.config.Healthcheck; its Test is ["CMD", argv…] (exec form).
if [ "$engine" = docker ]; then
  image_config="$(docker image inspect localhost/reportd:latest)"
else
  image_config="$(buildah inspect --type image localhost/reportd:latest)"
fi
mapfile -d '' -t health < <(node -e '
  const [image] = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")));
  // docker: .Config is the config object; buildah: .Config is that config as a JSON string, and the
  // parsed Docker-format config is at .Docker.config.
  const config = typeof image.Config === "object" && image.Config ? image.Config : image.Docker?.config;
  const check = config?.Healthcheck;
  if (!check?.Test?.length || check.Test[0] !== "CMD") {
    console.error(`no exec-form health check in the image (${JSON.stringify(check?.Test ?? null)})`);
    process.exit(1);
  }
  for (const word of check.Test.slice(1)) process.stdout.write(word + "\0");
' <<<"$image_config")
[ "${#health[@]}" -gt 0 ] || fail "the image has no HEALTHCHECK (built in OCI format?)"
set +e
healthy="$(docker exec reportd "${health[@]}" 2>&1)"
status=$?
set -e
[ "$status" = 0 ] || fail "the HEALTHCHECK command exited $status: $healthy"
ok "the image's HEALTHCHECK (${health[0]} -e …) exit 0${healthy:+: $healthy}"
# Rewritten in place: a file bind-mounted into a container is followed by inode, not by name.
without_port="$(grep -v '^http:' "$work/reportd.yaml")"
printf '%s\n' "$without_port" >"$work/reportd.yaml"
set +e
unhealthy="$(docker exec reportd "${health[@]}" 2>&1)"
status=$?
unhealthy="${unhealthy%%$'\n'*}" # its one line (buildah adds its own below a failed command)
set -e
[ "$status" = 1 ] || fail "the HEALTHCHECK command exited $status without a fixed http.port (expected 1): $unhealthy"
ok "HEALTHCHECK without http.port: exit 1, \"$unhealthy\""
grep '^http:' <<<"$fragment" >>"$work/reportd.yaml"

# 5. The docs' status command, then their stop: the daemon ends cleanly (exit 0) well within 80 s.
docker exec reportd reportd status >"$work/status.out" 2>&1 || { cat "$work/status.out" >&2; fail "reportd status"; }
ok "docker exec reportd reportd status: $(head -1 "$work/status.out")"
stop_line="$(grep -o 'docker stop -t [0-9]* reportd' <<<"$section" | head -1)"
start=$SECONDS
eval "$stop_line" >/dev/null
exit_code="$(docker inspect -f '{{.State.ExitCode}}' reportd)"
[ "$exit_code" = 0 ] || fail "$stop_line: the daemon exited $exit_code"
ok "$stop_line: exit 0 after $((SECONDS - start)) s"

# 6. compose.yaml: what it runs, and the config it mounts, checked by reportd itself.
node -e '
  const { parse } = require("yaml");
  const compose = parse(require("fs").readFileSync("compose.yaml", "utf8"));
  const service = compose.services.reportd;
  const problems = [];
  if (service.image !== "localhost/reportd:latest") problems.push("reportd.image is not localhost/reportd:latest");
  if (!compose.services.postgres) problems.push("no postgres service");
  if (service.stop_grace_period !== "80s") problems.push("stop_grace_period is not 80s");
  if (!service.volumes.includes("./deploy/reportd.yaml:/config/reportd.yaml:ro")) problems.push("deploy/reportd.yaml is not mounted");
  if (problems.length) { console.error(problems.join("; ")); process.exit(1); }
' || fail "compose.yaml"
mapfile -t compose_env < <(node -e '
  const compose = require("yaml").parse(require("fs").readFileSync("compose.yaml", "utf8"));
  for (const [name, value] of Object.entries(compose.services.reportd.environment))
    console.log(`${name}=${String(value).replace(/\$\{[^}]*\}/g, name === "REPORTD_API_URL" ? "http://127.0.0.1:1/v2/integration" : "x-compose-check")}`);
')
compose_args=(-v "$repo/deploy/reportd.yaml:/config/reportd.yaml:ro")
for pair in "${compose_env[@]}"; do compose_args+=(-e "$pair"); done
in_image "${compose_args[@]}" localhost/reportd:latest reportd check --config /config/reportd.yaml >"$work/compose-check.out" 2>&1 \
  || { cat "$work/compose-check.out" >&2; fail "reportd check on compose.yaml's config"; }
ok "compose.yaml: $(head -1 "$work/compose-check.out" | sed 's/^# //')"

# 7. Size, and what takes it.
if [ "$engine" = docker ]; then
  size="$(($(docker image inspect -f '{{.Size}}' localhost/reportd:latest) / 1000000)) MB"
else
  size="$(buildah images --noheading --format '{{.Size}}' localhost/reportd:latest)"
fi
echo "check-image: image size $size; the largest parts:"
in_image localhost/reportd:latest sh -c 'du -sh /usr/lib/chromium /usr/local/bin/node /usr/local/include \
  /usr/local/lib/node_modules/npm /usr/share/fonts /app/node_modules /usr/lib/x86_64-linux-gnu /app/dist \
  2>/dev/null | sort -rh; echo "  node_modules by package:"; cd /app/node_modules \
  && du -s -- [!@]* @*/* 2>/dev/null | sort -rn | head -8 | awk "{ printf \"    %6.1f MB  %s\\n\", \$1 / 1024, \$2 }"' \
  | sed 's/^/  /'
echo "check-image: all checks passed"
