# SPDX-License-Identifier: MIT
# flipfence: every target delegates to scripts/, which install and build
# whatever is missing first. See README.md.

.PHONY: all demo check bench build setup kernel clean distclean

all: build

setup:
	@scripts/setup

kernel: setup
	@scripts/build-kernel all

build: kernel
	@scripts/build all

# The demo boots only the lean kernel: it builds that one (and the userspace),
# not the debug kernel `make check` also needs.
demo: setup
	@scripts/build-kernel lean
	@scripts/build lean userspace
	@scripts/demo

check: build
	@scripts/test

bench: build
	@scripts/bench

clean:
	rm -rf build
	$(MAKE) -s -C userspace clean 2>/dev/null || true

# Also forget the cached kernels and module builds (minutes to rebuild).
distclean: clean
	rm -rf "$${FLIPFENCE_CACHE:-$$HOME/.cache/flipfence}"
