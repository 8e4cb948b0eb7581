#!/bin/bash
# SPDX-License-Identifier: MIT
# `make demo` builds only the kernel it boots, the lean one: the Makefile,
# run in a copy whose scripts/ are stubs that record their arguments, must
# build no debug kernel or modules for demo (no flavour "debug" or "all",
# and no build script without a flavour, which means all), while `make
# check` still builds both.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
mkdir "$copy/scripts"
cp "$top/Makefile" "$copy/"
for s in setup build-kernel build demo test bench; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/log"\n' "$s" "$copy" >"$copy/scripts/$s"
	chmod +x "$copy/scripts/$s"
done

# Does the log's build-kernel/build line ask for FLAVOUR (an empty argument
# list means all)?
builds() {	# FLAVOUR
	awk -v f="$1" '$1 == "build-kernel" || $1 == "build" {
		if (NF == 1) hit = 1
		for (i = 2; i <= NF; i++) if ($i == f || $i == "all") hit = 1
	} END { print hit ? "yes" : "no" }' "$copy/log"
}

make -s -C "$copy" demo >/dev/null 2>&1
check make-demo-runs $? "make demo failed"
check_eq demo-runs-the-demo 1 "$(grep -c '^demo' "$copy/log")"
check_eq demo-builds-lean yes "$(builds lean)"
check_eq demo-builds-no-debug no "$(builds debug)"
check_eq demo-builds-userspace 1 "$(grep -c '^build .*userspace' "$copy/log")"

rm -f "$copy/log"
make -s -C "$copy" check >/dev/null 2>&1
check make-check-runs $? "make check failed"
check_eq check-builds-debug yes "$(builds debug)"
check_eq check-builds-lean yes "$(builds lean)"
finish
