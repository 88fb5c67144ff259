/* sleeper: kernel work (read of /dev/zero) then a short nanosleep and a
 * poll, ITER times; prints "calls N eintr M".  Under a user-only sampling
 * event no sample may fall due inside a system call, so M must be 0. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10000, eintr = 0;
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	for (int i = 0; i < iters; i++) {
		for (int k = 0; k < 20; k++)
			if (read(fd, buf, sizeof(buf)) < 0 && errno == EINTR)
				eintr++;
		struct timespec ts = {0, 20000};
		if (nanosleep(&ts, NULL) && errno == EINTR)
			eintr++;
		if (poll(NULL, 0, 0) < 0 && errno == EINTR)
			eintr++;
	}
	printf("calls %d eintr %d\n", iters, eintr);
	return 0;
}
