# SPDX-License-Identifier: MIT
# Host unit tests of a measuring tool's statistics and reports (fliplat,
# presentlat): one program per tests/$(TOOL)-unit/*.c, linked against
# build/$(TOOL)/lib$(TOOL)-report.a and build/report/libreport.a, into
# build/tests/$(TOOL)-unit/. A Makefile sets TOOL, then includes this.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
SRC := $(TOP)/tests/$(TOOL)-unit
OUT := $(TOP)/build/tests/$(TOOL)-unit

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11
CPPFLAGS += -D_GNU_SOURCE -I$(TOP)/userspace/$(TOOL) -I$(TOP)/userspace/report -MMD -MP

REPORT := $(TOP)/build/$(TOOL)/lib$(TOOL)-report.a
LIBREPORT := $(TOP)/build/report/libreport.a
TESTS := $(patsubst $(SRC)/%.c,$(OUT)/%,$(wildcard $(SRC)/*.c))

.PHONY: all clean FORCE
all: $(TESTS)

$(OUT)/%: $(SRC)/%.c $(REPORT) $(LIBREPORT) | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(REPORT) $(LIBREPORT) -lm

# userspace/Makefile owns the libraries; ask it, so that the order does not matter.
$(REPORT): FORCE
	@$(MAKE) --no-print-directory -C $(TOP)/userspace $(TOOL)

$(OUT):
	mkdir -p $@

clean:
	rm -rf $(OUT)

-include $(TESTS:=.d)
