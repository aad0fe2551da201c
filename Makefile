# Thin wrapper over meson and the test/VM/kernel scripts. See README.md.
BUILD   ?= build
MESON   ?= meson
SHELL   := /bin/bash

.PHONY: all deps check test demo bench kernel nvme-cli fuzz install clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --buildtype=debugoptimized

deps:
	bash scripts/deps.sh

check: all
	$(MESON) test -C $(BUILD) --suite fast --print-errorlogs

test: all
	bash scripts/run-layers.sh

demo: all
	bash tests/vm/demo.sh

bench: all
	bash bench/run.sh

kernel:
	bash scripts/kernel-build.sh

# NVME_CLI_VERSION=2.3 (default, Debian's source) | 2.13 | 2.16 | 3.0-rc1 (vendor
# tarballs); NVME_CLI_SRC=<dir>: your own nvme-cli checkout (its version is read).
nvme-cli: all
	bash scripts/build-nvme-cli.sh $(if $(NVME_CLI_VERSION),--version=$(NVME_CLI_VERSION)) $(NVME_CLI_SRC)

fuzz:
	bash tests/fuzz/run.sh

install: all
	$(MESON) install -C $(BUILD)

clean:
	rm -rf $(BUILD) build-*
