#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# System packages lanloss needs, installed once (Debian; needs root to install).
# tshark reads the sim's pcaps; iproute2/ethtool/iperf3/openssh-server are the
# testbed's tools; iputils-ping for connectivity checks; tcpdump for bench/bed_tools.py;
# qemu-system-x86 runs the vm backend's guests (17 MB download, 85 MB installed).
# snmp (snmpget, snmpbulkwalk) reads managed switches' counters; snmpd serves the netns
# backend's emulated switches over SNMP (--switch-snmp; its tests).
# curl and bzip2 fetch and unpack the ns-3 source of `make ns3-tree-test`.
# doxygen builds the ns-3 module's API docs (models/doc/Doxyfile; tests/test_api_docs.py).
set -euo pipefail
need=()
for pair in tshark:tshark ip:iproute2 ethtool:ethtool iperf3:iperf3 sshd:openssh-server \
            ping:iputils-ping tcpdump:tcpdump tc:iproute2 cmake:cmake g++:g++ make:make \
            curl:curl bzip2:bzip2 doxygen:doxygen \
            qemu-system-x86_64:qemu-system-x86 snmpget:snmp snmpd:snmpd; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ]; then need+=("$pkg"); fi
done
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "lanloss: missing system packages (${need[*]}); install them as root: apt-get install ${need[*]}" >&2
  exit 0
fi
echo "lanloss: installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
