#!/bin/bash
# SPDX-License-Identifier: MIT
# A guest that does not finish is killed at the timeout with a clear message.
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
err=$(scripts/vm -k lean -m none -t 10 -- sleep 600 2>&1 >/dev/null)
rc=$?
took=$(($(date +%s) - start))
check_eq vm-timeout-status 124 "$rc"
case $err in
*"did not finish within 10 s"*) pass vm-timeout-message ;;
*) fail vm-timeout-message "no timeout message in: $err" ;;
esac
if [ "$took" -lt 60 ]; then pass vm-timeout-kills-promptly; else fail vm-timeout-kills-promptly "took $took s"; fi
done_testing
