/* runtime/log.c - one-line messages, a signal-safe formatter, the clock.
 *
 * Signal-safe: everything in this file (no malloc, no stdio, no locks; the
 * only system calls are write(2) and clock_gettime(2)).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/lifecycle.h"
#include "runtime/state.h"

HP_EXPORT uint64_t hp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct out {
	char *p;
	size_t len, n; /* capacity (without the NUL), bytes produced */
};

static void put(struct out *o, char c)
{
	if (o->n < o->len)
		o->p[o->n] = c;
	o->n++;
}

static void put_str(struct out *o, const char *s, int width, int left)
{
	size_t l = strlen(s);
	for (int i = (int)l; !left && i < width; i++)
		put(o, ' ');
	while (*s)
		put(o, *s++);
	for (int i = (int)l; left && i < width; i++)
		put(o, ' ');
}

static void put_num(struct out *o, unsigned long long v, int neg, unsigned base, int width,
		    char pad, const char *prefix)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	int len = n + neg + (int)strlen(prefix);
	if (pad == '0') {
		if (neg)
			put(o, '-');
		for (const char *q = prefix; *q; q++)
			put(o, *q);
		for (; len < width; len++)
			put(o, '0');
	} else {
		for (; len < width; len++)
			put(o, ' ');
		if (neg)
			put(o, '-');
		for (const char *q = prefix; *q; q++)
			put(o, *q);
	}
	while (n)
		put(o, tmp[--n]);
}

size_t hp_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
	struct out o = {buf, len ? len - 1 : 0, 0};
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		f++;
		char pad = ' ';
		int left = 0, width = 0, lng = 0;
		for (;; f++) {
			if (*f == '0')
				pad = '0';
			else if (*f == '-')
				left = 1;
			else
				break;
		}
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		for (;; f++) {
			if (*f == 'l')
				lng++;
			else if (*f == 'z')
				lng = 2;
			else if (*f == 'h')
				;
			else
				break;
		}
		switch (*f) {
		case 'd':
		case 'i': {
			long long v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
			unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
			put_num(&o, u, v < 0, 10, width, pad, "");
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
				: lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			put_num(&o, v, 0, *f == 'x' ? 16 : 10, width, pad, "");
			break;
		}
		case 'p':
			put_num(&o, (uintptr_t)va_arg(ap, void *), 0, 16, width, pad, "0x");
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			put_str(&o, s ? s : "(null)", width, left);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			f--;
			break;
		default:
			put(&o, '%');
			put(&o, *f);
		}
	}
	if (len)
		buf[o.n < o.len ? o.n : o.len] = '\0';
	return o.n < o.len ? o.n : o.len;
}

size_t hp_read_line(const char *path, char *buf, size_t len)
{
	if (!len)
		return 0;
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n;
	while ((n = read(fd, buf, len - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	size_t k = strcspn(buf, "\n");
	buf[k] = '\0';
	return k;
}

size_t hp_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = hp_vfmt(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/* hyprof writes to the stderr the program started with, and only to it: a
 * program that closes descriptor 2 and opens a file there (a daemon's log,
 * a data file) must not find hyprof's lines in it.  The file is recognised
 * by device and inode, checked at each write (fstat is signal-safe; hyprof
 * writes a few lines per run).  No dup of descriptor 2 is kept: it would
 * hold a pipe open after the program closed its end (a shell reading the
 * program's stderr would wait for hyprof). */
static dev_t err_dev;
static ino_t err_ino;
static int err_state; /* 0 not bound yet: write; 1 bound; -1 closed at start: never */

void hp_log_bind_stderr(void)
{
	struct stat st;
	if (fstat(2, &st) == 0) {
		err_dev = st.st_dev;
		err_ino = st.st_ino;
		err_state = 1;
	} else {
		err_state = -1;
	}
}

static int stderr_is_ours(void)
{
	if (err_state == 0)
		return 1;
	struct stat st;
	return err_state > 0 && fstat(2, &st) == 0 && st.st_dev == err_dev && st.st_ino == err_ino;
}

void hp_write_stderr(const char *s, size_t n)
{
	int saved = errno;
	if (!stderr_is_ours()) {
		errno = saved;
		return;
	}
	while (n) {
		ssize_t w = write(2, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
	errno = saved;
}

HP_EXPORT void hp_log(const char *fmt, ...)
{
	char buf[1024];
	size_t n = hp_fmt(buf, sizeof(buf), "hyprof: ");
	va_list ap;
	va_start(ap, fmt);
	n += hp_vfmt(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n == 0 || buf[n - 1] != '\n')
		buf[n++] = '\n';
	hp_write_stderr(buf, n);
}

static const struct {
	int sig;
	const char *name;
} sig_names[] = {
	{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},     {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
	{SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},   {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
	{SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},   {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
	{SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},   {SIGTERM, "SIGTERM"}, {SIGSTKFLT, "SIGSTKFLT"},
	{SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},   {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},
	{SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},   {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},
	{SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
	{SIGIO, "SIGIO"},     {SIGPWR, "SIGPWR"},     {SIGSYS, "SIGSYS"},
};

const char *hp_signal_name(int sig, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (sig_names[i].sig == sig)
			return sig_names[i].name;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		if (sig == SIGRTMIN)
			hp_fmt(buf, len, "SIGRTMIN");
		else
			hp_fmt(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	} else {
		hp_fmt(buf, len, "signal %d", sig);
	}
	return buf;
}

int hp_signal_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (!strcmp(sig_names[i].name, name) || !strcmp(sig_names[i].name + 3, name))
			return sig_names[i].sig;
	return -1;
}
