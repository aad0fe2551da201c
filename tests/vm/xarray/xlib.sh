# Shared by the guest scripts of tests/vm/xarray/ (busybox ash): the
# namespace set of a controller as the kernel, nvme-cli and nvme-zns-npo2
# see it, each printed as sorted "NSID SIZE-BYTES [ZONE-BYTES]" lines so
# that they can be compared with what was configured.
ZNP=nvme-zns-npo2

# jrows: a flat JSON array of objects (nvme list -o json, our list -o json)
# as one line per object of space-separated key=value words
jrows() {
	tr -d '\n' | sed -e 's/"[A-Za-z_]*":\[//g' -e 's/}/}\n/g' |
		sed -e 's/[][{}]//g' -e 's/"//g' -e 's/ *: */=/g' -e 's/, */ /g'
}

# jsel KEY VALUE FIELD...: the FIELDs of every object whose KEY is VALUE
jsel() {
	local k=$1 v=$2
	shift 2
	jrows | awk -v k="$k" -v v="$v" -v fl="$*" '
		BEGIN { n = split(fl, f, " ") }
		{
			split("", m)
			for (i = 1; i <= NF; i++) {
				p = index($i, "=")
				if (p) m[substr($i, 1, p - 1)] = substr($i, p + 1)
			}
			if (m[k] != v) next
			s = m[f[1]]
			for (j = 2; j <= n; j++) s = s " " m[f[j]]
			print s
		}' | sort -n
}

# kern_ns CTRL: the namespaces the kernel tracks for controller CTRL (nvmeX):
# its namespace disks in sysfs (nvmeXnY, or the hidden per-path nvmeXcZnY
# disks under multipath): "NSID SIZE ZONE" (ZONE 0 when not zoned). One grep
# reads every attribute (forks are slow under TCG).
kern_ns() {
	local c=/sys/class/nvme/$1
	grep -H . $c/nvme*n*/nsid $c/nvme*n*/size $c/nvme*n*/queue/zoned \
		$c/nvme*n*/queue/chunk_sectors 2>/dev/null | awk -F: '
		{
			p = $1; v = $2; sub(/^.*\/nvme[0-9]+(c[0-9]+)?n[0-9]+\//, "", p)
			d = $1; sub(/\/(queue\/)?[a-z_]+$/, "", d)
			a[d, p] = v; disks[d] = 1
		}
		END {
			for (d in disks) {
				if (a[d, "nsid"] == "") continue
				z = a[d, "queue/zoned"]
				if (z == "none") z = 0
				else if (z == "host-managed") z = a[d, "queue/chunk_sectors"] * 512
				else z = "?"
				print a[d, "nsid"], a[d, "size"] * 512, z
			}
		}' | sort -n
}

# kern_nsids CTRL: just the NSIDs (one process: cheap enough to poll)
kern_nsids() {
	cat /sys/class/nvme/$1/nvme*n*/nsid 2>/dev/null | sort -n
}

# kern_names CTRL: "NSID DISK" of the namespace disks of CTRL
kern_names() {
	grep -H . /sys/class/nvme/$1/nvme*n*/nsid 2>/dev/null |
		sed 's|^.*/\(nvme[0-9c]*n[0-9]*\)/nsid:\(.*\)|\2 \1|' | sort -n
}

# cli_ns SERIAL: nvme-cli's `nvme list -o json` rows of the controller with
# that serial number: "NSID PHYSICAL-SIZE"
cli_ns() {
	nvme list -o json 2>/dev/null | jsel SerialNumber "$1" NameSpace PhysicalSize
}

# znp_ns SERIAL: our `list -o json` rows (zoned namespaces only) of that
# serial: "NSID ZONE-BYTES"
znp_ns() {
	$ZNP list -o json 2>/dev/null | jsel serial "$1" nsid zone_size lba_size |
		awk '{ print $1, $2 * $3 }'
}

# check_views LABEL CTRL SERIAL EXPECTED: EXPECTED holds "NSID SIZE ZONE"
# lines (what was configured); the kernel's, nvme-cli's and our view must
# all agree with it
check_views() {
	local label=$1 ctrl=$2 ser=$3 want=$4
	expect_eq "$label: kernel namespaces of $ctrl" "$(kern_ns "$ctrl")" "$want"
	local got exp
	got=$(cli_ns "$ser") exp=$(echo "$want" | awk 'NF { print $1, $2 }')
	expect_eq "$label: nvme list" "$got" "$exp"
	[ "$got" = "$exp" ] ||
		vm_log "disks (name=nsid): $(grep -H . /sys/block/nvme*/nsid | sed 's|/sys/block/||; s|/nsid||' | tr '\n' ' ')"
	got=$(znp_ns "$ser") exp=$(echo "$want" | awk '$3 > 0 { print $1, $3 }')
	expect_eq "$label: nvme-zns-npo2 list (zoned namespaces)" "$got" "$exp"
	[ "$got" = "$exp" ] ||
		vm_log "$label: list errors: $($ZNP list -o json 2>&1 | grep -o '"nsid": [0-9]*\|"message": "[^"]*"' | sort | uniq -c | tr '\n' ' ')"
}

# settle CTRL EXPECTED [SEC]: wait until the kernel's view of CTRL is
# EXPECTED (namespace scans run asynchronously after a change notice); polls
# the NSID set twice a second, then compares the whole view
settle() {
	local i=0 lim=$((${3:-60} * 2)) ids
	ids=$(echo "$2" | awk 'NF { print $1 }')
	while [ $i -lt $lim ]; do
		[ "$(kern_nsids "$1")" = "$ids" ] && [ "$(kern_ns "$1")" = "$2" ] && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}

# fio_ok LABEL OUTFILE: every job of a terse (v3) fio run finished without
# an error and moved data
fio_ok() {
	local bad
	bad=$(awk -F';' 'NF > 40 && ($5 != 0 || ($6 + $47) == 0) { print $3 ": error " $5 }' "$2")
	expect_eq "$1: every fio job did I/O without errors" "$bad" ""
	expect_eq "$1: fio reported every job" "$(grep -c ';' "$2")" "${3:-?}"
}
