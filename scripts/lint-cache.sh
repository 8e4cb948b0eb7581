# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Lint by content, for scripts/lint and scripts/lint-userspace (sourced).
#
# A lint's tools are deterministic on the same files, the same kernel trees
# and the same installed packages, so a green run's results are recorded
# (scripts/green-cache.sh) and printed again instead of running the tools
# (35 s of checkpatch, sparse and i386 compiles; 22 s of cppcheck and
# clang-tidy) while none of that changed. The records are in
# $FLIPFENCE_CACHE/lint-green; FLIPFENCE_LINT_FULL=1 ignores them.
# shellcheck source=scripts/green-cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/green-cache.sh"

LINT_GREEN_DIR=$FLIPFENCE_CACHE/lint-green

# lint_key LINT PATH...: the key of LINT's inputs: the lint script itself,
# this file, the standard input (the kernel trees' keys) and every file
# under the PATHs.
lint_key() {
	local lint=$1
	shift
	{ echo "lint $lint" && cat; } | green_key "scripts/$lint" scripts/lint-cache.sh "$@"
}

# lint_replay LINT KEY: prints the result names of LINT's green run with
# this key, one a line, and succeeds; fails if there is none.
lint_replay() {
	green_replay "$LINT_GREEN_DIR" "$1" "$2" FLIPFENCE_LINT_FULL
}

# lint_record LINT KEY NAME...: records a green run's result names.
lint_record() {
	green_record "$LINT_GREEN_DIR" "$@"
}
