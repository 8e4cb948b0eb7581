# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers for harness tests: tests/lib.sh's result lines.
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

done_testing() {
	finish
}
