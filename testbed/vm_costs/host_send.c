// SPDX-License-Identifier: GPL-2.0-only
/* host_send IP PORT SIZE PPS COUNT: COUNT datagrams of SIZE bytes, paced at PPS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>
int main(int argc, char **argv) {
    const char *ip = argv[1]; int port = atoi(argv[2]), size = atoi(argv[3]);
    double pps = atof(argv[4]); long count = atol(argv[5]);
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET; a.sin_port = htons(port); inet_pton(AF_INET, ip, &a.sin_addr);
    static char buf[65536]; memset(buf, 0x5a, sizeof buf);
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    long long ns = t.tv_sec * 1000000000LL + t.tv_nsec, step = (long long)(1e9 / pps);
    long fails = 0;
    for (long i = 0; i < count; i++) {
        ns += step;
        struct timespec d = {ns / 1000000000LL, ns % 1000000000LL};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL);
        if (sendto(s, buf, size, 0, (struct sockaddr *)&a, sizeof a) < 0) fails++;
    }
    printf("sent %ld failed %ld\n", count - fails, fails);
    return 0;
}
