#!/bin/bash
# SPDX-License-Identifier: MIT
# The question wlroots asked when 0.20 stopped using OUT_FENCE_PTR ("the
# returned fence is not required to be signalled at the earliest possible
# time"), measured per flip in a lean guest: the out-fence's time minus the
# flip event's (fence-event), and when a thread waiting on the fence woke
# minus when the thread reading the event did (wake-read), on
#
#   flipkms    signal_delay_us=0 (the default)
#   flipkms    signal_delay_us=DELAY_US (a display engine that reports
#              completion late: Documentation/flipkms.rst, debugfs)
#   vkms       mainline's, loaded beside flipkms for the run
#
# Writes out-fence-{flipkms,flipkms-delay,vkms}.{csv,json,svg} into OUTDIR
# and prints a table of the three. A measurement for make demo, not a test:
# it asserts nothing (tests/fliplat/faults.sh checks the delay itself).
#
# usage: tests/fliplat/out-fence.sh OUTDIR [FLIPS [DELAY_US]]
#        (default 300 flips at 1024x768@60 as make bench, after 20 of
#        warm-up; 2000 us)
set -u
out=${1:?usage: $0 OUTDIR [FLIPS [DELAY_US]]}
flips=${2:-300}
delay=${3:-2000}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
fliplat=$top/build/fliplat/fliplat
mkdir -p "$out"

card=$(card_of flipkms) || { echo "out-fence: no flipkms card" >&2; exit 1; }
ctl=/sys/kernel/debug/dri/${card#/dev/dri/card}/crtc-0
vkms_loaded_here=0
cleanup() {
	echo 0 >"$ctl/signal_delay_us"
	[ $vkms_loaded_here = 0 ] || modprobe -r -d "$FLIPFENCE_MODROOT" vkms
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# measure NAME DEVICE: one fliplat run into out-fence-NAME.*.
measure() {
	"$fliplat" --no-progress -q --device "$2" --mode 1024x768@60 --flips "$flips" --warmup 20 \
		--csv "$out/out-fence-$1.csv" --json "$out/out-fence-$1.json" \
		--plot "$out/out-fence-$1.svg"
}

status=0
echo 0 >"$ctl/signal_delay_us"
measure flipkms "$card" || status=1
echo "$delay" >"$ctl/signal_delay_us"
measure flipkms-delay "$card" || status=1
echo 0 >"$ctl/signal_delay_us"
if ! grep -q '^vkms ' /proc/modules; then
	modprobe -d "$FLIPFENCE_MODROOT" vkms && vkms_loaded_here=1
fi
if vk=$(card_of vkms); then
	measure vkms "$vk" || status=1
else
	echo "out-fence: vkms would not load" >&2
	status=1
fi

printf '%-32s %6s   %-30s   %-30s\n' "" "" "fence-event (us)" "wake-read (us)"
printf '%-32s %6s   %-30s   %-30s\n' setup flips "p50 / p99 / max" "p50 / p99 / max"
for run in flipkms:"flipkms, signal_delay_us=0" flipkms-delay:"flipkms, signal_delay_us=$delay" \
	vkms:"vkms (mainline)"; do
	f=$out/out-fence-${run%%:*}.json
	[ -r "$f" ] || { printf '%-32s  no result\n' "${run#*:}"; continue; }
	jq -r --arg setup "${run#*:}" '
		def n: if . == null then "-" else (. * 10 | round / 10 | tostring) end;
		def three(m): "\(m.p50 | n) / \(m.p99 | n) / \(m.max | n)";
		[$setup, (.flips_counted | tostring), three(.summary["fence-event"]),
		 three(.summary["wake-read"])] | @tsv' "$f" |
		awk -F'\t' '{ printf "%-32s %6s   %-30s   %-30s\n", $1, $2, $3, $4 }'
done
exit $status
