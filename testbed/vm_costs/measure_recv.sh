#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# measure_recv.sh PREFIX RUN...: the guest's CPU time around lanloss-recv, the study's own
# reader, by its clock: what a receive call costs and what a datagram costs beyond it.
#
# Needs a standing vm guest (as measure.sh: lanloss bed run --backend vm --vm-guests
# receivers --prefix PREFIX --keep-lan 60min ...; r1 at 10.77.0.2, the sender's namespace
# PREFIXs1). A RUN is SIZE:PPS:BATCH:PATTERN (PATTERN cbr or burstN, lanloss-send's burst:N).
# For each, the guest runs lanloss-recv with the harness's arguments and --batch BATCH for
# 14 s of its clock, reading /proc/stat, eth0's interrupts and frames and UDP's
# RcvbufErrors just before and after (no ssh session into the guest in between: a login is
# work of its own), while lanloss-send sends 10 s of SIZE-byte datagrams at PPS from the
# sender's namespace as the harness does (CPU 0, SCHED_FIFO). BATCH stop: the reader, on a
# 4 KiB socket buffer, is stopped (SIGSTOP) 1 s after it starts and continued 12 s later,
# so the traffic's frames go through the stack to a full socket and are dropped there
# without a read: the guest's work per frame apart from the reader's. One line per run on
# stdout (fit_recv.py reads them): the reader's datagrams, calls (receive calls that
# returned datagrams) and voluntary switches, the guest's frames, interrupts, socket drops
# and /proc/stat's ticks. Traffic stays between the namespace and the guest this project
# made; the guest's files are removed after.
set -euo pipefail
fail() {
	echo "measure_recv.sh: $1" >&2
	exit 2
}
[ $# -ge 2 ] || fail "usage: measure_recv.sh PREFIX SIZE:PPS:BATCH:PATTERN..."
prefix=$1
shift
# the harness's prefix rule (testbed/runfolder.py, prefix_problem)
[[ $prefix =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{2,23}$ && $prefix != *..* ]] ||
	fail "PREFIX '$prefix' is not a lanloss prefix (3-24 of A-Z a-z 0-9 - _ ., like pm-)"
for run in "$@"; do
	[[ $run =~ ^[1-9][0-9]{0,4}:[1-9][0-9]{0,5}:([1-9][0-9]{0,3}|stop):(cbr|burst[1-9][0-9]{0,3})$ ]] ||
		fail "run '$run' is not SIZE:PPS:BATCH:PATTERN (like 64:1500:64:burst8)"
	size=${run%%:*}
	((size <= 1472)) || fail "run '$run': SIZE $size is more than one frame's 1472 bytes"
done
ip netns list | cut -d' ' -f1 | grep -qxF -- "${prefix}sw1" || fail "no namespace ${prefix}sw1: no standing guest of prefix $prefix"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools=$root/testbed/tools
make -s -C "$tools" lanloss-recv lanloss-send
guest() {
	ip netns exec "${prefix}sw1" ssh -i "$root/build/vm/id_ed25519" -p 2202 \
		-o UserKnownHostsFile="$root/build/vm/known_hosts" -o BatchMode=yes root@127.0.0.1 "$@"
}
gdir=/tmp/lanloss-measure-recv
# The guest's side: counters, the reader for 14 s of the guest's clock, counters again.
# shellcheck disable=SC2016  # expanded in the guest
# The counters are read after the reader whatever its exit: the host waits for them.
script='d=/tmp/lanloss-measure-recv
stat() {
	head -1 /proc/stat
	grep eth0 /proc/interrupts | tr -s " " | cut -d" " -f3
	cut -d" " -f1 /proc/uptime
	cat /sys/class/net/eth0/statistics/rx_packets
	grep "^Udp:" /proc/net/snmp | tail -1 | cut -d" " -f6  # RcvbufErrors
}
args="--port 9100 --bind 10.77.0.2 --proto udp --duration 14 --idle-timeout 0"
args="$args --stamp-clock realtime --json $d/recv.json"
sleep 1  # the ssh session that started this ends first: no ssh work in the window
stat > $d/before
if [ "$1" = stop ]; then
	# the traffic comes 2-12 s after the reader starts: all of it finds the reader stopped
	$d/lanloss-recv $args --rcvbuf 4096 --batch 64 &
	pid=$!  # the reader itself, not a subshell: SIGSTOP stops its threads
	sleep 1
	kill -STOP $pid
	sleep 12
	kill -CONT $pid
	wait $pid || true
else
	$d/lanloss-recv $args --rcvbuf 262144 --batch "$1"
fi
stat > $d/after'
guest "rm -rf $gdir && mkdir $gdir && cat > $gdir/lanloss-recv && chmod +x $gdir/lanloss-recv" < "$tools/lanloss-recv"
guest "cat > $gdir/run.sh" <<< "$script"
trap 'guest "rm -rf $gdir" || true' EXIT
for run in "$@"; do
	IFS=: read -r size pps batch pattern <<< "$run"
	guest "nohup sh $gdir/run.sh $batch > $gdir/out 2>&1 < /dev/null &"
	sleep 3
	ip netns exec "${prefix}s1" taskset -c 0 "$tools/lanloss-send" --realtime 50 --dst 10.77.0.2 \
		--port 9100 --payload "$size" --rate $((pps * size * 8)) --duration 10 \
		--pattern "${pattern/burst/burst:}" --stamp-clock realtime > /dev/null
	# the reader's 14 s end about 2 s after the traffic: no ssh before (its login is work)
	sleep 4
	waited=0
	until guest "test -s $gdir/after"; do
		((++waited <= 60)) || fail "run '$run': the guest's reader did not end within 60 s of its 14"
		sleep 1
	done
	line=$(guest "python3 - $gdir" < "$here/measure_recv_line.py")
	echo "size $size pps $pps batch $batch pattern $pattern $line"
	guest "rm -f $gdir/before $gdir/after $gdir/recv.json $gdir/out"
done
