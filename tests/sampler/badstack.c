/* badstack: time spent where following the stack means reading bad memory.
 *   garbage  a function without unwind information points the frame
 *            pointer at the zero page and pushes a garbage return address
 *   prot     the frame pointer points into a page of the program's own
 *            stack made PROT_NONE: inside the stack bounds, yet unreadable
 * Then good_work runs for comparison.  The program must run to its end
 * (exit 0): samples that cannot be unwound are dropped or cut short, never
 * a crash.  Usage: badstack MODE [millions of steps] */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "work.h"

/* No CFI in either: unwinders have to guess. */
__asm__(".text\n"
	".globl bad_frames\n"
	".type bad_frames,@function\n"
	"bad_frames:\n" /* (n) */
	"  push %rbp\n"
	"  push %rbx\n"
	"  movabs $0xdead0000dead0008, %rax\n"
	"  push %rax\n"
	"  mov $0x10, %rbp\n"
	"1:\n"
	"  imul %rdi, %rbx\n"
	"  dec %rdi\n"
	"  jnz 1b\n"
	"  pop %rax\n"
	"  pop %rbx\n"
	"  pop %rbp\n"
	"  ret\n"
	".size bad_frames, .-bad_frames\n"
	".globl bad_fp\n"
	".type bad_fp,@function\n"
	"bad_fp:\n" /* (n, frame) */
	"  push %rbp\n"
	"  push %rbx\n"
	"  mov %rsi, %rbp\n"
	"2:\n"
	"  imul %rdi, %rbx\n"
	"  dec %rdi\n"
	"  jnz 2b\n"
	"  pop %rbx\n"
	"  pop %rbp\n"
	"  ret\n"
	".size bad_fp, .-bad_fp\n");
void bad_frames(unsigned long n);
void bad_fp(unsigned long n, void *frame);

__attribute__((noinline)) void good_work(unsigned long n) { spin(n); }

__attribute__((noinline)) static void with_protected_page(unsigned long n)
{
	char buf[3 * 4096];
	memset(buf, 1, sizeof(buf));
	char *page = (char *)(((uintptr_t)buf + 4095) & ~(uintptr_t)4095);
	if (mprotect(page, 4096, PROT_NONE))
		exit(3);
	bad_fp(n, page + 64);
	if (mprotect(page, 4096, PROT_READ | PROT_WRITE))
		exit(4);
	sink += (unsigned long)buf[5];
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "garbage";
	unsigned long n = arg_m(argc, argv, 2, 300);
	if (!strcmp(mode, "prot"))
		with_protected_page(n);
	else
		bad_frames(n);
	good_work(n / 3);
	return 0;
}
