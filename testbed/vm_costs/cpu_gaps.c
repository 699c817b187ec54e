// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
/* cpu_gaps SECONDS [MIN_US]: how long, and how often, an ordinary process that always
   wants the CPU is kept off it: a nice-0 loop reads CLOCK_MONOTONIC and counts every step
   of at least MIN_US (200) as a gap, the time something else ran (an interrupt, a
   softirq, a kernel thread, another process). In a guest it is the guest's clock, so
   QEMU's own sleeps (align) are no gaps. Prints one line: the gaps by length, their
   total, the longest and the loop's turns. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Upper edges of the length classes, in microseconds; the last class is open. */
static const long long edge_us[] = {500, 1000, 2000, 5000, 10000, 20000};
#define CLASSES (sizeof(edge_us) / sizeof(edge_us[0]) + 1)

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static unsigned class_of(long long gap_us) {
    unsigned c = 0;
    while (c < CLASSES - 1 && gap_us >= edge_us[c]) c++;
    return c;
}

int main(int argc, char **argv) {
    char *end;
    double seconds = argc > 1 ? strtod(argv[1], &end) : -1;
    if (argc < 2 || argc > 3 || *end || !(seconds > 0 && seconds <= 3600)) {
        fprintf(stderr, "usage: cpu_gaps SECONDS [MIN_US] (SECONDS in (0, 3600])\n");
        return 2;
    }
    long long min_us = argc > 2 ? strtoll(argv[2], &end, 10) : 200;
    if (argc > 2 && (*end || min_us < 1 || min_us > 1000000)) {
        fprintf(stderr, "cpu_gaps: MIN_US '%s' is not a whole number in 1..1000000\n", argv[2]);
        return 2;
    }
    long long count[CLASSES] = {0}, total_ns = 0, longest_ns = 0, turns = 0;
    long long start = now_ns(), stop = start + (long long)(seconds * 1e9), last = start;
    for (long long t = start; t < stop; last = t, turns++) {
        t = now_ns();
        long long step = t - last;
        if (step >= min_us * 1000) {
            count[class_of(step / 1000)]++;
            total_ns += step;
            if (step > longest_ns) longest_ns = step;
        }
    }
    printf("seconds %.3f min_us %lld turns %lld", (last - start) / 1e9, min_us, turns);
    for (unsigned c = 0; c < CLASSES; c++) {
        if (c < CLASSES - 1)
            printf(" lt%lld %lld", edge_us[c], count[c]);
        else
            printf(" ge%lld %lld", edge_us[c - 1], count[c]);
    }
    printf(" gap_ms %.3f longest_ms %.3f\n", total_ns / 1e6, longest_ns / 1e6);
    return 0;
}
