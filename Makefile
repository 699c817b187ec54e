# SPDX-License-Identifier: GPL-2.0-only
# lanloss: two commands on a fresh machine.
#   make run   - set up, then the main job (sim + netns testbed sweep + fit + figures)
#   make test  - set up, then the test suite
# Set-up is idempotent: system packages (as root), a .venv/ with the locked Python packages
# (requirements.lock; `make lock` regenerates it) including the PyPI ns-3 wheel and lanloss
# installed editable, every C++ target under build/, the C tools.

SHELL   := /bin/bash
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
JOBS    ?= $(shell nproc)
STAMP   := $(VENV)/.installed
LOCK    := requirements.lock
NS3_PREFIX = $(shell $(VPY) -c 'import ns3; print(list(ns3.__path__)[0])')

.PHONY: all setup sysdeps venv lock build cxx ctools vm-image run test test-fast bench lint format clean

all: setup

setup: sysdeps venv build

sysdeps:
	@bash testbed/install-deps.sh

# The Python packages come from requirements.lock: exact versions with their hashes, for the
# extras [sim,dev,workflow] of pyproject.toml and everything they need; lanloss itself is
# installed editable on top, without dependencies. A changed lock reinstalls.
venv: $(STAMP)
$(STAMP): pyproject.toml $(LOCK)
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q --require-hashes -r $(LOCK)
	$(VPY) -m pip install -q --no-deps -e .
	@touch $@

# Regenerate the lock from pyproject.toml with uv (pinned, in its own venv under build/):
# versions already locked stay unless pyproject.toml excludes them; `make lock UPGRADE=1`
# moves every package to the newest version pyproject.toml allows.
LOCKTOOLS := build/locktools
UV_VERSION := 0.13.9
lock:
	@test -x $(LOCKTOOLS)/bin/pip || $(PYTHON) -m venv $(LOCKTOOLS)
	@$(LOCKTOOLS)/bin/uv --version 2>/dev/null | grep -qx 'uv $(UV_VERSION)' || \
		$(LOCKTOOLS)/bin/pip install -q 'uv==$(UV_VERSION)'
	$(LOCKTOOLS)/bin/uv pip compile pyproject.toml --extra sim --extra dev --extra workflow \
		--quiet --generate-hashes --python $(PYTHON) --custom-compile-command 'make lock' \
		$(if $(UPGRADE),--upgrade) -o $(LOCK)
	@# pip installs a package's C headers under include/site/pythonX.Y/<the name as the
	@# requirement spells it>; cppyy looks for CPyCppyy/API.h there, uv writes names lowercase.
	sed -i 's/^cpycppyy==/CPyCppyy==/' $(LOCK)

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
