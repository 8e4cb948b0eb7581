#!/bin/bash
# Load a KUnit test module in the guest and report each of its cases as a
# result line. usage: tests/kunit/run.sh MODULE SUITE
module=$1 suite=$2
results=/sys/kernel/debug/kunit/$suite/results

modprobe -d "$FLIPFENCE_MODROOT" "$module" || { echo "not ok - $suite: modprobe $module failed"; exit 1; }
if [ ! -r "$results" ]; then
	echo "not ok - $suite: no KUnit results at $results"
	exit 1
fi

# KTAP: a case's diagnostics ("# ...") come before its "ok N name" line.
awk -v suite="$suite" '
	/^[ \t]+# / { sub(/^[ \t]+# /, ""); why = why (why ? "; " : "") $0; next }
	/^[ \t]+(not )?ok [0-9]+ / {
		bad = ($1 == "not")
		name = bad ? $4 : $3
		if (bad) printf "not ok - %s: %s\n", name, why ? why : "failed"
		else if ($0 ~ /# SKIP/) printf "skip - %s\n", name
		else printf "ok - %s\n", name
		cases++; fails += bad; why = ""
	}
	END {
		if (!cases) { print "not ok - " suite ": no test cases in the results"; exit 1 }
		exit fails ? 1 : 0
	}' "$results"
status=$?
modprobe -r -d "$FLIPFENCE_MODROOT" "$module" || { echo "not ok - $suite: unloading $module failed"; status=1; }
exit $status
