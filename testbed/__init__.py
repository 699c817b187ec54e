"""The testbed harness: hosts, settings journal, counters, netns and SSH backends."""
