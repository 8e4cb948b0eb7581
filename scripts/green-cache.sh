# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Results by content (sourced): scripts/lint-cache.sh's lints and
# tests/harness/by-content.sh's harness tests.
#
# A check whose inputs are byte for byte those of its last green run would
# print the same lines again. So a green run records its result lines in
# DIR under a key that hashes all of its inputs, and a later run with the
# same key prints them again instead of running. Only green runs are
# recorded: a failing check runs in full every time until it is fixed. The
# records live in the kernel cache ($FLIPFENCE_CACHE), so a CI that keeps
# that cache keeps them; a clean machine runs everything in full.

# green_key PATH...: the key of a check's inputs: the standard input (what
# else it depends on: kernel tree keys, the series), every installed
# package's version (compilers, QEMU, checkers, headers), this file, and
# the name and content of every file under the PATHs, relative to the top
# of the checkout (untracked ones too: more misses, never a wrong hit).
green_key() {
	{
		cat
		dpkg-query -W -f='${Package} ${Version}\n' | LC_ALL=C sort
		(cd "$FLIPFENCE_TOP" && find scripts/green-cache.sh "$@" -type f -print0 2>/dev/null |
			LC_ALL=C sort -z | xargs -0 -r sha256sum)
	} | sha256sum | cut -c1-32
}

# green_replay DIR NAME KEY FULL_VAR: prints the result lines of NAME's
# green run with this key, one a line, and succeeds, saying so on stderr;
# fails (printing nothing) if there is none or the variable FULL_VAR is set.
green_replay() {
	local f=$1/$2.$3
	[ -z "${!4:-}" ] && [ -s "$f" ] || return 1
	touch "$f"
	echo "# $2: inputs unchanged since its $(sed -n 's/^# //p' "$f"): its results again ($4=1 runs it in full)" >&2
	grep -v '^#' "$f"
}

# green_record DIR NAME KEY LINE...: records a green run's result lines;
# keeps NAME's 20 most recently used records (one per branch or state in use).
green_record() {
	local dir=$1 name=$2 key=$3 tmp
	shift 3
	mkdir -p "$dir" || return 0
	tmp=$(mktemp "$dir/.new.XXXXXX") || return 0
	{
		echo "# green run of $(date -u '+%Y-%m-%d %H:%M UTC')"
		printf '%s\n' "$@"
	} >"$tmp"
	mv "$tmp" "$dir/$name.$key"
	# shellcheck disable=SC2012
	ls -t "$dir/$name".* | tail -n +21 | xargs -r rm -f
}
