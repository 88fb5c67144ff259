/* repro_fd2.c - a program that closes its stderr and then opens a data file
 * (which gets descriptor 2, as in a daemon that closes 0-2 and opens its
 * log).  hyprof's exit summary, written to fd 2, lands in that file.
 * gcc -O1 -g repro_fd2.c -o repro_fd2
 * hyprof run -o out -- ./repro_fd2 data.txt ; cat data.txt
 * expected: data.txt is exactly "data\n" (as without hyprof)
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	close(2);
	int fd = open(argc > 1 ? argv[1] : "data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (write(fd, "data\n", 5) != 5)
		return 1;
	printf("fd %d\n", fd);
	return 0; /* no close(fd): the file is still fd 2 when hyprof's destructor runs */
}
