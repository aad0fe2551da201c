# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# A private apt configuration for `apt-get source` (source this file): its
# deb-src entries mirror every deb entry of the system's apt sources (same
# URIs and suites) and its package lists live in its own directory, so the
# system's apt state is never touched.
#
#   znp_debsrc_derive DIR PREFIX   writes DIR/deb-src.sources and DIR/deb-src.list;
#                                  when the system has no deb entry, prints
#                                  "PREFIX: no deb entries ..." and exits 1
#   znp_debsrc_aptopts APT         sets the array znp_aptopts: apt-get options
#                                  reading APT/sources.d and keeping the lists
#                                  in APT/lists (the caller creates
#                                  APT/lists/partial)
#   znp_debsrc_fetch APT DL PKG PREFIX
#                                  prints the directory of Debian's source
#                                  package PKG unpacked in DL: the one there,
#                                  else fetched with `apt-get source` through
#                                  the private configuration in APT

znp_debsrc_derive() {
	local dir=$1 prefix=$2 f
	mkdir -p "$dir"
	: >"$dir/deb-src.sources"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		grep -q '^Types:.*\bdeb\b' "$f" || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >>"$dir/deb-src.sources"
		echo >>"$dir/deb-src.sources"
	done
	: >"$dir/deb-src.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$dir/deb-src.list"
	done
	[ -s "$dir/deb-src.sources" ] || [ -s "$dir/deb-src.list" ] || {
		echo "$prefix: no deb entries in /etc/apt to derive deb-src from" >&2
		exit 1
	}
}

znp_debsrc_aptopts() {
	local apt=$1
	# shellcheck disable=SC2034 # read by the sourcing script
	znp_aptopts=(
		-o Dir::Etc::SourceList=/dev/null
		-o Dir::Etc::SourceParts="$apt/sources.d"
		-o Dir::State::Lists="$apt/lists"
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o APT::Sandbox::User=root
	)
}

znp_debsrc_fetch() {
	local apt=$1 dl=$2 pkg=$3 prefix=$4 existing
	existing=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" 2>/dev/null | head -n1)
	if [ -n "$existing" ]; then
		echo "$existing"
		return
	fi
	command -v dpkg-source >/dev/null || {
		echo "$prefix: dpkg-source missing (install dpkg-dev: make deps)" >&2
		exit 1
	}
	znp_debsrc_derive "$apt/sources.d" "$prefix"
	mkdir -p "$apt/lists/partial" "$dl"
	local -a znp_aptopts
	znp_debsrc_aptopts "$apt"
	apt-get -q "${znp_aptopts[@]}" update >&2
	(cd "$dl" && apt-get -q "${znp_aptopts[@]}" source "$pkg" >&2)
	find "$dl" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n1
}

# znp_debsrc_binary DIR SUITES PREFIX
#   writes DIR/binary.sources: one "Types: deb" entry with the URIs and
#   Signed-By of the system's first Debian deb entry (not -security) and the
#   given suites, for `apt-get download` of packages from other suites than
#   the system's; prints "PREFIX: no Debian deb entry ..." and exits 1 when
#   there is none
znp_debsrc_binary() {
	local dir=$1 want=$2 prefix=$3 f line key val types='' suites='' u='' sb=''
	local uris='' signed=''
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		while IFS= read -r line; do
			case "$line" in
			'')
				case " $types :$suites" in
				*" deb "*:*-security*) ;;
				*" deb "*) [ -z "$u" ] || [ -n "$uris" ] || { uris=$u; signed=$sb; } ;;
				esac
				types='' suites='' u='' sb=''
				;;
			'#'*) ;;
			*:*)
				key=${line%%:*} val=${line#*:}
				val=${val#"${val%%[![:space:]]*}"}
				case "$key" in
				Types) types=$val ;; Suites) suites=$val ;; URIs) u=$val ;; Signed-By) sb=$val ;;
				esac
				;;
			esac
		done < <(cat "$f"; echo)
		[ -z "$uris" ] || break
	done
	if [ -z "$uris" ]; then
		uris=$(sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\)[[:space:]]\+[a-z]\+[[:space:]].*/\2/p' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n1 || true)
	fi
	[ -n "$uris" ] || { echo "$prefix: no Debian deb entry in /etc/apt to take URIs from" >&2; exit 1; }
	mkdir -p "$dir"
	{
		echo "Types: deb"
		echo "URIs: $uris"
		echo "Suites: $want"
		echo "Components: main"
		[ -z "$signed" ] || echo "Signed-By: $signed"
	} >"$dir/binary.sources"
}
