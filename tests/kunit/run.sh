#!/bin/bash
# SPDX-License-Identifier: MIT
# Load a KUnit test module in the guest and report each of its cases as a
# result line. usage: tests/kunit/run.sh MODULE SUITE
#
# The results come from the kernel log, where KUnit prints the whole KTAP as
# it runs. Its debugfs copy keeps 512 bytes a case in 6.1 and drops the
# result line of a case with more diagnostics than that, so a failure could
# vanish there. The plan ("1..N") is checked too: a suite that stops early
# fails.
module=$1 suite=$2
marker="flipfence-kunit: $suite starts ($$.$RANDOM)"

echo "$marker" >/dev/kmsg
modprobe -d "$FLIPFENCE_MODROOT" "$module" || { echo "not ok - $suite: modprobe $module failed"; exit 1; }

# Each result line also goes to $FLIPFENCE_RESULT_LOG (tests/lib.sh's result_line).
dmesg -t | awk -v suite="$suite" -v marker="$marker" -v rlog="${FLIPFENCE_RESULT_LOG:-}" '
	function result(line) { print line; if (rlog != "") print line >>rlog }
	$0 == marker { on = 1; next }
	!on { next }
	/^[ \t]+# Subtest: / { insuite = ($3 == suite); next }
	!insuite { next }
	/^[ \t]+1\.\.[0-9]+$/ && plan == "" { plan = substr($1, 4) + 0; next }
	/^[ \t]+# / { sub(/^[ \t]+# /, ""); why = why (why ? "; " : "") $0; next }
	/^[ \t]+(not )?ok [0-9]+ / {
		bad = ($1 == "not")
		name = bad ? $4 : $3
		if (bad) printf "not ok - %s: %s\n", name, why ? why : "failed"
		else if ($0 ~ /# SKIP/) result("skip - " name)
		else result("ok - " name)
		cases++; fails += bad; why = ""
		next
	}
	# What a failed expectation says after its "# CASE: EXPECTATION FAILED
	# at FILE:LINE" line: "Expected A == B, but", the values, and the
	# message of KUNIT_FAIL() or KUNIT_EXPECT_*_MSG() (no quotes in here:
	# this program is a quoted shell word).
	/^[ \t]+[^ \t]/ { sub(/^[ \t]+/, ""); why = why " (" $0 ")"; next }
	/^(not )?ok [0-9]+ / { insuite = 0 }
	END {
		if (plan == "") { print "not ok - " suite ": no KTAP plan for the suite in the kernel log"; exit 1 }
		if (cases != plan) {
			printf "not ok - %s: %d of the %d planned cases reported\n", suite, cases, plan
			exit 1
		}
		exit fails ? 1 : 0
	}'
status=$?
modprobe -r -d "$FLIPFENCE_MODROOT" "$module" || { echo "not ok - $suite: unloading $module failed"; status=1; }
exit $status
