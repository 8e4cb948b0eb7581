#!/bin/bash
# SPDX-License-Identifier: MIT
# Every script in scripts/ answers -h and --help at once, with its usage on
# stdout and exit status 0, and does nothing else: run with an empty
# FLIPFENCE_CACHE and HOME and with apt-get, make, flock, QEMU and the
# compilers replaced by stubs that record being called, each must exit 0
# within 5 s, print "usage", call no stub and leave the cache empty.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
mkdir "$sandbox/stubs"
for cmd in apt-get dpkg make flock qemu-system-x86_64 cc gcc clang-tidy cppcheck sudo tar rsync; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$cmd" "$sandbox" >"$sandbox/stubs/$cmd"
	chmod +x "$sandbox/stubs/$cmd"
done

for script in setup build-kernel build vm test bench bench-report demo compositor ci-job tap-junit profile \
	lint lint-userspace; do
	for opt in -h --help; do
		name=$script$opt
		rm -rf "$sandbox/called" "$sandbox/cache" "$sandbox/home"
		mkdir "$sandbox/cache" "$sandbox/home"
		start=$(date +%s%N)
		(cd "$sandbox" && HOME=$sandbox/home FLIPFENCE_CACHE=$sandbox/cache \
			PATH=$sandbox/stubs:$PATH timeout 10 "$top/scripts/$script" "$opt" \
			>"$sandbox/out" 2>"$sandbox/err" </dev/null)
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		why=""
		[ $rc -eq 0 ] || why="exit $rc: $(head -c 200 "$sandbox/err" | tr '\n' ' ')"
		[ -n "$why" ] || grep -q usage "$sandbox/out" || why="no 'usage' on stdout"
		[ -n "$why" ] || [ $ms -le 5000 ] || why="took $ms ms"
		[ -n "$why" ] || [ ! -e "$sandbox/called" ] ||
			why="called $(head -3 "$sandbox/called" | tr '\n' ';')"
		[ -n "$why" ] || [ -z "$(ls -A "$sandbox/cache")" ] ||
			why="wrote into FLIPFENCE_CACHE: $(ls -A "$sandbox/cache" | head -3 | tr '\n' ' ')"
		if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
	done
done
finish
