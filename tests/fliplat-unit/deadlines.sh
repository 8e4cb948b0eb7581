#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat's reports of in-fence deadlines, on report-fixture's in-fence runs
# (report-fixture.c, -d): one whose frames had deadlines (two had none, four
# were signalled after theirs), one where no frame had any, and one on a
# kernel without fence deadlines. Each: the JSON's "deadlines", the CSV's
# deadline_ns and deadline_slack_ns (slack = deadline - ready_ns), the
# table's deadlines line.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

for kind in deadlines none unsupported; do
	mkdir "$dir/$kind"
	"$top/build/tests/fliplat-unit/report-fixture" -d $kind "$dir/$kind" ||
		echo "not ok - fixture-$kind: exit $?"
done
# q KIND FILTER: run KIND's JSON through FILTER.
q() { jq -c "$2" "$dir/$1/run.json" 2>&1; }
# col KIND NAME INDEX: column NAME of flip INDEX's row, found by the header.
col() {
	awk -F, -v name="$2" -v idx="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		c && $1 == idx { print $c }' "$dir/$1/run.csv"
}
# bad_slack KIND: CSV rows whose slack is not deadline - ready, or is
# present without a deadline.
bad_slack() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["deadline_ns"] == "" && $c["deadline_slack_ns"] != "" { bad++ }
		$c["deadline_ns"] != "" && $c["deadline_slack_ns"] != $c["deadline_ns"] - $c["ready_ns"] { bad++ }
		END { print bad + 0 }' "$dir/$1/run.csv"
}

# Counted flips 10..49; flip i's slack is (i - 14) ms; 20 and 31 had none.
check_eq with-json '{"supported":true,"with_deadline":38,"without_deadline":2,"past_deadline":4}' \
	"$(q deadlines '.deadlines | del(.slack_us)')"
check_eq with-json-slack '{"n":38,"min":-4000,"p50":15000,"max":35000}' \
	"$(q deadlines '.deadlines.slack_us')"
# ready_ns of flip 10 is 1.2005 s; 4 ms early means a deadline 4 ms before.
check_eq with-csv-deadline-of-flip-10 1196500000 "$(col deadlines deadline_ns 10)"
check_eq with-csv-negative-slack-of-flip-10 -4000000 "$(col deadlines deadline_slack_ns 10)"
check_eq with-csv-slack-of-flip-49 35000000 "$(col deadlines deadline_slack_ns 49)"
check_eq with-csv-none-for-flip-20 "/" "$(col deadlines deadline_ns 20)/$(col deadlines deadline_slack_ns 20)"
check_eq with-csv-slack-is-deadline-minus-ready 0 "$(bad_slack deadlines)"
check_eq with-csv-rows-with-deadline 48 "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "deadline_ns") c = i }
	NR > 1 && $c != ""' "$dir/deadlines/run.csv" | wc -l)"
check_eq with-table 1 "$(grep -c '^  deadlines: 38 flips with one, 2 without, 4 signalled after it (late); slack (deadline - ready) p50 15000.0 us, min -4000.0, max 35000.0$' "$dir/deadlines/table.txt")"

check_eq none-json '{"supported":true,"with_deadline":0,"without_deadline":40,"past_deadline":0,"slack_us":{"n":0,"min":null,"p50":null,"max":null}}' \
	"$(q none .deadlines)"
check_eq none-csv-empty 0 "$(awk -F, 'NR > 1 && ($(NF - 1) != "" || $NF != "")' "$dir/none/run.csv" | wc -l)"
check_eq none-table 1 "$(grep -c '^  deadlines: 0 flips with one, 40 without, 0 signalled after it (late)$' "$dir/none/table.txt")"

check_eq unsupported-json '{"supported":false,"with_deadline":0,"without_deadline":0,"past_deadline":0}' \
	"$(q unsupported '.deadlines | del(.slack_us)')"
check_eq unsupported-csv-empty 0 "$(awk -F, 'NR > 1 && ($(NF - 1) != "" || $NF != "")' "$dir/unsupported/run.csv" | wc -l)"
check_eq unsupported-table 1 "$(grep -c '^  deadlines: not supported by this kernel$' "$dir/unsupported/table.txt")"
check_eq unsupported-status-complete complete "$(jq -r .status "$dir/unsupported/run.json")"

finish
