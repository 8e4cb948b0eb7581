#!/bin/bash
# SPDX-License-Identifier: MIT
# On the host: Documentation/ci.rst's recipe, scripts/ci-job, run as a CI
# job would run it, against a compositor "built from source": a wrapper in
# a directory outside the checkout (as a build in a home directory or a CI
# workspace is) that needs a variable passed with -e and execs Debian's
# cage, with weston-simple-shm as the client. The client writes into
# @RESULTS@; everything must come back to the host.
#
#   job-passes            scripts/ci-job exits 0 and says "3 passed, 0 failed"
#   junit-verdict         junit.xml is well-formed JUnit: 3 testcases, none
#                         failed (comes-up, client, stops-cleanly)
#   evidence-returned     compositor.log holds the wrapper's line, drm-state.txt
#                         an active CRTC with its mode, console.log the boot
#   client-wrote-results  the client's file, written as nobody in the guest
#   failing-client-fails  the same job with a client that fails exits 1,
#                         says "2 passed, 1 failed" and junit.xml names it
#
# usage: tests/compositor/ci-recipe.sh
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
top=$(cd "$here/../.." && pwd)
command -v cage >/dev/null || { skip job-passes "cage is not installed (scripts/setup)"; exit 0; }
tmp=$(mktemp -d /tmp/flipfence-ci.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
cat >"$tmp/src/my-kiosk" <<'KIOSK'
#!/bin/sh
[ "$MY_KIOSK_MODE" = ci ] || { echo "my-kiosk: MY_KIOSK_MODE not passed" >&2; exit 3; }
echo "my-kiosk: starting cage on $FLIPFENCE_CARD"
exec cage "$@"
KIOSK
chmod 0755 "$tmp/src/my-kiosk" "$tmp/src" "$tmp"

# job RESULTS CLIENT: the recipe, from the job's own working directory.
job() {
	(cd "$tmp" && "$top/scripts/ci-job" "$1" -u nobody -e WLR_RENDERER=pixman -e MY_KIOSK_MODE=ci \
		-s children -- "$tmp/src/my-kiosk" sleep 1d -- sh -c "$2")
}
job good 'timeout -s INT 3 weston-simple-shm; [ $? -eq 124 ] && echo drawn >@RESULTS@/client.txt' >"$tmp/good.out" 2>&1
rc=$?
grep -E '^# session|passed' "$tmp/good.out" | sed 's/^/# /'
check job-passes "$([ $rc -eq 0 ] && [ "$(tail -1 "$tmp/good.out")" = "3 passed, 0 failed" ]; echo $?)" \
	"expected status 0 and '3 passed, 0 failed', got $rc: $(tail -5 "$tmp/good.out" | tr '\n' ' ')"
r=$tmp/good
check junit-verdict "$(xmllint --noout "$r/junit.xml" 2>/dev/null &&
	[ "$(grep -c '<testcase ' "$r/junit.xml")" -eq 3 ] && ! grep -q '<failure' "$r/junit.xml" &&
	grep -q 'tests="3" failures="0"' "$r/junit.xml"; echo $?)" \
	"expected 3 passing testcases in junit.xml: $(tr '\n' ' ' <"$r/junit.xml" 2>&1 | cut -c1-400)"
check evidence-returned "$(grep -q '^my-kiosk: starting cage on /dev/dri/card' "$r/compositor.log" &&
	grep -q 'active=1' "$r/drm-state.txt" && grep -q 'mode:' "$r/drm-state.txt" &&
	grep -q 'flipfence-vm: command starts' "$r/console.log"; echo $?)" \
	"expected the wrapper's line, the DRM state and the console log in $r: $(ls "$r" | tr '\n' ' ')"
check client-wrote-results "$([ "$(cat "$r/client.txt" 2>/dev/null)" = drawn ]; echo $?)" \
	"expected client.txt with 'drawn' from the client: $(ls "$r" | tr '\n' ' ')"

job bad 'echo "the client fails" >&2; exit 3' >"$tmp/bad.out" 2>&1
rc=$?
check failing-client-fails "$([ $rc -ne 0 ] && [ "$(tail -1 "$tmp/bad.out")" = "2 passed, 1 failed" ] &&
	grep -q 'name="my-kiosk/client"><failure' "$tmp/bad/junit.xml"; echo $?)" \
	"expected a non-zero status, '2 passed, 1 failed' and a failed my-kiosk/client testcase, got $rc: $(tail -3 "$tmp/bad.out" | tr '\n' ' ')"
finish
