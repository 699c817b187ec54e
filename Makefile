# SPDX-License-Identifier: GPL-2.0-only
# lanloss: two commands on a fresh machine.
#   make run   - set up, then the main job (sim + netns testbed sweep + fit + figures)
#   make test  - set up, then the test suite
# Set-up is idempotent: system packages (as root), a .venv/ with lanloss installed
# editable and the PyPI ns-3 wheel, every C++ target under build/, the C tools.

SHELL   := /bin/bash
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
JOBS    ?= $(shell nproc)
STAMP   := $(VENV)/.installed
NS3_PREFIX = $(shell $(VPY) -c 'import ns3; print(list(ns3.__path__)[0])')

.PHONY: all setup sysdeps venv build cxx ctools vm-image run test test-fast bench lint format clean

all: setup

setup: sysdeps venv build

sysdeps:
	@bash testbed/install-deps.sh

venv: $(STAMP)
$(STAMP): pyproject.toml
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[sim,dev,workflow]'
	@touch $@

build: cxx ctools

# C++: the ns-3 module, its tests, the scenario programs, benchmarks; then the module
# is copied into the wheel's prefix so `from ns import ns` loads it (docs/building.md).
cxx: $(STAMP)
	cmake -S . -B build -DNS3_PREFIX=$(NS3_PREFIX) -DPython3_EXECUTABLE=$(abspath $(VPY)) -DCMAKE_BUILD_TYPE=Release > build-cmake.log 2>&1 || (cat build-cmake.log; exit 1)
	cmake --build build -j $(JOBS)
	$(VPY) -m lanloss.ns3_install build

ctools:
	$(MAKE) -C testbed/tools

# The vm backend's guest image (testbed/vmimage.py): apt-get download of Debian's kernel
# (linux-image-*-amd64, ~70 MB) and busybox-static (~1 MB) into build/vm/debs, then a
# 10 MB kernel + initramfs. Cached; `lanloss bed run --backend vm` and the VM tests build
# it on first use, so `make setup` does not download it.
vm-image: $(STAMP)
	$(VPY) -m lanloss.testbed.vmimage

# The main job: the default study (config/config.yaml) through the Snakemake workflow:
# a simulation sweep and a netns testbed sweep (root) of the same points, the table, the
# fit, the figures, then the report (results/report.zip). Interrupted? `make run`
# again resumes with the points that have no record yet. Other studies:
#   .venv/bin/snakemake --profile profiles/local --config studies=[NAME]
SNAKEMAKE := $(VENV)/bin/snakemake --profile profiles/local --cores $(JOBS)
run: setup
	$(SNAKEMAKE)
	$(SNAKEMAKE) --report results/report.zip
	@echo "lanloss: results under results/ (runs, tables, fits, figures); report: results/report.zip"

test: setup
	$(VENV)/bin/pytest -q -ra

test-fast: setup
	$(VENV)/bin/pytest -q -ra -m "not slow"

bench: setup
	$(VPY) bench/run.py

lint:
	$(VENV)/bin/ruff check lanloss analysis testbed tests bench workflow/scripts
	$(VENV)/bin/ruff format --check lanloss analysis testbed tests bench workflow/scripts

format:
	$(VENV)/bin/ruff format lanloss analysis testbed tests bench workflow/scripts

clean:
	rm -rf build build-cmake.log
	$(MAKE) -C testbed/tools clean
