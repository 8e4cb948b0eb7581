#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat's verdict for a CI, end to end on flipkms: a run that breaks a
# threshold exits 7, names it on stderr and in the JSON; the same run with
# thresholds it keeps exits 0. flipkms shows every flip at the vblank after
# its submit, so its vblank interval is one frame (16.7 ms at 60 Hz): a p99
# limit of 1 us cannot be kept, one of 1 s always is, and no flip is early.
#
# usage: tests/fliplat/thresholds.sh
set -u
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }

run broken --device "$card" --flips 20 --warmup 2 --max-early 0 \
	--max-p99-us vblank-interval=1
check_eq broken-exits-7 7 "$rc"
check_eq broken-says-which 1 "$(grep -c '^fliplat: threshold broken: --max-p99-us 1: p99 of vblank-interval' "$scratch/broken.out")"
holds broken-json broken '.thresholds_broken == 1 and ([.thresholds[] | select(.broken) | .option] == ["--max-p99-us"]) and .status == "complete"' \
	"one broken threshold, --max-p99-us, in a complete run"

run kept --device "$card" --flips 20 --warmup 2 --max-early 0 --max-missed 20 \
	--max-p99-us vblank-interval=1000000
check_eq kept-exits-0 0 "$rc"
holds kept-json kept '.thresholds_broken == 0 and (.thresholds | length) == 3' \
	"three thresholds, none broken"
holds kept-provenance kept '.schema_version == 2 and (.command_line | index("--max-missed")) != null and (.kernel.release | length) > 0' \
	"schema 2, the command line and uname in the JSON"
finish
