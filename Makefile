# Thin wrapper over meson and the test/VM/kernel scripts. See README.md.
BUILD   ?= build
MESON   ?= meson
SHELL   := /bin/bash

.PHONY: all deps check hooks test demo bench kernel nvme-cli fuzz mutate install clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --buildtype=debugoptimized

deps:
	bash scripts/deps.sh

# The two commands of a first run, `make demo` and `make test`, install what
# is missing first (the deps step: idempotent, fast when nothing is).

# a skipped test fails too: tests/lib/meson-skips.py lists it
check: all
	$(MESON) test -C $(BUILD) --suite fast --print-errorlogs
	python3 tests/lib/meson-skips.py $(BUILD) >&2

# The test hooks (ZNP_TEST_MAP_KILL_AT, ZNP_TEST_FORK_FAIL, ZNP_TEST_CLAIM_HOLD, ZNP_FORCE_SYNC, ZNP_UBLK_USER_COPY, ZNP_TEST_UBLK_*) are built in only here.
hooks: $(BUILD)/build.ninja
	$(MESON) setup --reconfigure $(BUILD) -Dtest_hooks=true >/dev/null
	ninja -C $(BUILD)

test:
	bash scripts/deps.sh
	$(MAKE) hooks
	bash scripts/run-layers.sh

demo:
	bash scripts/deps.sh
	$(MAKE) all
	bash tests/vm/demo.sh

bench: hooks
	bash bench/run.sh

kernel:
	bash scripts/kernel-build.sh

# NVME_CLI_VERSION=2.3 (default, Debian's source) | 2.13 | 2.16 | 3.0-rc1 (vendor
# tarballs); NVME_CLI_SRC=<dir>: your own nvme-cli checkout (its version is read).
nvme-cli: all
	bash scripts/build-nvme-cli.sh $(if $(NVME_CLI_VERSION),--version=$(NVME_CLI_VERSION)) $(NVME_CLI_SRC)

fuzz:
	bash tests/fuzz/run.sh

# One-line mutants of the boundary code against the fast suite, in
# build-mutate/ (tests/README.md); not part of `make test`.
mutate:
	python3 scripts/mutate.py

install: all
	$(MESON) install -C $(BUILD)

# the Debian package build/deb/zns-npo2_*.deb (debian/; lintian errors fail)
.PHONY: deb
deb:
	bash scripts/build-deb.sh

# Debian's nvme-cli rebuilt with the plugin as a quilt patch:
# build/nvme-cli-deb/nvme-cli_*+znpo2.1_*.deb (lintian errors fail)
.PHONY: nvme-cli-deb
nvme-cli-deb:
	bash scripts/build-nvme-cli-deb.sh

clean:
	rm -rf $(BUILD) build-*
