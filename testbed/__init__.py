# SPDX-License-Identifier: GPL-2.0-only
"""The testbed harness: hosts, settings journal, counters, netns and SSH backends."""
