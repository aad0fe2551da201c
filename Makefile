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

# The two commands of a first run, `make demo` and `make test`, install what
# is missing first (the deps step: idempotent, fast when nothing is).

check: all
	$(MESON) test -C $(BUILD) --suite fast --print-errorlogs

test:
	bash scripts/deps.sh
	$(MAKE) all
	bash scripts/run-layers.sh

demo:
	bash scripts/deps.sh
	$(MAKE) all
	bash tests/vm/demo.sh

bench: all
	bash bench/run.sh

kernel:
	bash scripts/kernel-build.sh

nvme-cli: all
	bash scripts/build-nvme-cli.sh $(NVME_CLI_SRC)

fuzz:
	bash tests/fuzz/run.sh

install: all
	$(MESON) install -C $(BUILD)

clean:
	rm -rf $(BUILD) build-*
