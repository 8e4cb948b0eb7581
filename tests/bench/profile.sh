#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/profile's guest half: perf record of one bench workload on the
# bench kernel, system-wide with call graphs on the cpu-clock software event
# (TCG emulates no PMU), and the report of where the time went, by symbol,
# into $FLIPFENCE_RESULTS/profile-WHAT.txt.
#
# usage: tests/bench/profile.sh compose|compose-vkms|sync|sync-mainline|fliplat|fliplat-vkms|
#                               highrate|highrate-vkms
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FLIPFENCE_RESULTS:?run through scripts/profile}
bin=$top/build/tests/bench
what=$1
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
# shellcheck source=tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

bench_load_vkms
case $what in
compose) cmd=("$bin/compose-bench" -t 5 flipkms) ;;
compose-vkms) cmd=("$bin/compose-bench" -t 5 vkms) ;;
sync) cmd=("$bin/sync-bench" -n 20000 /sys/kernel/debug/syncfw/sw_sync) ;;
sync-mainline) cmd=("$bin/sync-bench" -n 20000 /sys/kernel/debug/sync/sw_sync) ;;
fliplat | fliplat-vkms)
	drv=flipkms
	[ "$what" = fliplat-vkms ] && drv=vkms
	cmd=("$top/build/fliplat/fliplat" --no-progress --device "/dev/dri/card$(drm_minor_of $drv)"
		--mode 1024x768@60 --flips 300 --warmup 20) ;;
highrate)
	bench_reload_flipkms 3
	cmd=("$top/build/fliplat/fliplat" --no-progress --device "/dev/dri/card$(drm_minor_of flipkms)"
		--mode 1024x768 -r 240 --crtcs all --flips 2000 --warmup 20) ;;
highrate-vkms)
	cmd=("$top/build/fliplat/fliplat" --no-progress --device "/dev/dri/card$(drm_minor_of vkms)"
		--mode 1024x768 -r 240 --flips 2000 --warmup 20) ;;
*) echo "profile.sh: unknown workload '$what'" >&2; exit 2 ;;
esac

data=/tmp/perf-$what.data
perf record -q -e cpu-clock -F 2000 -a -g -o "$data" -- "${cmd[@]}" >/tmp/said
{
	echo "# perf record -e cpu-clock -F 2000 -a -g -- ${cmd[*]}"
	echo "# kernel $(uname -r), $(nproc) vCPUs; the workload said:"
	{ grep -v "^#" /tmp/said || true; } | sed "s/^/#   /" | cut -c1-400
	perf report -i "$data" --stdio --no-children --sort sym --percent-limit 0.5 -g none 2>/dev/null |
		grep -v '^$'
} >"$out/profile-$what.txt"
cat "$out/profile-$what.txt"
