#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/apt-backports, on apt sources of its own (FLIPFENCE_APT_ETC): the
# backports entry takes the mirror and keyring of the machine's bookworm
# entry, from a deb822 .sources file or a one-line .list alike; a machine
# that already has the suite is left alone; one with no bookworm entry is
# refused with a message, not given a made-up mirror.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
etc=$(mktemp -d)
trap 'rm -rf "$etc"' EXIT
run() { FLIPFENCE_APT_ETC=$etc "$top/scripts/apt-backports"; }
written=$etc/sources.list.d/flipfence-bookworm-backports.sources
field() { sed -n "s/^$1: //p" "$written"; }

mkdir -p "$etc/sources.list.d"
cat >"$etc/sources.list.d/debian.sources" <<'END'
Types: deb-src
URIs: http://src.example.org/debian
Suites: bookworm
Components: main

Types: deb
# a comment inside the paragraph
URIs: http://mirror.example.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
END
run 2>/dev/null
check deb822-writes $? "apt-backports failed on a deb822 bookworm entry"
check_eq deb822-mirror http://mirror.example.org/debian "$(field URIs)"
check_eq deb822-suite bookworm-backports "$(field Suites)"
check_eq deb822-keyring /usr/share/keyrings/debian-archive-keyring.gpg "$(field Signed-By)"
before=$(cat "$written")
run 2>/dev/null
check_eq second-run-keeps-entry "$before" "$(cat "$written")"

rm -f "$etc"/sources.list.d/*
printf '%s\n' '# deb http://old.example.org/debian bookworm main' \
	'deb [arch=amd64 signed-by=/etc/k.gpg] http://list.example.org/debian/ bookworm main contrib' \
	>"$etc/sources.list"
run 2>/dev/null
check one-line-writes $? "apt-backports failed on a one-line bookworm entry"
check_eq one-line-mirror http://list.example.org/debian/ "$(field URIs)"
check_eq one-line-keyring /etc/k.gpg "$(field Signed-By)"

rm -f "$etc"/sources.list.d/*
echo 'deb http://bare.example.org/debian bookworm main' >"$etc/sources.list"
run 2>/dev/null
check_eq no-keyring-mirror http://bare.example.org/debian "$(field URIs)"
check_eq no-keyring-none-written "" "$(field Signed-By)"

rm -f "$etc"/sources.list.d/* "$etc/sources.list"
echo 'deb http://list.example.org/debian bookworm-backports main' >"$etc/sources.list"
echo 'deb http://list.example.org/debian bookworm main' >>"$etc/sources.list"
run 2>/dev/null
check existing-suite-kept $? "apt-backports failed where the suite is already enabled"
check_eq existing-suite-writes-nothing no "$([ -e "$written" ] && echo yes || echo no)"

echo 'deb http://list.example.org/debian trixie main' >"$etc/sources.list"
msg=$(run 2>&1)
check_eq no-bookworm-refused 1 "$?"
case $msg in
*"no 'deb ... bookworm' entry"*) pass no-bookworm-says-why ;;
*) fail no-bookworm-says-why "message: $msg" ;;
esac
check_eq no-bookworm-writes-nothing no "$([ -e "$written" ] && echo yes || echo no)"
finish
