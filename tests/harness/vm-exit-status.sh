#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/vm exits with the guest command's status (0 for a clean guest that
# succeeds) and prints its output.
. "$(dirname "$0")/lib.sh"

out=$(scripts/vm -k lean -m none -- sh -c 'echo from-the-guest; exit 7' 2>/dev/null)
check_eq vm-returns-command-status 7 $?
check_eq vm-prints-command-output from-the-guest "$out"

out=$(scripts/vm -k lean -m none -- sh -c 'pwd; test -w /tmp && test ! -w /usr' 2>/dev/null)
check_eq vm-clean-guest-passes 0 $?
check_eq vm-runs-in-checkout-with-ro-root "$PWD" "$out"
done_testing
