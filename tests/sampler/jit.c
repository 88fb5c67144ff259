/* tests/sampler/jit.c - code without unwind information: a counting loop
 * copied into an anonymous executable page (as a JIT emits code) and called
 * from call_jit(), beside host_work() in ordinary code.  libunwind has no
 * entry for the copied code, so a sample landing there used to stop at the
 * leaf: a lone root-level [unknown] instead of main/call_jit/[unknown]
 * (sampler/unwind.c walk_noinfo_leaf).
 *
 * Usage: jit ROUNDS.  With HP_TEST_CPU=FILE it appends the CPU time of each
 * part (CLOCK_THREAD_CPUTIME_ID, ns) as "call_jit NS" / "host_work NS", so
 * a test compares the profile's shares with what each part really used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* x86-64: mov rax, rdi; 1: dec rax; jnz 1b; ret */
static const unsigned char code[] = {0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3};
static volatile double sink;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void host_work(void)
{
	double x = 0;
	for (int i = 0; i < 400000; i++)
		x += i * 0.5;
	sink = x;
}

__attribute__((noinline)) long call_jit(long (*f)(long), long n)
{
	return f(n) + 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("jit: mmap");
		return 2;
	}
	memcpy(p, code, sizeof(code));
	long (*f)(long) = (long (*)(long))p;
	long s = 0;
	long long tj = 0, th = 0;
	for (int i = 0; i < rounds; i++) {
		long long a = cpu_ns();
		s += call_jit(f, 3000000);
		long long b = cpu_ns();
		host_work();
		tj += b - a;
		th += cpu_ns() - b;
	}
	const char *out = getenv("HP_TEST_CPU");
	FILE *fp = out ? fopen(out, "a") : NULL;
	if (fp) {
		fprintf(fp, "call_jit %lld\nhost_work %lld\n", tj, th);
		fclose(fp);
	}
	printf("s=%ld\n", s);
	return 0;
}
