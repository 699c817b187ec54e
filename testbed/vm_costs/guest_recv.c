// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
/* guest_recv PORT COUNT [RCVBUF [SOAK]]: the guest's CPU time (/proc/stat), eth0
   interrupts and this reader's voluntary switches and CPU time between its first and its
   COUNTth datagram, by the guest's clock; COUNT 0 counts a SCHED_IDLE
   loop's turns for 10 s without traffic (SOAK 1: with traffic too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>

/* A SCHED_IDLE child that counts loop turns: the guest's spare instructions, exactly
   (icount: a turn is a fixed number of instructions; interrupts add none). */
static volatile unsigned long long *turns;
static pid_t soak(void) {
    turns = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t p = fork();
    if (p == 0) {
        struct sched_param sp = {0};
        sched_setscheduler(0, SCHED_IDLE, &sp);
        for (;;) (*turns)++;
    }
    return p;
}

static void cpu(long long v[8]) {
    FILE *f = fopen("/proc/stat", "r");
    memset(v, 0, 8 * sizeof(long long));
    if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) != 8) exit(3);
    fclose(f);
}
static long long irqs(void) {
    FILE *f = fopen("/proc/interrupts", "r");
    char line[1024];
    long long n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "eth0")) { char *p = strchr(line, ':'); n += atoll(p + 1); }
    fclose(f);
    return n;
}
static double ts(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    int port = atoi(argv[1]), want = atoi(argv[2]), rcvbuf = argc > 3 ? atoi(argv[3]) : 262144;
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = INADDR_ANY;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (bind(s, (struct sockaddr *)&a, sizeof a)) { perror("bind"); return 2; }
    static char buf[65536];
    long long c0[8], c1[8], i0, i1; struct rusage r0, r1; double w0, w1, p0, p1;
    long long got = 0, bytes = 0;
    int soaking = argc > 4 && atoi(argv[4]);
    pid_t soaker = soaking || want == 0 ? soak() : 0;
    static volatile unsigned long long none;
    if (!soaker) turns = &none;
    unsigned long long t0, t1;
    if (want == 0) {  /* baseline: no traffic, 10 s */
        sleep(1);
        t0 = *turns; double b0 = ts(CLOCK_MONOTONIC);
        sleep(10);
        t1 = *turns; double b1 = ts(CLOCK_MONOTONIC);
        kill(soaker, SIGKILL);
        printf("baseline wall %.6f turns %llu\n", b1 - b0, t1 - t0);
        return 0;
    }
    ssize_t n = recv(s, buf, sizeof buf, 0);
    t0 = *turns;
    cpu(c0); i0 = irqs(); getrusage(RUSAGE_SELF, &r0); w0 = ts(CLOCK_MONOTONIC); p0 = ts(CLOCK_PROCESS_CPUTIME_ID);
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (got < want - 1) {
        n = recv(s, buf, sizeof buf, 0);
        if (n < 0) break;
        got++; bytes += n;
    }
    t1 = *turns;
    if (soaker) kill(soaker, SIGKILL);
    p1 = ts(CLOCK_PROCESS_CPUTIME_ID); w1 = ts(CLOCK_MONOTONIC); getrusage(RUSAGE_SELF, &r1); i1 = irqs(); cpu(c1);
    printf("datagrams %lld bytes %lld wall %.6f proc_cpu %.6f irqs %lld nvcsw %ld nivcsw %ld",
           got, bytes, w1 - w0, p1 - p0, i1 - i0, r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
    const char *k[8] = {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"};
    for (int j = 0; j < 8; j++) printf(" %s %lld", k[j], c1[j] - c0[j]);
    printf(" turns %llu\n", t1 - t0);
    return 0;
}
