#!/usr/bin/env bash
# fresh-debian.sh: checks the README's "two commands" on a clean Debian 12
# without Go. It builds a Debian 12 chroot with mmdebstrap (the `important`
# variant: what a minimal Debian install has, plus make and git), clones
# this repository's HEAD into it and runs, as root inside it:
#
#   make setup        # Debian packages, Debian's golang-go (1.19), then go.mod's
#                     # Go from the module proxy; the Go modules (cold cache)
#   make build
#   ./bin/svclab version
#   make demo         # in a fresh network namespace: nothing reaches the host's
#   make test-unit    # gofmt, vet, unprivileged tests, cross-builds
#
# Usage (as root): .ci/fresh-debian.sh [DIR]
#   DIR       where the chroot goes (default: a new /var/tmp/svclab-fresh.*);
#             removed at the end unless KEEP=1
#   STEPS     the make targets, in order (default: "setup build version demo
#             test-unit"; "version" runs ./bin/svclab version; "modules"
#             downloads the kubeproxy module's modules for every version's
#             go.mod, with the network, so that a later "test" (run in a
#             network namespace of its own, without the network) finds them;
#             the whole suite: STEPS="setup build version demo modules test",
#             which builds kube-proxy: tens of minutes)
#   BASE      an existing clean chroot to copy instead of running mmdebstrap
#   MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   EXTRA_CA  a directory of *.crt CA certificates the chroot must trust too,
#             for a machine whose HTTPS goes through an intercepting proxy
#             (e.g. /usr/local/share/ca-certificates); the ca-certificates
#             package that make setup installs picks them up
#
# Everything runs in private mount and PID namespaces: the chroot's mounts
# and processes end with the script, whatever happens; the mounts are also
# unmounted explicitly. Each step leads its own session (setsid), so that
# its process group lives inside the PID namespace (lab/uml reads it). Needs the Debian mirror and the Go module proxy.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
steps=${STEPS:-setup build version demo test-unit}
mirror=${MIRROR:-http://deb.debian.org/debian}

log() { printf '== fresh-debian %s: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# Inside the private namespaces: mount, run the steps, unmount.
if [ "${1:-}" = --inside ]; then
	root=$2
	mounts=()
	mnt() { # mnt TARGET ARGS...: mount and remember for the unmount
		local target=$root$1
		shift
		mkdir -p "$target"
		mount "$@" "$target"
		mounts=("$target" "${mounts[@]}")
	}
	unmount_all() {
		for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null || true; done
	}
	trap unmount_all EXIT
	# The chroot's / is a mount point, as a real root is: `ip netns exec`
	# and `unshare --propagation` change /'s propagation and fail on a
	# directory that is not one (curl into an `up` lab, the full-disk tests).
	mnt / --bind "$root"
	mnt /proc -t proc proc
	mnt /sys -t sysfs sysfs
	mnt /sys/fs/cgroup -t cgroup2 cgroup2
	mnt /sys/fs/bpf -t bpf bpf
	mnt /dev --rbind /dev
	mount --make-rslave "$root/dev"
	mnt /run -t tmpfs -o mode=0755 tmpfs
	mnt /tmp -t tmpfs -o mode=1777 tmpfs
	if [ -d /lib/modules ]; then # modprobe needs the host kernel's modules
		mnt /lib/modules --bind -o ro /lib/modules
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	if [ -n "${EXTRA_CA:-}" ]; then
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp "$EXTRA_CA"/*.crt "$root/usr/local/share/ca-certificates/"
		log "trusting too: $(cd "$EXTRA_CA" && echo *.crt)"
	fi
	in_chroot() {
		setsid --wait chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb CI="${CI:-}" \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /root/svclab && $1"
	}
	log "go in the chroot before setup: $(in_chroot 'command -v go || echo none; ls -d /usr/local/go /usr/lib/go 2>/dev/null')"
	for step in $steps; do
		start=$(date +%s)
		case $step in
		version) log "./bin/svclab version"; in_chroot './bin/svclab version' ;;
		modules) log "go mod download for kubeproxy's go*.mod"
			in_chroot 'go=$(.ci/go-toolchain.sh find) && cd kubeproxy && for m in go*.mod; do echo "kubeproxy/$m"; $go mod download -modfile=$m || exit 1; done' ;;
		demo | test) log "make $step (in a fresh network namespace)"
			setsid --wait unshare --net -- chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb CI="${CI:-}" \
				PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
				/bin/bash -c "ip link set lo up && cd /root/svclab && make $step" ;;
		*) log "make $step"; in_chroot "make $step" ;;
		esac
		log "$step ok in $(($(date +%s) - start)) s"
	done
	in_chroot 'echo "go used: $(.ci/go-toolchain.sh find) ($($(.ci/go-toolchain.sh find) version))"; echo "debian go: $(/usr/bin/go version 2>&1)"'
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "fresh-debian: run as root (chroot, mounts)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { log "installing mmdebstrap"; apt-get install -y -qq mmdebstrap >/dev/null; }

dir=${1:-$(mktemp -d /var/tmp/svclab-fresh.XXXXXX)}
root=$dir/root
cleanup() {
	if [ "${KEEP:-}" = 1 ]; then log "kept $dir"; return; fi
	# The namespaces are gone, so nothing is mounted under $root any more;
	# refuse to delete through a mount all the same.
	if grep -q " $root/" /proc/mounts; then
		log "still mounted under $root: not removing it"; return 1
	fi
	rm -rf "$dir"
	log "removed $dir"
}
[ ! -e "$root" ] || { echo "fresh-debian: $root exists; give a new DIR" >&2; exit 2; }
trap cleanup EXIT
mkdir -p "$dir"
if [ -n "${BASE:-}" ]; then
	log "copying the clean chroot $BASE"
	cp -a "$BASE" "$root"
else
	log "mmdebstrap bookworm (variant important, plus make and git) into $root"
	mmdebstrap --quiet --variant=important --include=make,git bookworm "$root" \
		"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
		"deb ${mirror%/debian}/debian-security bookworm-security main"
fi
log "cloning $(git -C "$repo" rev-parse --short HEAD) ($(git -C "$repo" log -1 --format=%s | cut -c1-60))"
git clone -q --no-hardlinks "$repo" "$root/root/svclab"
git -C "$root/root/svclab" checkout -q "$(git -C "$repo" rev-parse HEAD)"

unshare --mount --pid --fork --propagation private -- "$0" --inside "$root"
log "all steps passed: $steps"
