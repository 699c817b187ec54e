#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Debian packages for running the workflow on a one-node Slurm "cluster" on this machine
# (tests/workflow/test_slurm.py; docs/slurm.md): slurm-wlm (slurmctld, slurmd,
# sbatch, squeue) and munge (authentication). Installed once, as root; the daemons are
# not started here (the test starts and stops its own).
set -euo pipefail
need=()
for pair in slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-wlm munged:munge; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ]; then need+=("$pkg"); fi
done
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "lanloss: missing ${need[*]}; install as root: apt-get install slurm-wlm munge" >&2
  exit 1
fi
echo "lanloss: installing $(printf '%s\n' "${need[@]}" | sort -u | tr '\n' ' ')"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# The postinst scripts do not start the daemons in a container ("policy-rc.d denied").
apt-get install -y -q --no-install-recommends $(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
