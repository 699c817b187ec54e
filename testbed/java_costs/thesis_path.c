// SPDX-License-Identifier: GPL-2.0-only
/*
 * ThesisPath.java's threads in C, the baseline its costs are divided by:
 *   thesis_path plain|copy SIZE COUNT
 *
 * On loopback, a sender offers SIZE-byte datagrams back to back until the receiving thread
 * has COUNT, which it takes with one recvfrom() per datagram into one 65,507-byte buffer.
 * MODE "plain": that is all the receiving thread does (a C reader's read). "copy": the
 * threads of ThesisPath.java's copy mode: each message copied (malloc) into a queue of
 * 10,000 messages (a mutex and two condition variables, as Java's ArrayBlockingQueue); a
 * DataHandler thread sends each message's 8-byte stamp to the timing port with one sendto()
 * and frees it; a TimeCalculator thread takes each echo with one recv().
 * Prints one JSON object with the fields ThesisPath.java prints (lang "c").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_DATAGRAM = 65507, QUEUE = 10000, STAMP = 8 };

/* The DataHandler's queue: at most QUEUE messages (a message: its length, then its bytes);
 * NULL ends it. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	char *ring[QUEUE];
	size_t head, len;
} queue = {.lock = PTHREAD_MUTEX_INITIALIZER,
	   .not_empty = PTHREAD_COND_INITIALIZER,
	   .not_full = PTHREAD_COND_INITIALIZER};

static atomic_bool stop;
static int size;
static uint64_t count;
static struct sockaddr_in data_addr, timing_addr;

/* A thread's CPU time and what it counted, set as its loop runs or ends. */
struct tally {
	_Atomic uint64_t cpu_ns, n;
};
static struct tally handler, timer;

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "thesis_path: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(char *message)
{
	pthread_mutex_lock(&queue.lock);
	while (queue.len == QUEUE)
		pthread_cond_wait(&queue.not_full, &queue.lock);
	queue.ring[(queue.head + queue.len++) % QUEUE] = message;
	pthread_cond_signal(&queue.not_empty);
	pthread_mutex_unlock(&queue.lock);
}

static char *take(void)
{
	pthread_mutex_lock(&queue.lock);
	while (queue.len == 0)
		pthread_cond_wait(&queue.not_empty, &queue.lock);
	char *message = queue.ring[queue.head];
	queue.head = (queue.head + 1) % QUEUE;
	queue.len--;
	pthread_cond_signal(&queue.not_full);
	pthread_mutex_unlock(&queue.lock);
	return message;
}

static int udp_socket(struct sockaddr_in *bound)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		die("socket");
	if (bound) {
		socklen_t len = sizeof *bound;
		bound->sin_family = AF_INET;
		bound->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(s, (struct sockaddr *)bound, sizeof *bound) < 0 ||
		    getsockname(s, (struct sockaddr *)bound, &len) < 0)
			die("bind");
	}
	return s;
}

/* The DataHandler: each queued message's stamp back to the timing port, until NULL. */
static void *echo_stamps(void *arg)
{
	(void)arg;
	int out = udp_socket(NULL);
	uint64_t cpu0 = thread_cpu_ns(), n = 0;
	for (char *message = take(); message; message = take()) {
		/* the stamp: the message's first bytes, after its length (SIZE >= STAMP) */
		if (sendto(out, message + sizeof(size_t), STAMP, 0,
			   (struct sockaddr *)&timing_addr, sizeof timing_addr) < 0)
			die("sendto (echo)");
		free(message);
		n++;
	}
	handler.cpu_ns = thread_cpu_ns() - cpu0;
	handler.n = n;
	return NULL;
}

/* The TimeCalculator: receives echoes; its tally is set at each one (it may never end). */
static void *receive_echoes(void *arg)
{
	int timing = *(int *)arg;
	uint64_t stamp, cpu0 = thread_cpu_ns();
	for (uint64_t n = 1; n <= count; n++) {
		if (recv(timing, &stamp, sizeof stamp, 0) < 0)
			die("recv (timing)");
		timer.n = n;
		timer.cpu_ns = thread_cpu_ns() - cpu0;
	}
	return NULL;
}

/* SIZE-byte datagrams back to back until stop, each carrying its number. */
static void *offer(void *arg)
{
	(void)arg;
	int out = udp_socket(NULL);
	static char b[MAX_DATAGRAM];
	for (uint64_t n = 0; !stop; n++) {
		memcpy(b, &n, STAMP);
		sendto(out, b, size, 0, (struct sockaddr *)&data_addr, sizeof data_addr);
		if ((n & 63) == 0)
			sched_yield(); /* let the receiving threads run on a machine of few cores */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char *end1, *end2;
	if (argc != 4 || (strcmp(argv[1], "plain") && strcmp(argv[1], "copy"))) {
		fprintf(stderr, "usage: thesis_path plain|copy SIZE COUNT\n");
		return 2;
	}
	bool copy = !strcmp(argv[1], "copy");
	size = (int)strtol(argv[2], &end1, 10);
	count = strtoull(argv[3], &end2, 10);
	if (*end1 || *end2 || size < STAMP || size > MAX_DATAGRAM || count < 1) {
		fprintf(stderr, "thesis_path: SIZE %d-%d and COUNT >= 1 (got %s %s)\n",
			STAMP, MAX_DATAGRAM, argv[2], argv[3]);
		return 2;
	}
	int data = udp_socket(&data_addr), timing = udp_socket(&timing_addr);
	pthread_t th_handler, th_timer, th_sender;
	pthread_create(&th_handler, NULL, echo_stamps, NULL);
	pthread_create(&th_timer, NULL, receive_echoes, &timing);
	pthread_create(&th_sender, NULL, offer, NULL);

	static char buf[MAX_DATAGRAM];
	uint64_t wall0 = wall_ns(), cpu0 = thread_cpu_ns();
	for (uint64_t i = 0; i < count; i++) {
		ssize_t got = recvfrom(data, buf, sizeof buf, 0, NULL, NULL);
		if (got < 0)
			die("recvfrom");
		if (copy) {
			size_t len = (size_t)got;
			char *message = malloc(sizeof len + len);
			if (!message)
				die("malloc");
			memcpy(message, &len, sizeof len);
			memcpy(message + sizeof len, buf, len);
			put(message);
		}
	}
	uint64_t recv_cpu = thread_cpu_ns() - cpu0, wall = wall_ns() - wall0;
	stop = 1;
	put(NULL);
	pthread_join(th_handler, NULL);
	pthread_join(th_sender, NULL);
	if (copy) {
		struct timespec grace; /* echoes lost on loopback never come: wait 2 s at most */
		clock_gettime(CLOCK_REALTIME, &grace);
		grace.tv_sec += 2;
		pthread_timedjoin_np(th_timer, NULL, &grace);
	}
	printf("{\"lang\": \"c\", \"mode\": \"%s\", \"size\": %d, \"messages\": %llu, "
	       "\"recv_cpu_ns\": %llu, \"echoes\": %llu, \"echo_cpu_ns\": %llu, \"timed\": %llu, "
	       "\"timer_cpu_ns\": %llu, \"wall_ns\": %llu, \"gc_collections\": 0, \"gc_ms\": 0}\n",
	       argv[1], size, (unsigned long long)count, (unsigned long long)recv_cpu,
	       (unsigned long long)handler.n, (unsigned long long)handler.cpu_ns,
	       (unsigned long long)timer.n, (unsigned long long)timer.cpu_ns,
	       (unsigned long long)wall);
	fflush(stdout);
	_exit(0); /* the TimeCalculator may still wait for an echo that was lost */
}
