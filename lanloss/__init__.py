# SPDX-License-Identifier: GPL-2.0-only
"""lanloss: at what rate, size, buffer and flow-control setting does a switched
Ethernet start to lose UDP packets, where, and how much."""

__version__ = "0.1.0"
