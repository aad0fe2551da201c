#!/bin/bash
# Install every package zns-npo2 needs (Debian 12). Idempotent; run as root.
# Package sources come from the system's own apt configuration.
set -euo pipefail

# Debian 12's kernel of the stock VM layers, and its source: the zoned
# ublk UAPI of the build (scripts/ublk-uapi.sh). The base of the kernel
# series, linux-source-7.3, is fetched by scripts/kernel-source-7.3.sh
# (below), which pins its version.
KVER=6.12.117
KSRC_VERSION=6.12.117-1~deb12u1

PKGS=(
	# build
	build-essential meson ninja-build pkg-config clang lld git
	libnvme-dev libjson-c-dev liburing-dev libdevmapper-dev zlib1g-dev
	libdbus-1-dev
	# docs, completions, tests
	asciidoctor bash bash-completion zsh python3 valgrind time dpkg-dev
	librsvg2-bin libxml2-utils
	libfuzzer-14-dev libclang-rt-14-dev
	# the upstream series lays out its library copy (plugins/zns-npo2/upstream)
	clang-format
	# devices and reference tools
	nvme-cli util-linux fio f2fs-tools dmsetup btrfs-progs strace
	# VM harness
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod
	"linux-image-${KVER}+deb12-amd64-unsigned"
	# the zoned ublk UAPI (scripts/ublk-uapi.sh)
	"linux-source-6.12=${KSRC_VERSION}"
	# kernel build
	bc bison flex libelf-dev libssl-dev ccache rsync dwarves
	# external zoned test suites (blktests, zonefs-tools from source snapshots;
	# patched blkzone) and f2fs-tools with kernel-patches/f2fs-tools
	# (scripts/f2fs-tools-build.sh)
	autoconf automake libtool libblkid-dev uuid-dev patch
	# the Debian package (make deb) and the Debian 12 system of the
	# real-systemd layer (tests/vm/debian/rootfs.sh)
	debhelper lintian mmdebstrap e2fsprogs
)

# one dpkg-query for every package: `make demo` and `make test` run this first
declare -A have=()
names=()
for p in "${PKGS[@]}"; do names+=("${p%%=*}"); done
while read -r name s1 s2 s3 ver; do
	[ "$s1 $s2 $s3" = "install ok installed" ] && have[$name]=$ver
done < <(dpkg-query -W -f='${Package} ${Status} ${Version}\n' "${names[@]}" 2>/dev/null || true)

missing=()
for p in "${PKGS[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	if [ -z "${have[$name]+set}" ]; then
		missing+=("$p")
	elif [ "$name" != "$p" ] && [ "${have[$name]}" != "$want" ]; then
		missing+=("$p")
	fi
done

# Debian's stock kernels of the test matrix, unpacked into build/ (not
# installed): the newest 7.x of Debian 13 and Debian 12's 6.1
# (scripts/stock-kernel.sh; the VM layers fetch them too when missing)
stock_kernels() {
	bash "$(dirname "$0")/stock-kernel.sh" 7 6.1 | sed 's/^/deps: stock kernel /'
}
# the base of the kernel series (make kernel): Debian's linux-source-7.3 at
# the version the series is written against, its .deb checked against the
# pinned SHA-256, the tarball unpacked into build/ (not installed)
kernel_source() {
	echo "deps: kernel source $(bash "$(dirname "$0")/kernel-source-7.3.sh")"
}

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present"
	stock_kernels
	kernel_source
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
stock_kernels
kernel_source
echo "deps: done"
