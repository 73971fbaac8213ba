#!/bin/sh
# deps.sh WHAT - make sure the Debian packages WHAT needs are installed.
# As root it installs them (apt-get install -y); otherwise it names the
# exact command to run and fails.  WHAT: build | check.
set -eu

case "${1:-build}" in
build) pkgs="gcc make libc6-dev zlib1g-dev libelf-dev libdw-dev liblzma-dev libbz2-dev libdebuginfod-dev libcapstone-dev" ;;
check) pkgs="gcc g++ make libc6-dev zlib1g-dev libelf-dev libdw-dev liblzma-dev libbz2-dev libdebuginfod-dev libcapstone-dev libcmocka-dev pkg-config debuginfod curl groff-base" ;;
*) echo "deps.sh: unknown target '$1'" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "profil: missing packages:$missing" >&2
	echo "profil: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "profil: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y $missing >/dev/null 2>&1 ||
	{ apt-get update >/dev/null 2>&1 && apt-get install -y $missing >/dev/null; }
