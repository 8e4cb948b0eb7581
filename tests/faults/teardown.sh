#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's own teardown and error paths:
#
#   an output whose creation fails (the test-only fail_output parameter)
#     makes the load fail cleanly, whichever output it is, and the next load
#     works (the outputs after it were never set up and must not be torn down)
#   unload while a delayed fence signal (signal_delay_us=5 s) is still
#     pending (its point shows active in the dump while the client holds
#     the fence; the client is killed, flipkms unloaded as soon as it lets
#     go, within 5 s: a skip line if that came after the signal was due):
#     the timer is stopped before the timeline goes, nothing fires later
#   every debugfs control refuses a value outside its documented range, and
#     input that is not a number (abc, -1, 1x, an empty line), with EINVAL
#     and keeps its value
#
# usage: tests/faults/teardown.sh      (in the guest, as root)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
victim=$top/build/tests/faults/victim
fliplat=$top/build/fliplat/fliplat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
mp() { modprobe -d "$FLIPFENCE_MODROOT" "$@"; }
display_ok() { timeout 30 "$fliplat" --no-progress -q --flips 5 --warmup 0 >"$tmp/fliplat" 2>&1; }
crtc_dir() { ls -d /sys/kernel/debug/dri/*/crtc-0 2>/dev/null | head -1; }

# --- a failing output -------------------------------------------------------------
for n in 0 1 2; do
	mp -r flipkms || { fail "fail-output-$n-load-fails" "cannot unload flipkms first"; continue; }
	if mp flipkms outputs=3 fail_output=$n 2>"$tmp/load"; then
		fail "fail-output-$n-load-fails" "the load succeeded"
		mp -r flipkms
	else
		grep -q 'Cannot allocate memory' "$tmp/load" && pass "fail-output-$n-load-fails" ||
			fail "fail-output-$n-load-fails" "expected ENOMEM, got: $(cat "$tmp/load")"
	fi
	grep -q '^flipkms ' /proc/modules && fail "fail-output-$n-leaves-nothing" "flipkms is loaded" ||
		pass "fail-output-$n-leaves-nothing"
done
# A preferred_mode that is not WxH in 640x480..3840x2160 fails the load.
for bad in 123x45 4000x2160 1920 1920x1080x60; do
	grep -q '^flipkms ' /proc/modules && mp -r flipkms
	if mp flipkms preferred_mode=$bad 2>"$tmp/load"; then
		fail "preferred-mode-$bad-refused" "the load succeeded"
	else
		grep -q 'Invalid argument' "$tmp/load" && pass "preferred-mode-$bad-refused" ||
			fail "preferred-mode-$bad-refused" "expected EINVAL, got: $(cat "$tmp/load")"
	fi
done
grep -q '^flipkms ' /proc/modules && mp -r flipkms
mp flipkms && display_ok && pass load-after-failed-loads-works ||
	fail load-after-failed-loads-works "reload or flips failed: $(tail -1 "$tmp/fliplat")"

# --- unload with a delayed signal pending -------------------------------------------
dir=$(crtc_dir)
echo 5000000 >"$dir/signal_delay_us"
# The victim's flip, and so the signal due 5 s after its vblank, comes after this.
started=$(date +%s%N)
"$victim" hold >"$tmp/victim" 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q '^ready' "$tmp/victim" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
if grep -q '^ready' "$tmp/victim" && grep -q 'flip [0-9]*: active' /sys/kernel/debug/sync/info; then
	pass delayed-signal-pending-before-unload
else
	fail delayed-signal-pending-before-unload "victim: $(tr '\n' ' ' <"$tmp/victim"); dump: $(grep flipkms-crtc -A3 /sys/kernel/debug/sync/info | tr '\n' ' ')"
fi
start=$(date +%s%N)
kill -9 $pid
wait $pid 2>/dev/null
# The victim's fences are gone: nothing but the pending signal is left.
# Its release (a killed process's files, the commit's clean-up) may take a
# loaded guest a while, as in faults.sh: 5 s, as long as the unload still
# comes before the signal was due, or it proves nothing.
unloaded=0
while [ $(($(date +%s%N) - start)) -lt 5000000000 ]; do
	mp -r flipkms 2>/dev/null && { unloaded=1; break; }
	sleep 0.02
done
done_at=$(date +%s%N)
echo "# $([ $unloaded -eq 1 ] && echo unloaded || echo "gave up") $(( (done_at - start) / 1000000 )) ms after the kill, $(( (done_at - started) / 1000000 )) ms after the victim started; the signal was due 5000 ms after its flip"
if [ $unloaded -eq 0 ]; then
	fail unload-with-delayed-signal-pending "flipkms would not unload within 5 s of the kill"
elif [ $((done_at - started)) -ge 5000000000 ]; then
	skip unload-with-delayed-signal-pending "flipkms unloaded, but $(( (done_at - started) / 1000000 )) ms after the victim started: the signal may have been due already"
else
	pass unload-with-delayed-signal-pending
fi
sleep 5.2	# past the delay: a timer left behind would fire now
grep -q '^flipkms ' /proc/modules || mp flipkms
display_ok && pass display-after-unload-with-delayed-signal ||
	fail display-after-unload-with-delayed-signal "$(tail -1 "$tmp/fliplat")"

# --- debugfs controls refuse values out of range, and what is not a number ----------
dir=$(crtc_dir)
# refuses FILE VALUE: writing VALUE fails with EINVAL and the value stays.
# Builtins only (read, echo, [[ ]]): a process costs up to a second on the
# debug kernel, and this runs 31 times.
refuses() {
	local file=$1 bad=$2 name=$1-refuses-${2:-empty} before after err=""
	read -r before <"$dir/$file"
	if { echo "$bad" >"$dir/$file"; } 2>"$tmp/write"; then
		fail "$name" "the write succeeded"
		return
	fi
	read -r err <"$tmp/write"
	read -r after <"$dir/$file"
	if [[ $err != *'Invalid argument'* ]]; then
		fail "$name" "expected EINVAL, got: $err"
	elif [ "$after" != "$before" ]; then
		fail "$name" "the value changed from $before to $after"
	else
		pass "$name"
	fi
}
while read -r file bad; do
	refuses "$file" "$bad"
done <<'LIST'
connected 2
refresh_hz 29
refresh_hz 241
signal_delay_us 5000001
drop_vblanks 241
stall_commit_ms 5001
fence_error 4096
LIST
for file in connected refresh_hz signal_delay_us drop_vblanks stall_commit_ms fence_error; do
	for bad in abc -1 1x ''; do
		refuses "$file" "$bad"
	done
done

# Leave a freshly loaded flipkms behind, whatever the writes did.
mp -r flipkms && mp flipkms || fail reload-at-end "flipkms would not reload"

finish
