#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Layer 4b: nvme-cli 2.3 (Debian's source, through apt) with the zns-npo2
# plugin grafted in (scripts/build-nvme-cli.sh -> build/nvme-cli/nvme); on
# the host: same output and exit status as nvme-zns-npo2 where no NVMe device
# is needed, nvme-cli's help paths, and nvme's own bash and zsh completions
# extended by the patch, driven in real bash and zsh. Device equivalence: layer 58 (QEMU).
set -uo pipefail
cd "$(dirname "$0")/../.."
fail=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

bash scripts/build-nvme-cli.sh || { echo "45-nvme-cli: build failed"; exit 1; }
NVME=build/nvme-cli/nvme ZNP=build/nvme-zns-npo2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Fake, empty sysfs/dev: list works without NVMe hardware.
mkdir -p "$tmp/sys/class/nvme" "$tmp/dev"
export ZNP_SYSFS_ROOT=$tmp/sys ZNP_DEV_ROOT=$tmp/dev
same() {
	local ra rb
	"$ZNP" "$@" >"$tmp/s.out" 2>"$tmp/s.err"
	ra=$?
	"$NVME" zns-npo2 "$@" >"$tmp/p.out" 2>"$tmp/p.err"
	rb=$?
	sed -i 's/^nvme zns-npo2: /nvme-zns-npo2: /' "$tmp/p.err"
	if [ $ra = $rb ] && cmp -s "$tmp/s.out" "$tmp/p.out" && cmp -s "$tmp/s.err" "$tmp/p.err"; then
		ok "same output and exit $ra: $*"
	else
		bad "differs (exit $ra vs $rb): $*"
		diff "$tmp/s.out" "$tmp/p.out" | head
		diff "$tmp/s.err" "$tmp/p.err" | head
	fi
}
same list
same list -o json
same list -o yaml
same report
same report /dev/null
same report /no/such/device -o json
same report /dev/null --start-lba=12x
same report /dev/null --state=bogus
same report /dev/null --state=full -n 1
same check /dev/null
same open /dev/null
same reset /dev/null --all -s 0
same reset /dev/null -s 0 -q 0
same finish /dev/null extra-arg
same list unexpected-arg

"$NVME" zns-npo2 report /dev/null --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok "unknown option (nvme-cli's parser) exits 2" || bad "unknown option does not exit 2"
"$NVME" zns-npo2 report -h >"$tmp/h" 2>&1 && grep -q -- '--start-lba=LBA' "$tmp/h" &&
	ok "nvme zns-npo2 report -h prints the table's usage" || bad "nvme zns-npo2 report -h"

out=$("$NVME" help zns-npo2)
cmds=$("$ZNP" help | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
for c in $cmds; do
	printf '%s\n' "$out" | grep -q "^  $c " && ok "nvme help zns-npo2 lists $c" ||
		bad "nvme help zns-npo2 does not list $c"
done
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "man $*"\n' >"$tmp/bin/man"
chmod +x "$tmp/bin/man"
for c in $cmds; do
	case $c in help | version) continue ;; esac
	out=$(PATH=$tmp/bin:$PATH "$NVME" zns-npo2 help "$c")
	if [ "$out" = "man nvme-zns-npo2-$c" ] && [ -s "build/Documentation/nvme-zns-npo2-$c.1" ]; then
		ok "nvme zns-npo2 help $c opens nvme-zns-npo2-$c(1), which is built"
	else
		bad "nvme zns-npo2 help $c: '$out'"
	fi
done
"$NVME" zns-npo2 version | grep -q "zns-npo2 version $("$ZNP" version | awk '{print $NF}')" &&
	ok "nvme zns-npo2 version is the zns-npo2 version" || bad "nvme zns-npo2 version"

# The patched nvme completion, with bash-completion, for `nvme zns-npo2 ...`.
if [ -f /usr/share/bash-completion/bash_completion ]; then
	python3 tests/docs/completion.py bash "$ZNP" build/completions/nvme-zns-npo2 \
		build/nvme-cli/tree/completions/bash-nvme-completion.sh &&
		ok "bash completion of nvme zns-npo2 and nvme-zns-npo2" || bad "bash completion through nvme"
else
	bad "bash-completion is not installed (make deps)"
fi

python3 tests/docs/completion.py zsh "$ZNP" build/completions build/nvme-cli/tree/completions &&
	ok "zsh completion of nvme zns-npo2 (patched _nvme) and nvme-zns-npo2" || bad "zsh completion through nvme"

echo "45-nvme-cli: $n checks, $([ $fail = 0 ] && echo pass || echo FAILED)"
exit $fail
