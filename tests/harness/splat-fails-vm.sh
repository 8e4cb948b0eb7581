#!/bin/bash
# SPDX-License-Identifier: MIT
# A kernel WARN anywhere in the guest makes scripts/vm fail and show it,
# even when the command itself succeeds. Only a splat while the kernel
# boots, before init, is worth a second boot; a second one fails too.
. "$(dirname "$0")/lib.sh"

err=$(scripts/vm -k lean -m ffwarn -- true 2>&1 >/dev/null)
check_eq vm-splat-status 126 $?
case $err in
*"kernel splat"*"ffwarn: deliberate warning"*) pass vm-splat-printed ;;
*) fail vm-splat-printed "splat not shown in: $(echo "$err" | tail -5)" ;;
esac

case $err in
*"booting again"*) fail vm-module-splat-not-retried "a module's splat led to a second boot" ;;
*) pass vm-module-splat-not-retried ;;
esac

# The kernel prints its command line while booting: a splat pattern there
# is a splat before init, on every boot.
err=$(FLIPFENCE_VM_APPEND="WARNING:" scripts/vm -k lean -m none -- true 2>&1 >/dev/null)
check_eq vm-boot-splat-status 126 $?
check_eq vm-boot-splat-booted-twice 1 "$(echo "$err" | grep -c 'while booting, before init ran; booting again')"

done_testing
