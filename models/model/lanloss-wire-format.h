// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * What the simulator, the testbed's C tools and the Python harness share on the wire:
 * the port, the multicast group and the payload header. One definition, plain C so that
 * the C tools (testbed/tools/wire.h) include it as well as the ns-3 module;
 * lanloss/header_constants.py reads it. Nothing else may spell these values
 * (tests/test_header_constants.py).
 *
 * The payload header, little-endian, at the start of every datagram that is long enough:
 *   offset 0  u64 sequence number (a payload of at least LANLOSS_HDR_SEQ bytes)
 *   offset 8  u64 send time, ns of CLOCK_MONOTONIC (shared by every namespace)
 *   offset 16 u32 flow id
 *   offset 20 u32 LANLOSS_MAGIC ("LLSS"): a full header (at least LANLOSS_HDR_FULL bytes)
 */
#ifndef LANLOSS_WIRE_FORMAT_H
#define LANLOSS_WIRE_FORMAT_H

/** The UDP port of the traffic (source and sink). */
#define LANLOSS_PORT 5001
/** The IPv4 multicast group of multicast runs. */
#define LANLOSS_GROUP "239.77.0.1"
/** The header's last field: "LLSS" read as a little-endian u32. */
#define LANLOSS_MAGIC 0x4C4C5353u
/** Payload bytes from which a datagram carries its sequence number. */
#define LANLOSS_HDR_SEQ 8u
/** Payload bytes from which a datagram carries the full header. */
#define LANLOSS_HDR_FULL 24u

#endif /* LANLOSS_WIRE_FORMAT_H */
