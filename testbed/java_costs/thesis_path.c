// SPDX-License-Identifier: GPL-2.0-only
/*
 * ThesisPath.java's receiving thread in C, the baseline its cost is divided by, and the
 * sender both are measured with:
 *   thesis_path blast PORT SIZE          SIZE-byte datagrams to 127.0.0.1:PORT until killed
 *   thesis_path plain|copy PORT SIZE COUNT
 *
 * blast: sendmmsg() of 64 datagrams at a time, each carrying its number in its first 8
 * bytes: faster than either receiving thread, so that each always finds a datagram waiting.
 *
 * plain: a C reader: one recvfrom() per datagram into one 65,507-byte buffer, nothing else.
 * copy: ThesisPath.java's copy mode in C: each message copied (malloc) into a queue of
 * 10,000 messages (a mutex and two condition variables, as Java's ArrayBlockingQueue); a
 * DataHandler thread sends each message's 8-byte stamp to a timing port with one sendto()
 * and frees it; a TimeCalculator thread takes each echo with one recv().
 *
 * As ThesisPath.java: a receive buffer of RCVBUF bytes asked for (SO_RCVBUF, capped by
 * net.core.rmem_max), WARMUP datagrams, then windows of WINDOW datagrams until COUNT, each
 * begun with an empty queue and after REFILL_MS for the sender to fill the socket's buffer;
 * over the windows the receiving thread's CPU time and voluntary context switches. Prints
 * one JSON object with the fields ThesisPath.java prints (rcvbuf: getsockopt's SO_RCVBUF,
 * the kernel's doubled value; Java's getReceiveBufferSize() reports another number).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_DATAGRAM = 65507, QUEUE = 10000, WARMUP = 30000, STAMP = 8, BLAST_BATCH = 64 };
enum { WINDOW = 2000, REFILL_MS = 50, RCVBUF = 4 << 20 };

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

static struct sockaddr_in timing_addr;

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

/* This thread's voluntary context switches: each a sleep. */
static uint64_t voluntary_switches(void)
{
	struct rusage u;
	getrusage(RUSAGE_THREAD, &u);
	return (uint64_t)u.ru_nvcsw;
}

static _Noreturn void die(const char *what)
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

static bool queue_empty(void)
{
	pthread_mutex_lock(&queue.lock);
	bool empty = queue.len == 0;
	pthread_mutex_unlock(&queue.lock);
	return empty;
}

static int udp_socket(struct sockaddr_in *bound, int port)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		die("socket");
	if (bound) {
		socklen_t len = sizeof *bound;
		*bound = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(port)};
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
	int out = udp_socket(NULL, 0);
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

/* The TimeCalculator: receives echoes; its tally is set at each one (it never ends). */
static void *receive_echoes(void *arg)
{
	int timing = *(int *)arg;
	uint64_t stamp, cpu0 = thread_cpu_ns();
	for (uint64_t n = 1;; n++) {
		if (recv(timing, &stamp, sizeof stamp, 0) < 0)
			die("recv (timing)");
		timer.n = n;
		timer.cpu_ns = thread_cpu_ns() - cpu0;
	}
	return NULL;
}

/* SIZE-byte datagrams to 127.0.0.1:PORT, BLAST_BATCH per sendmmsg(), until killed. */
static _Noreturn void blast(int port, int size)
{
	static char bufs[BLAST_BATCH][MAX_DATAGRAM];
	struct mmsghdr msgs[BLAST_BATCH];
	struct iovec iov[BLAST_BATCH];
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int out = udp_socket(NULL, 0);
	for (int i = 0; i < BLAST_BATCH; i++) {
		iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = (size_t)size};
		msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &to,
						       .msg_namelen = sizeof to,
						       .msg_iov = &iov[i],
						       .msg_iovlen = 1}};
	}
	for (uint64_t n = 0;; n += BLAST_BATCH) {
		for (int i = 0; i < BLAST_BATCH; i++) {
			uint64_t k = n + (uint64_t)i;
			memcpy(bufs[i], &k, STAMP);
		}
		if (sendmmsg(out, msgs, BLAST_BATCH, 0) < 0 && errno != ENOBUFS)
			die("sendmmsg");
	}
}

/* The receiving thread's loop: @p n datagrams, each copied into the queue with @p copy. */
static void receive(int data, bool copy, int n)
{
	static char buf[MAX_DATAGRAM];
	for (int i = 0; i < n; i++) {
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
}

static int usage(void)
{
	fprintf(stderr, "usage: thesis_path blast PORT SIZE | plain|copy PORT SIZE COUNT\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	bool is_blast = !strcmp(argv[1], "blast");
	bool copy = !strcmp(argv[1], "copy");
	if (argc != (is_blast ? 4 : 5) || !(is_blast || copy || !strcmp(argv[1], "plain")))
		return usage();
	char *end1, *end2, *end3 = "";
	long port = strtol(argv[2], &end1, 10), size = strtol(argv[3], &end2, 10);
	long count = is_blast ? 1 : strtol(argv[4], &end3, 10);
	if (*end1 || *end2 || *end3 || port < 1024 || port > 65535 || size < STAMP ||
	    size > MAX_DATAGRAM || count < 1 || count > INT32_MAX) {
		fprintf(stderr,
			"thesis_path: PORT 1024-65535, SIZE %d-%d and COUNT >= 1 (got %s %s%s%s)\n",
			STAMP, MAX_DATAGRAM, argv[2], argv[3], is_blast ? "" : " ",
			is_blast ? "" : argv[4]);
		return 2;
	}
	if (is_blast)
		blast((int)port, (int)size);

	struct sockaddr_in data_addr;
	int data = udp_socket(&data_addr, (int)port), timing = udp_socket(&timing_addr, 0);
	int rcvbuf = RCVBUF;
	socklen_t rcvbuf_len = sizeof rcvbuf;
	if (setsockopt(data, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) < 0 ||
	    getsockopt(data, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rcvbuf_len) < 0)
		die("SO_RCVBUF");
	pthread_t th_handler, th_timer;
	pthread_create(&th_handler, NULL, echo_stamps, NULL);
	pthread_create(&th_timer, NULL, receive_echoes, &timing);

	receive(data, copy, WARMUP);
	uint64_t cpu = 0, sleeps = 0, wall = 0;
	for (long left = count; left > 0; left -= WINDOW) {
		while (!queue_empty())
			usleep(1000); /* room for the whole window: put() never waits */
		usleep(REFILL_MS * 1000); /* a full socket buffer: recvfrom() never waits */
		uint64_t sleeps0 = voluntary_switches(), wall0 = wall_ns(), cpu0 = thread_cpu_ns();
		receive(data, copy, left < WINDOW ? (int)left : WINDOW);
		cpu += thread_cpu_ns() - cpu0;
		wall += wall_ns() - wall0;
		sleeps += voluntary_switches() - sleeps0;
	}
	put(NULL);
	pthread_join(th_handler, NULL);
	printf("{\"lang\": \"c\", \"mode\": \"%s\", \"size\": %ld, \"warmup\": %d, \"rcvbuf\": %d, "
	       "\"messages\": %ld, \"recv_cpu_ns\": %llu, \"recv_sleeps\": %llu, "
	       "\"wall_ns\": %llu, \"echoes\": %llu, \"echo_cpu_ns\": %llu, \"timed\": %llu, "
	       "\"timer_cpu_ns\": %llu, \"gc_collections\": 0, \"gc_ms\": 0}\n",
	       argv[1], size, WARMUP, rcvbuf, count, (unsigned long long)cpu,
	       (unsigned long long)sleeps, (unsigned long long)wall,
	       (unsigned long long)handler.n, (unsigned long long)handler.cpu_ns,
	       (unsigned long long)timer.n, (unsigned long long)timer.cpu_ns);
	fflush(stdout);
	_exit(0); /* the TimeCalculator may still wait for an echo lost on loopback */
}
