# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers for harness tests: tests/lib.sh's result lines.
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

done_testing() {
	finish
}

# The harness's own guests boot one kernel series: the one scripts/test is
# running (it exports it), else 6.1; a nested scripts/test would otherwise
# run its manifest on every series.
export FLIPFENCE_KERNEL_SERIES=${FLIPFENCE_KERNEL_SERIES:-6.1}
