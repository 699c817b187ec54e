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

.PHONY: all setup sysdeps venv bytecode lock build cxx ctools vm-image run test test-fast coverage bench lint format clean
.PHONY: ns3-tree-fetch ns3-tree-build ns3-tree-test

all: setup

setup: sysdeps venv build bytecode

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

# lanloss's own bytecode, written here: where PYTHONDONTWRITEBYTECODE is set, every
# `lanloss` process (one per simulation or testbed point) would otherwise compile each
# module it imports anew. compileall skips what is up to date.
bytecode: $(STAMP)
	$(VPY) -m compileall -q -j 0 lanloss analysis testbed > /dev/null

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

# The ns-3 tree's cold build (about 8.5 minutes of one core) runs beside the suite at the
# lowest priority (nice 19), on every core: it takes only what the tests leave idle, so the
# simulator-bound tests run as fast as alone. The untimed testbed tests, mostly waiting on
# QEMU guests, run before tests/test_ns3_tree.py (tests/conftest.py), which takes the same
# lock and so waits for that build instead of starting a second one; the timing-bound
# testbed tests come after it, on a machine the build no longer loads. The build's output:
# build/ns3-tree-build.log.
test: setup
	@mkdir -p build
	@(flock $(NS3_TREE_LOCK) nice -n 19 $(MAKE) --no-print-directory ns3-tree-build JOBS=$(JOBS) \
		> build/ns3-tree-build.log 2>&1 &)
	$(VENV)/bin/pytest -q -ra --durations=15 -m "not coverage"

# The fit's interval coverage on synthetic data (tests/analysis/test_fit_coverage.py).
coverage: setup
	$(VENV)/bin/pytest -q -ra -m coverage

test-fast: setup
	$(VENV)/bin/pytest -q -ra -m "not slow and not coverage"

# The module inside an ns-3 source tree (docs/building.md): Debian's ns-3 3.37 source
# (bookworm's ns3 3.37-2; the tarball's sha256 is the one its ns3_3.37-2.dsc lists), unpacked
# under build/ns3-tree with models/ linked as contrib/lanloss and ns3-scratch/ as
# scratch/lanloss-sim; configured with only the modules lanloss needs (and only lanloss's own
# tests and examples) in ns-3's debug profile (asserts and logging compiled in, as ns-3's
# own test runs; -O0 builds in two thirds of the release profile's CPU time), built, then
# every lanloss suite under ns-3's test.py, the example and
# the scenario program once (its record: build/ns3-tree/lanloss-sim.json). The tarball and
# the built tree are kept: a second run rebuilds only what changed. tests/test_ns3_tree.py
# runs this target.
NS3_TREE_VERSION := 3.37
NS3_TREE_TARBALL := ns3_$(NS3_TREE_VERSION).orig.tar.bz2
NS3_TREE_SHA256  := dfa5ca1994ff3dbe1d4b23cef54e05e6079f5707a2ed6055f717bdd5b458c38d
NS3_TREE_MIRROR  ?= http://deb.debian.org/debian
NS3_TREE_CACHE   := build/ns3-tree
NS3_TREE         := $(NS3_TREE_CACHE)/ns-$(NS3_TREE_VERSION)
NS3_TREE_LOCK    := build/ns3-tree.lock
NS3_TREE_CONFIG  := -d debug --enable-modules=lanloss --enable-tests --enable-examples \
                    --filter-module-examples-and-tests=lanloss --disable-python --disable-werror
NS3_TREE_SUITES   = $(shell sed -n 's/.*TestSuite."\(lanloss-[a-z0-9-]*\)".*/\1/p' models/test/*.cc)
# One small point: two 60 Mbit/s senders into one 100 Mbit/s receiver port, ~2000 datagrams
# of which the switch's egress buffer drops some.
NS3_TREE_SIM_ARGS := --senders=2 --rate=60Mbps --duration=0.2s

ns3-tree-fetch: $(NS3_TREE_CACHE)/$(NS3_TREE_TARBALL)
$(NS3_TREE_CACHE)/$(NS3_TREE_TARBALL):
	@mkdir -p $(@D)
	@curl -fsSL --retry 2 -o $@.part $(NS3_TREE_MIRROR)/pool/main/n/ns3/$(NS3_TREE_TARBALL) || \
		{ rm -f $@.part; echo "ns3-tree: download failed: $(NS3_TREE_MIRROR)/pool/main/n/ns3/$(NS3_TREE_TARBALL)"; exit 1; }
	@echo "$(NS3_TREE_SHA256)  $@.part" | sha256sum -c --quiet || \
		{ rm -f $@.part; echo "ns3-tree: $(NS3_TREE_TARBALL) does not have sha256 $(NS3_TREE_SHA256)"; exit 1; }
	@mv $@.part $@

# Only ns-3 itself is unpacked (not the allinone bundle's netanim, bake, ...).
$(NS3_TREE)/.unpacked: $(NS3_TREE_CACHE)/$(NS3_TREE_TARBALL)
	rm -rf $(NS3_TREE) && mkdir -p $(NS3_TREE)
	tar xjf $< -C $(NS3_TREE) --strip-components=2 ns-allinone-$(NS3_TREE_VERSION)/ns-$(NS3_TREE_VERSION)
	ln -sfn ../../../../models $(NS3_TREE)/contrib/lanloss
	ln -sfn ../../../../ns3-scratch $(NS3_TREE)/scratch/lanloss-sim
	@touch $@

# Configured again only when the flags change; later edits re-run CMake by themselves.
$(NS3_TREE)/.configured: $(NS3_TREE)/.unpacked
	@if [ "$$(cat $@ 2>/dev/null)" != "$(NS3_TREE_CONFIG)" ]; then \
		cd $(NS3_TREE) && ./ns3 configure $(NS3_TREE_CONFIG) > configure.log 2>&1 || \
			{ cat configure.log; exit 1; }; \
		echo "$(NS3_TREE_CONFIG)" > .configured; \
	fi

# ./ns3 build runs cores - 1 jobs; CMake directly uses them all.
ns3-tree-build: $(NS3_TREE)/.configured
	cmake --build $(NS3_TREE)/cmake-cache -j $(JOBS)

ns3-tree-test: ns3-tree-build
	cd $(NS3_TREE) && for suite in $(NS3_TREE_SUITES); do \
		./test.py --no-build --suite=$$suite || exit 1; done
	cd $(NS3_TREE) && ./ns3 run --no-build lanloss-star-example
	cd $(NS3_TREE) && ./ns3 run --no-build \
		"lanloss-sim $(NS3_TREE_SIM_ARGS) --out=$(CURDIR)/$(NS3_TREE_CACHE)/lanloss-sim.json"
	@echo "ns3-tree: $(words $(NS3_TREE_SUITES)) lanloss suites passed in ns-$(NS3_TREE_VERSION); scenario record $(NS3_TREE_CACHE)/lanloss-sim.json"

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
