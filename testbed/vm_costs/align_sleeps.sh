#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# align_sleeps.sh PREFIX OUT -- COMMAND...: the sleeping system calls of the standing guest's
# vCPU thread (QEMU's TCG thread of the guest of PREFIX) while the sender of COMMAND (a
# `lanloss bed run` point on that guest) runs: perf trace of clock_nanosleep (-icount align's
# sleeps: the guest's clock led real time by more than 3 ms and the thread sleeps the lead
# off), futex and ppoll, from the moment a lanloss-send appears in the namespace ${PREFIX}s1
# until none is left there. The trace is written to OUT, its last line "# traced S s" (the
# real seconds traced); align_sleeps.py reads it. COMMAND's exit status is the script's; on
# any failure OUT is not written.
#
# Needs perf and one standing vm guest of PREFIX with one vCPU (lanloss bed run --backend
# vm --vm-guests receivers --prefix PREFIX --keep-lan 60min ...). Only reads: the thread is
# traced, not changed (each traced call costs it a few microseconds).
set -euo pipefail
fail() {
	echo "align_sleeps.sh: $1" >&2
	exit 2
}
[ $# -ge 4 ] && [ "$3" = "--" ] || fail "usage: align_sleeps.sh PREFIX OUT -- COMMAND..."
prefix=$1 out=$2
shift 3
[[ $prefix =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{2,23}$ && $prefix != *..* ]] ||
	fail "PREFIX '$prefix' is not a lanloss prefix (3-24 of A-Z a-z 0-9 - _ ., like pm-)"
[ ! -e "$out" ] || fail "OUT '$out' exists (not overwritten)"
[ ! -e "$out.part" ] || fail "'$out.part' exists (the trace is written there first; not overwritten)"
command -v perf > /dev/null || fail "perf not found on PATH"
ip netns list | cut -d' ' -f1 | grep -qxF -- "${prefix}sw1" || fail "no namespace ${prefix}sw1: no standing guest of prefix $prefix"
ip netns list | cut -d' ' -f1 | grep -qxF -- "${prefix}s1" || fail "no namespace ${prefix}s1: the standing LAN of $prefix has no sender host s1"
# The guest's QEMU: its serial console is a file under the LAN's run directory, named by
# the prefix (testbed/vm.py).
mapfile -t qemus < <(pgrep -f -- "^qemu-system-x86_64 .* -serial file:/tmp/${prefix//./\\.}run-lan-" || true)
[ ${#qemus[@]} -eq 1 ] || fail "${#qemus[@]} QEMU processes of prefix $prefix (trace a LAN of one guest)"
vcpus=()
for task in /proc/"${qemus[0]}"/task/*; do
	[[ $(cat "$task/comm" 2> /dev/null) == *TCG ]] && vcpus+=("${task##*/}")
done
[ ${#vcpus[@]} -eq 1 ] || fail "QEMU ${qemus[0]} has ${#vcpus[@]} TCG vCPU threads (one is traced)"
senders() { ip netns pids "${prefix}s1" | xargs -r -n1 sh -c 'cat /proc/$0/comm 2> /dev/null' | grep -cx lanloss-send || true; }
[ "$(senders)" = 0 ] || fail "a lanloss-send already runs in ${prefix}s1 (its point would be traced in part)"

perf_pid=
cleanup() {
	[ -z "$perf_pid" ] || kill -INT "$perf_pid" 2> /dev/null || true
	rm -f -- "$out.part"
}
trap cleanup EXIT
"$@" &
command_pid=$!
while [ "$(senders)" = 0 ]; do
	kill -0 "$command_pid" 2> /dev/null || { wait "$command_pid" || exit $?; fail "COMMAND started no lanloss-send in ${prefix}s1"; }
	sleep 0.05
done
perf trace -e clock_nanosleep,futex,ppoll --tid "${vcpus[0]}" -o "$out.part" &
perf_pid=$!
start=$(date +%s%N)
while [ "$(senders)" != 0 ]; do sleep 0.05; done
end=$(date +%s%N)
if ! kill -INT "$perf_pid" 2> /dev/null; then
	echo "align_sleeps.sh: perf trace ended before the sender did; no trace written" >&2
	wait "$command_pid" || true # COMMAND's point runs to its end, not orphaned
	exit 1
fi
wait "$perf_pid" || true
perf_pid=
status=0
wait "$command_pid" || status=$?
[ $status -eq 0 ] || exit $status
ns=$((end - start))
printf '# traced %d.%03d s\n' $((ns / 1000000000)) $((ns / 1000000 % 1000)) >> "$out.part"
mv -- "$out.part" "$out"
trap - EXIT
