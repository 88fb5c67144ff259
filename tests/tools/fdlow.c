/* fdlow.c - print the descriptor the program's first open() gets.  Run
 * with stderr closed it must print 2, under hyprof as without it. */
#include <fcntl.h>
#include <stdio.h>

int main(void)
{
	printf("%d\n", open("/dev/null", O_RDONLY));
	return 0;
}
