#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the kernel's own dma-buf selftests (CONFIG_DMABUF_SELFTESTS=m, the
# dmabuf_selftests module, unmodified but for patch 0002's case) and turns
# their kernel log into our result lines:
#
#   dma-buf: Running dma_fence_unwrap/unwrap_array_error
#       ->  ok - dma_fence_unwrap/unwrap_array_error
#   dma-buf/dma_fence: test_wait failed with error -22
#       ->  not ok - dma_fence/test_wait: failed with error -22
#
# The module runs every test from its init and refuses to load when one
# fails, stopping there. Fails if the module does not load, if a test
# failed, or if patch 0002's own case (dma_fence_unwrap/unwrap_array_error)
# did not run: without it the kernel under test is not the patched one.
#
# usage: dmabuf-selftests.sh [FILTER]
#
# FILTER is the module's st_filter, e.g. "!dma_fence_chain/wait_forward":
# the debug kernel leaves out the chain wait tests, whose waiter sleeps
# uninterruptibly for longer than the guest's 30 s hung-task panic while
# KASAN under TCG signals 4096 fences; the lean kernel runs those three
# (and patch 0002's case): the rest is the debug run's.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
filter=${1:-}
[ -n "${FLIPFENCE_MODROOT:-}" ] || { echo "not ok - dmabuf-selftests: FLIPFENCE_MODROOT is not set (not in a guest?)"; exit 1; }

marker="flipfence: dmabuf-selftests $$ $RANDOM"
echo "$marker" >/dev/kmsg
modprobe -d "$FLIPFENCE_MODROOT" dmabuf_selftests ${filter:+st_filter="$filter"} >/dev/null 2>&1
rc=$?
grep -q '^dmabuf_selftests ' /proc/modules && modprobe -r -d "$FLIPFENCE_MODROOT" dmabuf_selftests

log=$(dmesg | awk -v m="$marker" 'seen { print } index($0, m) { seen = 1 }')
failed_sub=$(echo "$log" | sed -n 's|.*dma-buf/\([^:]*\): \([^ ]*\) failed with error \(.*\)$|\1/\2 \3|p' | head -1)
status=0 ran=0 ours=0
while read -r sub; do
	[ -n "$sub" ] || continue
	ran=$((ran + 1))
	[ "$sub" = dma_fence_unwrap/unwrap_array_error ] && ours=1
	if [ "${failed_sub%% *}" = "$sub" ]; then
		echo "not ok - $sub: failed with error ${failed_sub#* }"
		status=1
	else
		result_line "ok - $sub"
	fi
done <<<"$(echo "$log" | sed -n 's|.*dma-buf: Running \([^ ]*/[^ ]*\)$|\1|p')"

if [ $rc -ne 0 ]; then
	echo "not ok - module-loads: modprobe dmabuf_selftests exited $rc (a selftest failed)"
	status=1
else
	result_line "ok - module-loads"
fi
if [ $ours -eq 0 ]; then
	echo "not ok - patch-0002-case-ran: expected dma_fence_unwrap/unwrap_array_error among the $ran subtests that ran, got none"
	status=1
fi
exit $status
