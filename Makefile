# SPDX-License-Identifier: MIT
# flipfence: every target delegates to scripts/, which install and build
# whatever is missing first. See README.md.

.PHONY: all demo check bench build setup kernel clean distclean

all: build

setup:
	@scripts/setup

# The kernel series `make build` and `make check` build and test, each with
# its debug and lean kernel (Documentation/building.rst).
SERIES ?= 6.1 6.12

kernel: setup
	@for s in $(SERIES); do scripts/build-kernel -s $$s all || exit 1; done

build: kernel
	@for s in $(SERIES); do scripts/build -s $$s all || exit 1; done

# The demo boots only the lean kernel: it builds that one (and the userspace),
# not the debug kernel `make check` also needs.
demo: setup
	@scripts/build-kernel lean
	@scripts/build lean userspace
	@scripts/demo

check: build
	@FLIPFENCE_BUILT=1 scripts/test $(foreach s,$(SERIES),-s $(s))

bench: build
	@scripts/bench

clean:
	rm -rf build
	$(MAKE) -s -C userspace clean 2>/dev/null || true

# Also forget the cached kernels and module builds (minutes to rebuild).
distclean: clean
	rm -rf "$${FLIPFENCE_CACHE:-$$HOME/.cache/flipfence}"
