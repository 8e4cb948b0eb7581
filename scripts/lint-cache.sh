# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Lint by content, for scripts/lint and scripts/lint-userspace (sourced).
#
# A lint whose inputs are byte for byte those of its last green run would
# print the same lines again: its tools are deterministic on the same
# files, the same kernel trees and the same installed packages. So a green
# run records its result names under a key that hashes all of that, and a
# later run with the same key prints them again instead of running the
# tools (35 s of checkpatch, sparse and i386 compiles; 22 s of cppcheck
# and clang-tidy). Only green runs are recorded: a failing lint runs in
# full every time until it is fixed. The records live in the kernel cache
# ($FLIPFENCE_CACHE/lint-green), so a CI that keeps that cache keeps them;
# a clean machine lints in full. FLIPFENCE_LINT_FULL=1 ignores them.

LINT_GREEN_DIR=$FLIPFENCE_CACHE/lint-green

# lint_key LINT PATH...: the key of LINT's inputs: the lint script itself,
# this file, every installed package's version (compilers, checkers,
# headers), the standard input (what else the lint depends on: kernel tree
# keys) and the name and content of every file under the PATHs (untracked
# ones too: more misses, never a wrong hit).
lint_key() {
	local lint=$1
	shift
	{
		echo "lint $lint"
		cat "$FLIPFENCE_TOP/scripts/$lint" "$FLIPFENCE_TOP/scripts/lint-cache.sh" | sha256sum
		dpkg-query -W -f='${Package} ${Version}\n' | LC_ALL=C sort
		cat
		(cd "$FLIPFENCE_TOP" && find "$@" -type f -print0 2>/dev/null |
			LC_ALL=C sort -z | xargs -0 -r sha256sum)
	} | sha256sum | cut -c1-32
}

# lint_replay LINT KEY: prints the result names of LINT's green run with
# this key, one a line, and succeeds; fails (printing nothing) if there is
# none or FLIPFENCE_LINT_FULL is set.
lint_replay() {
	local f=$LINT_GREEN_DIR/$1.$2
	[ -z "${FLIPFENCE_LINT_FULL:-}" ] && [ -s "$f" ] || return 1
	touch "$f"
	echo "# $1: inputs unchanged since its $(sed -n 's/^# //p' "$f"): its results again (FLIPFENCE_LINT_FULL=1 runs the tools)" >&2
	grep -v '^#' "$f"
}

# lint_record LINT KEY NAME...: records a green run's result names; keeps
# LINT's 20 most recently used records (one per branch or state in use).
lint_record() {
	local lint=$1 key=$2 tmp
	shift 2
	mkdir -p "$LINT_GREEN_DIR" || return 0
	tmp=$(mktemp "$LINT_GREEN_DIR/.new.XXXXXX") || return 0
	{
		echo "# green run of $(date -u '+%Y-%m-%d %H:%M UTC')"
		printf '%s\n' "$@"
	} >"$tmp"
	mv "$tmp" "$LINT_GREEN_DIR/$lint.$key"
	# shellcheck disable=SC2012
	ls -t "$LINT_GREEN_DIR/$lint".* | tail -n +21 | xargs -r rm -f
}
