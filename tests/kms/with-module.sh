#!/bin/bash
# SPDX-License-Identifier: MIT
# Run a guest test with a kernel module loaded with the given parameters, then
# put things back: for the manifest's vkms variants (the guest boots with
# syncfw,flipkms only) and for flipkms with a non-default shape (outputs=2).
#
# usage: tests/kms/with-module.sh [-a] MODULE[:PARAM=VALUE[,PARAM=VALUE...]]... -- CMD [ARGS...]
#
# A module that is loaded already is unloaded first and, after CMD, loaded
# again with its default parameters. With -a (as loaded), a MODULE without
# parameters that is loaded already is not reloaded first: for a test that
# follows one which just reloaded it (kms/unplug-inflight after
# kms/configfs on the debug kernels: a reload is 2 to 5 s there); it is
# still unloaded after CMD, which is the check, and loaded again. Modules come from $FLIPFENCE_MODROOT
# (set by scripts/vm); the exit status is CMD's, or 125 if a module would
# not load or unload. The modules are put back by a trap, on SIGTERM (the
# runner's timeout) or SIGINT too: 143 then.
set -u
specs=() as_loaded=0
[ "${1:-}" = -a ] && { as_loaded=1; shift; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	specs+=("$1")
	shift
done
[ $# -gt 1 ] || { echo "usage: $0 MODULE[:PARAMS]... -- CMD [ARGS...]" >&2; exit 2; }
shift
[ -n "${FLIPFENCE_MODROOT:-}" ] || { echo "# $0: FLIPFENCE_MODROOT is not set (not in a guest?)"; exit 125; }

mp() {
	modprobe -d "$FLIPFENCE_MODROOT" "$@"
}

loaded() {
	grep -q "^${1//-/_} " /proc/modules
}

reload=()
loaded_specs=0
# Put things back on any exit: when CMD is done, and also when the runner's
# timeout (SIGTERM to the test's process group) or ^C ends the test, so that
# the next test finds syncfw and flipkms with their defaults and no vkms.
# shellcheck disable=SC2317 # called by the trap
restore() {
	local i mod
	trap - TERM INT
	for ((i = loaded_specs - 1; i >= 0; i--)); do
		mod=${specs[i]%%:*}
		loaded "$mod" && { mp -r "$mod" || { echo "# $0: cannot unload $mod"; rc=125; }; }
	done
	for mod in "${reload[@]}"; do
		loaded "$mod" || mp "$mod" || { echo "# $0: cannot load $mod again"; rc=125; }
	done
	exit "$rc"
}
rc=125
trap restore EXIT
trap 'echo "# $0: killed by a signal: restoring the modules"; rc=143; exit 143' TERM INT

for spec in "${specs[@]}"; do
	mod=${spec%%:*}
	params=()
	[ "$spec" != "$mod" ] && IFS=, read -ra params <<<"${spec#*:}"
	if loaded "$mod"; then
		reload+=("$mod")
		if [ $as_loaded -eq 1 ] && [ "$spec" = "$mod" ]; then
			loaded_specs=$((loaded_specs + 1))
			continue
		fi
		mp -r "$mod" || { echo "# $0: cannot unload $mod"; exit 125; }
	fi
	loaded_specs=$((loaded_specs + 1))
	mp "$mod" "${params[@]}" || { echo "# $0: cannot load $mod ${params[*]}"; exit 125; }
	# Let udev-less /dev settle: the card node appears with the device.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -n "$(ls /dev/dri/card* 2>/dev/null)" ] && break
		sleep 0.1
	done
done

"$@"
rc=$?
exit $rc
