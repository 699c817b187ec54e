// SPDX-License-Identifier: GPL-2.0-only
/*
 * procnet.c - a UDP socket's drop count from /proc/net/udp. Unlike the
 * SO_RXQ_OVFL value, which only advances when a later datagram is read, this
 * includes drops after the last datagram received (udp4_format_sock prints
 * sk_drops in the last column).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/stat.h>

#include "recv.h"

int64_t ll_udp_socket_drops(int fd, uint16_t port)
{
	unsigned long inode, drops;
	unsigned int lport;
	struct stat st;
	char line[512];
	int64_t found = -1;
	FILE *f;

	if (fstat(fd, &st) < 0)
		return -1;
	/* /proc/net follows the reading thread's network namespace. */
	f = fopen("/proc/net/udp", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode
		 * ref pointer drops */
		if (sscanf(line,
			   " %*d: %*x:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %*u %*u %lu %*d %*s %lu",
			   &lport, &inode, &drops) != 3)
			continue;
		if (lport == port && inode == (unsigned long)st.st_ino) {
			found = (int64_t)drops;
			break;
		}
	}
	fclose(f);
	return found;
}
