#!/bin/bash
# A kernel WARN anywhere in the guest makes scripts/vm fail and show it,
# even when the command itself succeeds.
. "$(dirname "$0")/lib.sh"

err=$(scripts/vm -k lean -m ffwarn -- true 2>&1 >/dev/null)
check_eq vm-splat-status 126 $?
case $err in
*"kernel splat"*"ffwarn: deliberate warning"*) pass vm-splat-printed ;;
*) fail vm-splat-printed "splat not shown in: $(echo "$err" | tail -5)" ;;
esac

scripts/vm -k lean -m none -- true 2>/dev/null
check_eq vm-clean-guest-passes 0 $?
done_testing
