/*
 * The smallest epoll ping-pong: one pipe, write a byte, epoll_wait until
 * readable, read it; N times. The reference uringprobe-cli's epoll backend
 * is compared with (bench/events.pl).
 *
 *   cc -O2 -o epoll-pingpong bench/epoll-pingpong.c && ./epoll-pingpong 200000
 * prints: events seconds events_per_sec
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int fds[2];
	int ep;
	struct epoll_event ev = {.events = EPOLLIN}, got;
	char c = 'e';
	double start;

	if (n <= 0 || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0 || (ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) < 0)
	{
		perror("epoll-pingpong");
		return 1;
	}
	start = now();
	for (long i = 0; i < n; i++)
	{
		if (write(fds[1], &c, 1) != 1 || epoll_wait(ep, &got, 1, -1) != 1 || read(fds[0], &c, 1) != 1)
		{
			perror("epoll-pingpong");
			return 1;
		}
	}
	double secs = now() - start;
	printf("%ld\t%.6f\t%.1f\n", n, secs, n / secs);
	return 0;
}
