#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# measure.sh PREFIX RX_USECS [SIZE:PPS ...]: the guest's CPU cost of received datagrams, by
# its clock, with its e1000's rx-usecs at RX_USECS (400: ITR 2500; 0: the emulation's
# interrupt floor; 3: the driver's default, adaptive) for the runs, restored after.
#
# Needs a standing vm guest (lanloss bed run --backend vm --vm-guests receivers --prefix
# PREFIX --keep-lan 60min ...; its receiver r1 at 10.77.0.2, its sender namespace
# PREFIXs1). Builds guest_recv statically, copies it into the guest, and for each SIZE:PPS
# sends 10 s of datagrams from the sender's namespace while guest_recv counts the guest's
# idle time, eth0 interrupts and its own wake-ups; one line per run on stdout (fit.py
# reads them). Traffic stays between the namespace and the guest this project made.
set -euo pipefail
fail() {
	echo "measure.sh: $1" >&2
	exit 2
}
[ $# -ge 2 ] || fail "usage: measure.sh PREFIX RX_USECS [SIZE:PPS ...]"
prefix=$1 usecs=$2
shift 2
# Every value reaches a command line here and in the guest: refuse all but these shapes.
# the harness's prefix rule (testbed/runfolder.py, prefix_problem)
[[ $prefix =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{2,23}$ && $prefix != *..* ]] ||
	fail "PREFIX '$prefix' is not a lanloss prefix (3-24 of A-Z a-z 0-9 - _ ., like pm-)"
[[ $usecs =~ ^[0-9]{1,5}$ ]] || fail "RX_USECS '$usecs' is not a whole number of microseconds"
if [ $# -eq 0 ]; then
	set -- 64:500 1472:500 64:1500 1472:1500 64:3000 1472:3000 512:1500 64:1500 1472:1500
fi
for run in "$@"; do
	[[ $run =~ ^[1-9][0-9]{0,4}:[1-9][0-9]{0,5}$ ]] || fail "run '$run' is not SIZE:PPS (whole numbers from 1)"
done
ip netns list | cut -d' ' -f1 | grep -qxF -- "${prefix}sw1" || fail "no namespace ${prefix}sw1: no standing guest of prefix $prefix"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/vm-costs.XXXXXX)
trap 'rm -rf -- "$work"' EXIT
gcc -O2 -static -o "$work/guest_recv" "$here/guest_recv.c"
gcc -O2 -o "$work/host_send" "$here/host_send.c"
guest() {
	ip netns exec "${prefix}sw1" ssh -i "$root/build/vm/id_ed25519" -p 2202 \
		-o UserKnownHostsFile="$root/build/vm/known_hosts" -o BatchMode=yes root@127.0.0.1 "$@"
}
guest 'cat > /tmp/guest_recv && chmod +x /tmp/guest_recv' < "$work/guest_recv"
before=$(guest "ethtool -c eth0" | awk '/^rx-usecs:/ {print $2}')
[[ $before =~ ^[0-9]{1,5}$ ]] || fail "the guest's rx-usecs '$before' is not a number"
restore() {
	guest "ethtool -C eth0 rx-usecs $before; rm -f /tmp/guest_recv /tmp/guest_recv.out"
	rm -rf -- "$work"
}
trap restore EXIT
guest "ethtool -C eth0 rx-usecs $usecs"
for run in "$@"; do
	size=${run%%:*} pps=${run#*:}
	count=$((pps * 10 + 1))
	guest "nohup /tmp/guest_recv 9100 $count > /tmp/guest_recv.out 2>&1 < /dev/null &"
	sleep 1
	ip netns exec "${prefix}s1" "$work/host_send" 10.77.0.2 9100 "$size" "$pps" "$count" > /dev/null
	sleep 3
	echo "size $size pps $pps rx_usecs $usecs $(guest cat /tmp/guest_recv.out)"
done
