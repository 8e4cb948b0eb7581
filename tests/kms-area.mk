# SPDX-License-Identifier: MIT
# Shared by the test areas whose programs use the KMS test helpers
# (tests/kms/kms.c), the result framework (tests/lib/check.c), libsync and
# libdrm: tests/kms itself and the others. A Makefile sets AREA (its
# directory under tests/) and PROGS (one program per PROG.c), then includes
# this; everything lands in build/tests/$(AREA)/. A program that needs
# objects of its own sets EXTRA_OBJS for its target (tests/kms/Makefile).

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
SRC := $(TOP)/tests/$(AREA)
OUT := $(TOP)/build/tests/$(AREA)

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -pthread
CPPFLAGS += -D_GNU_SOURCE -I$(TOP)/tests/kms -I$(TOP)/userspace/libsync -MMD -MP
CPPFLAGS += $(shell $(PKG_CONFIG) --cflags libdrm)
LDLIBS += $(shell $(PKG_CONFIG) --libs libdrm) -lm -pthread

LIBSYNC := $(TOP)/build/libsync/libsync.a
HELPER_OBJS := $(OUT)/kms.o $(OUT)/check.o

.PHONY: all clean FORCE
all: $(PROGS:%=$(OUT)/%)

$(OUT)/%: $(SRC)/%.c $(HELPER_OBJS) $(LIBSYNC) | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(EXTRA_OBJS) $(HELPER_OBJS) $(LIBSYNC) $(LDFLAGS) $(LDLIBS)

# The helpers are compiled per area, so that each area stands alone.
$(OUT)/kms.o: $(TOP)/tests/kms/kms.c | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/check.o: $(TOP)/tests/lib/check.c | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# userspace/Makefile owns libsync; ask it, so that the order does not matter.
$(LIBSYNC): FORCE
	@$(MAKE) --no-print-directory -C $(TOP)/userspace libsync

$(OUT):
	mkdir -p $@

clean:
	rm -rf $(OUT)

-include $(OUT)/*.d
