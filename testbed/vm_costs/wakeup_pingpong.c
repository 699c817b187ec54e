// SPDX-License-Identifier: GPL-2.0-only
/* wakeup_pingpong [N]: a context switch pair in the guest, by its clock. N one-byte pipe
   round trips between two processes on one CPU (each wakes the other from its read)
   against the same writes and reads in one process; one wake-up with its switch is
   (round trip - 2 x the lone pair) / 2 (docs/testbed-vm.md §14). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000;
    char c = 'x';
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return 1;
    double t0 = now();
    for (long i = 0; i < n; i++)
        if (write(a[1], &c, 1) != 1 || read(a[0], &c, 1) != 1)
            return 1;
    double self = (now() - t0) / n;
    pid_t p = fork();
    if (p == 0) {
        for (long i = 0; i < n + 1; i++)
            if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
                _exit(1);
        _exit(0);
    }
    if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) /* both have run once */
        return 1;
    t0 = now();
    for (long i = 0; i < n; i++)
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
            return 1;
    double rt = (now() - t0) / n;
    waitpid(p, 0, 0);
    printf("n %ld self_us %.3f roundtrip_us %.3f switch_pair_us %.3f\n", n, self * 1e6,
           rt * 1e6, (rt - 2 * self) * 1e6);
    return 0;
}
