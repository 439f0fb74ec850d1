#!/bin/sh
# install-deps.sh - make sure the build and test dependencies are present.
# As root, installs what is missing with apt-get; otherwise prints the command.
PKGS="build-essential pkg-config libncurses-dev libzstd-dev zstd libyaml-dev check
libtracefs-dev libtraceevent-dev tmux fio sysstat blktrace clang libbpf-dev bpftool libsqlite3-dev sqlite3
libmicrohttpd-dev libcurl4-openssl-dev prometheus clickhouse-server clickhouse-client"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y $missing >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y $missing >/dev/null; } ||
		{ echo "apt-get install failed for:$missing" >&2; exit 1; }
else
	echo "missing build dependencies; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
