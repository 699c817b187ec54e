#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# napi_trace.sh PREFIX SECONDS OUT -- COMMAND...: the guest kernel's own record of its data
# NIC's interrupts and NAPI polls while COMMAND runs here (a `lanloss bed run` point on the
# standing guest of PREFIX): ftrace's irq:irq_handler_entry (eth0's IRQ only) and
# napi:napi_poll (each poll's frames taken, at its end, after e1000_clean has unmasked the
# interrupt), stamped by the guest's clock, for SECONDS from COMMAND's start; the trace is
# written to OUT (napi_trace.py reads it) and the guest's tracing is put back as a booted
# guest has it (off, no events, the default buffer; tracefs stays mounted).
#
# Needs a standing vm guest (lanloss bed run --backend vm --vm-guests receivers --prefix
# PREFIX --keep-lan 60min ...). Each event costs the guest a little CPU (two per interrupt):
# the points traced are not the study's points, only their interrupts' structure.
set -euo pipefail
fail() {
	echo "napi_trace.sh: $1" >&2
	exit 2
}
[ $# -ge 5 ] && [ "$4" = "--" ] || fail "usage: napi_trace.sh PREFIX SECONDS OUT -- COMMAND..."
prefix=$1 seconds=$2 out=$3
shift 4
[[ $prefix =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{2,23}$ && $prefix != *..* ]] ||
	fail "PREFIX '$prefix' is not a lanloss prefix (3-24 of A-Z a-z 0-9 - _ ., like pm-)"
[[ $seconds =~ ^[1-9][0-9]?$ ]] || fail "SECONDS '$seconds' is not a whole number from 1 to 99"
[ ! -e "$out" ] || fail "OUT '$out' exists (not overwritten)"
[ ! -e "$out.part" ] || fail "'$out.part' exists (the trace is written there first; not overwritten)"
ip netns list | cut -d' ' -f1 | grep -qxF -- "${prefix}sw1" || fail "no namespace ${prefix}sw1: no standing guest of prefix $prefix"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
guest() {
	ip netns exec "${prefix}sw1" ssh -i "$root/build/vm/id_ed25519" -p 2202 \
		-o UserKnownHostsFile="$root/build/vm/known_hosts" -o BatchMode=yes root@127.0.0.1 "$@"
}
irq=$(guest "grep eth0 /proc/interrupts" | awk '{sub(":", "", $1); print $1; exit}')
[[ $irq =~ ^[0-9]+$ ]] || fail "the guest's eth0 IRQ '$irq' is not a number"
# The guest's script: tracing is off in a booted guest; it is left off, its buffer empty.
guest "cat > /tmp/napi_trace.sh" <<GUEST
T=/sys/kernel/tracing
[ -e \$T/tracing_on ] || mount -t tracefs nodev \$T
echo 0 > \$T/tracing_on
echo > \$T/trace
echo 16384 > \$T/buffer_size_kb
echo 'irq == $irq' > \$T/events/irq/irq_handler_entry/filter
echo 1 > \$T/events/irq/irq_handler_entry/enable
echo 1 > \$T/events/napi/napi_poll/enable
echo 1 > \$T/tracing_on
sleep $seconds
echo 0 > \$T/tracing_on
cat \$T/trace > /tmp/napi_trace.out
echo 0 > \$T/events/irq/irq_handler_entry/enable
echo 0 > \$T/events/napi/napi_poll/enable
echo 0 > \$T/events/irq/irq_handler_entry/filter
echo > \$T/trace
echo 1408 > \$T/buffer_size_kb
echo done >> /tmp/napi_trace.out
GUEST
cleanup() { guest "rm -f /tmp/napi_trace.sh /tmp/napi_trace.out" || true; }
trap cleanup EXIT
guest "nohup sh /tmp/napi_trace.sh > /dev/null 2>&1 < /dev/null &"
"$@"
for _ in $(seq 1 $((seconds + 30))); do
	guest "tail -n 1 /tmp/napi_trace.out 2>/dev/null" | grep -qx done && break
	sleep 1
done
guest "cat /tmp/napi_trace.out" > "$out.part"
tail -n 1 "$out.part" | grep -qx done || fail "the guest's trace did not finish within $((seconds + 30)) s"
mv -- "$out.part" "$out"
