# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Third-party source tarballs for offline builds (source this file).
#
#   ZNP_VENDOR   directory holding the tarballs and their SHA256SUMS
#                (default: ../shared/vendor relative to the checkout)
#
#   znp_vendor_tarball NAME   prints the path of NAME (e.g. nvme-cli-2.16.tar.gz)
#                             after checking it against SHA256SUMS; fails with a
#                             one-line error naming the file and ZNP_VENDOR.
znp_vendor_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZNP_VENDOR=${ZNP_VENDOR:-$znp_vendor_root/../shared/vendor}

znp_vendor_tarball() {
	local name=$1 dir=$ZNP_VENDOR want got
	if [ ! -f "$dir/$name" ]; then
		echo "vendor: $name not found in ZNP_VENDOR=$dir" >&2
		return 1
	fi
	want=$(awk -v n="$name" '$2 == n || $2 == "*" n {print $1}' "$dir/SHA256SUMS" 2>/dev/null)
	if [ -z "$want" ]; then
		echo "vendor: $name has no checksum in ZNP_VENDOR=$dir/SHA256SUMS" >&2
		return 1
	fi
	got=$(sha256sum "$dir/$name" | awk '{print $1}')
	if [ "$got" != "$want" ]; then
		echo "vendor: $name in ZNP_VENDOR=$dir does not match SHA256SUMS" >&2
		return 1
	fi
	(cd "$dir" && printf '%s/%s\n' "$PWD" "$name")
}
