#!/bin/sh
# go-toolchain.sh: find, or bring, a Go toolchain new enough for go.mod.
#
#   .ci/go-toolchain.sh find     print the path of a go >= go.mod's version
#                                    (nothing, exit 1, when there is none)
#   .ci/go-toolchain.sh install  the same, but when there is none: install
#                                    Debian's golang-go if no go at all (root),
#                                    then fetch the toolchain module
#                                    golang.org/toolchain@v0.0.1-goVERSION.OS-ARCH
#                                    from the Go module proxy with that go into
#                                    .toolchain/goVERSION, linked as .toolchain/go
#
# The version is read from go.mod's `go` line, nowhere else. `find` looks in
# PATH, then where sudo's secure_path loses it (/usr/local/go/bin), then in
# .toolchain/go/bin (what `install` made), then Debian's /usr/lib/go/bin; so
# `sudo make build` finds the same go as `make build`. The Makefile sets
# GO from `find`. Nothing here touches the network unless `install` needs a
# toolchain.
set -eu

cd "$(dirname "$0")/.."
root=$(pwd)
want=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' go.mod)
[ -n "$want" ] || { echo "go-toolchain: no 'go' line in $root/go.mod" >&2; exit 2; }
local_dir=$root/.toolchain

# version_of GO prints GO's version (e.g. 1.26.8), asked outside any module
# and with GOTOOLCHAIN=local so that a go >= 1.21 neither switches toolchains
# nor downloads one just to answer.
version_of() {
	(cd / && GOTOOLCHAIN=local "$1" version 2>/dev/null) | sed -n 's/^go version go\([0-9][0-9.]*\).*/\1/p'
}

# new_enough V: V >= want (version order, 1.26.8 > 1.26 > 1.19.8).
new_enough() {
	[ "$(printf '%s\n%s\n' "$want" "$1" | sort -V | head -n1)" = "$want" ]
}

# candidates prints every go this script would use, best first.
candidates() {
	command -v go 2>/dev/null || true
	echo /usr/local/go/bin/go
	echo "$local_dir/go/bin/go"
	echo /usr/lib/go/bin/go
}

find_go() {
	IFS='
'
	for g in $(candidates); do
		[ -x "$g" ] || continue
		v=$(version_of "$g")
		if [ -n "$v" ] && new_enough "$v"; then
			echo "$g"
			return 0
		fi
	done
	return 1
}

# any_go prints the first go found whatever its version.
any_go() {
	IFS='
'
	for g in $(candidates); do
		[ -x "$g" ] && [ -n "$(version_of "$g")" ] && { echo "$g"; return 0; }
	done
	return 1
}

install_go() {
	if g=$(find_go); then
		echo "$g"
		return 0
	fi
	if ! old=$(any_go); then
		if [ "$(id -u)" != 0 ]; then
			echo "go-toolchain: no go found and go.mod needs go $want; run: sudo make setup" >&2
			exit 1
		fi
		echo "go-toolchain: no go found: installing Debian's golang-go to fetch go $want with" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go ca-certificates >/dev/null 2>&1 ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go ca-certificates >/dev/null; }
		old=$(any_go) || { echo "go-toolchain: golang-go installed but no go found" >&2; exit 1; }
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	goos=$(cd "$tmp" && "$old" env GOOS)
	goarch=$(cd "$tmp" && "$old" env GOARCH)
	mod=golang.org/toolchain@v0.0.1-go$want.$goos-$goarch
	echo "go-toolchain: $old is go $(version_of "$old"); go.mod needs $want: fetching $mod from the module proxy" >&2
	# Outside any module (go.mod's three-part version is too new for an
	# old go to parse), into a module cache of its own, from which the
	# toolchain moves to .toolchain/goVERSION, an ordinary directory that
	# `rm -rf .toolchain` removes.
	dl=$local_dir/.download
	rm -rf "$local_dir/go$want" "$dl"
	mkdir -p "$dl"
	if ! json=$(cd "$tmp" && GO111MODULE=on GOFLAGS=-mod=mod GOTOOLCHAIN=local GOMODCACHE="$dl" \
		"$old" mod download -json "$mod"); then
		echo "go-toolchain: go mod download $mod failed:" >&2
		echo "$json" >&2
		exit 1
	fi
	dir=$(echo "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	[ -n "$dir" ] && [ -f "$dir/bin/go" ] || { echo "go-toolchain: $mod has no bin/go (download said: $json)" >&2; exit 1; }
	chmod -R u+w "$dl"
	mv "$dir" "$local_dir/go$want"
	rm -rf "$dl"
	# Module zips do not keep execute bits: give them back to the commands
	# (what the go command does for the toolchains it switches to).
	find "$local_dir/go$want/bin" "$local_dir/go$want/pkg/tool" -type f -exec chmod a+x {} +
	ln -sfn "go$want" "$local_dir/go"
	# Under sudo, the clone's toolchain is the user's, as the clone is.
	if [ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ] && [ -n "${SUDO_GID:-}" ]; then
		chown -R -h "$SUDO_UID:$SUDO_GID" "$local_dir"
	fi
	v=$(version_of "$local_dir/go/bin/go")
	[ "$v" = "$want" ] || { echo "go-toolchain: $local_dir/go/bin/go says go '$v', not $want" >&2; exit 1; }
	echo "go-toolchain: go $want is $local_dir/go/bin/go" >&2
	echo "$local_dir/go/bin/go"
}

case "${1:-}" in
find) find_go ;;
install) install_go ;;
*) echo "usage: $0 find|install" >&2; exit 2 ;;
esac
