#!/bin/bash
# SPDX-License-Identifier: MIT
# presentlat against a real compositor on the host: Weston's headless
# backend (no KMS, so no hardware flags and no MSC). It must commit every
# frame, get every frame presented after its commit and in order, report
# Weston's refresh, and with --fullscreen take the output's size; --output
# puts it fullscreen on the output of that name, and an unknown name is
# refused (exit 3) with the names there are.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
command -v weston >/dev/null || { skip headless-weston "weston is not installed (scripts/setup)"; exit 0; }

export XDG_RUNTIME_DIR
XDG_RUNTIME_DIR=$(mktemp -d)
chmod 0700 "$XDG_RUNTIME_DIR"
export WAYLAND_DISPLAY=presentlat-test-0
weston --backend=headless-backend.so --width=320 --height=200 --socket="$WAYLAND_DISPLAY" \
	--idle-time=0 --log="$XDG_RUNTIME_DIR/weston.log" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$XDG_RUNTIME_DIR"' EXIT
for _ in $(seq 100); do
	[ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] && break
	sleep 0.1
done

out=$XDG_RUNTIME_DIR
timeout 30 "$top/build/presentlat/presentlat" -n 40 -w 5 -f --csv "$out/run.csv" \
	--json "$out/run.json" >"$out/table.txt" 2>"$out/err"
rc=$?
check exit-status "$rc" "presentlat exited $rc: $(cat "$out/err")"
check_eq frames-presented "45 40 0 0" "$(jq -r '"\(.frames) \(.counts.presented) \(.counts.discarded) \(.counts.without_feedback)"' "$out/run.json" 2>&1)"
check_eq fullscreen-takes-output-size 320x200 "$(jq -r '"\(.config.width)x\(.config.height)"' "$out/run.json" 2>&1)"
# Weston's headless output refreshes at 60 Hz: 16666666 ns.
check_eq refresh-is-westons 16666666 "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "refresh_ns") c = i; next }
	{ print $c }' "$out/run.csv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "commit_ns") c = i; if ($i == "presented_ns") p = i } next }
	$p <= $c || $p <= last { n++ } { last = $p } END { print n + 0 }' "$out/run.csv")
check_eq presented-after-commit-in-order 0 "$bad"
check_eq table-printed 1 "$(grep -c '^  present-commit ' "$out/table.txt")"
# A CI's verdict, end to end: the headless backend gives no hardware flags,
# so --require-flags hw-clock fails the run with exit 7 and says why;
# --max-discarded 0 (nothing discarded) passes one.
timeout 30 "$top/build/presentlat/presentlat" -n 10 -w 2 -q --json "$out/verdict.json" \
	--max-discarded 0 --require-flags hw-clock >/dev/null 2>"$out/err"
rc=$?
check_eq require-flags-breaks-exit-7 7 "$rc"
check_eq require-flags-says-which 1 "$(grep -c '^presentlat: threshold broken: --require-flags ' "$out/err")"
check_eq require-flags-json "1 --require-flags" "$(jq -r '"\(.thresholds_broken) \(.thresholds | map(select(.broken)) | map(.option) | join(","))"' "$out/verdict.json" 2>&1)"
timeout 30 "$top/build/presentlat/presentlat" -n 10 -w 2 -q --max-discarded 0 >/dev/null 2>"$out/err"
rc=$?
check_eq max-discarded-kept-exit-0 0 "$rc"
timeout 30 "$top/build/presentlat/presentlat" -n 5 -w 1 -q --output headless \
	--json "$out/output.json" >/dev/null 2>"$out/err"
check_eq output-named-fullscreen "0 320x200" "$? $(jq -r '"\(.config.width)x\(.config.height)"' "$out/output.json" 2>&1)"
timeout 30 "$top/build/presentlat/presentlat" -n 5 -q --output HDMI-A-9 >/dev/null 2>"$out/err"
check_eq output-unknown-refused "3 presentlat: the compositor has no output named HDMI-A-9 (it has headless)" \
	"$? $(cat "$out/err")"
finish
