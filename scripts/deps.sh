#!/bin/sh
# deps.sh WHAT - make sure the Debian packages WHAT needs are installed.
# As root it installs them (apt-get install -y); otherwise it names the
# exact command to run and fails.  WHAT: build | check | deb (the tools
# that build and check Debian packages, then the build dependencies
# debian/control names, which apt-get build-dep reads there).
set -eu

case "${1:-build}" in
build) pkgs="gcc make libc6-dev zlib1g-dev libelf-dev libdw-dev liblzma-dev libbz2-dev libdebuginfod-dev libcapstone-dev" ;;
check) pkgs="gcc g++ make libc6-dev zlib1g-dev libelf-dev libdw-dev liblzma-dev libbz2-dev libdebuginfod-dev libcapstone-dev libcmocka-dev pkg-config debuginfod curl groff-base" ;;
deb) pkgs="build-essential dpkg-dev lintian" ;;
*) echo "deps.sh: unknown target '$1'" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# the package's build dependencies: whatever debian/control says
builddeps() {
	[ "${1:-}" = deb ] && command -v dpkg-checkbuilddeps >/dev/null &&
		! dpkg-checkbuilddeps >/dev/null 2>&1
}
if [ -z "$missing" ] && ! builddeps "${1:-}"; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	[ -n "$missing" ] && {
		echo "profil: missing packages:$missing" >&2
		echo "profil: run: sudo apt-get install -y$missing" >&2
	}
	[ "${1:-}" = deb ] &&
		echo "profil: and for the package's build dependencies, run:" \
		    "sudo apt-get build-dep -y ./" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "profil: installing$missing" >&2
	apt-get install -y $missing >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y $missing >/dev/null; }
fi
if builddeps "${1:-}"; then
	echo "profil: installing the build dependencies of debian/control" >&2
	apt-get build-dep -y ./ >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y ./ >/dev/null; }
fi
