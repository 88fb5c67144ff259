/* core/format.c - the hyprof profile file: signal-safe writer, checking reader.
 *
 * Signal-safe: hp_writer_*(), hp_kv_size(), hp_crc32().  They use only
 * open/write/pwrite/read/lseek/fsync/rename/unlink/close/getpid/getrlimit/
 * setrlimit and memcpy/strlen; no malloc, no stdio, no locks.  The file is written under a
 * temporary name and renamed at the end, so a reader never sees half a file
 * under the final name.  The reader (hp_prof_read and friends) is ordinary
 * code: it allocates, and it checks every length and index before use, so
 * any input gives either a profile the tools can walk or a one-line error.
 * docs/FORMAT.md describes the layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/format.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the hyprof file format is little-endian; add byte swapping for this host"
#endif

_Static_assert(sizeof(struct hp_module_rec) == 48, "module record is part of the format");
_Static_assert(sizeof(struct hp_region_rec) == 16, "region record is part of the format");

#define HDR_LEN 16u     /* magic, version, flags */
#define SEC_HDR_LEN 16u /* type, flags, length */
#define TRAILER_PAYLOAD 16u
#define TRAILER_LEN (SEC_HDR_LEN + TRAILER_PAYLOAD)
#define KV_HDR_LEN 8u
#define NO_SECTION (~(uint64_t)0)

/* ---- CRC-32 (IEEE 802.3, reflected, as zlib) ----------------------------
 * Slicing-by-8 tables are filled by a constructor; until they are (a write
 * from another library's constructor), the bitwise loop gives the same
 * result.  Both are signal-safe. */
static uint32_t crc_tab[8][256];
static int crc_ready;

__attribute__((constructor)) static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][n] = c;
	}
	for (uint32_t n = 0; n < 256; n++)
		for (int s = 1; s < 8; s++)
			crc_tab[s][n] = (crc_tab[s - 1][n] >> 8) ^ crc_tab[0][crc_tab[s - 1][n] & 0xff];
	__atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t hp_crc32(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	crc = ~crc;
	if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE)) {
		while (n--) {
			crc ^= *p++;
			for (int k = 0; k < 8; k++)
				crc = (crc & 1) ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
		}
		return ~crc;
	}
	while (n >= 8) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + 4, 4);
		a ^= crc;
		crc = crc_tab[7][a & 0xff] ^ crc_tab[6][(a >> 8) & 0xff] ^
		      crc_tab[5][(a >> 16) & 0xff] ^ crc_tab[4][a >> 24] ^
		      crc_tab[3][b & 0xff] ^ crc_tab[2][(b >> 8) & 0xff] ^
		      crc_tab[1][(b >> 16) & 0xff] ^ crc_tab[0][b >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- writer ------------------------------------------------------------ */

static int wfail(struct hp_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n > 0) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	const uint8_t *p = buf;
	while (n > 0) {
		ssize_t r = pwrite(fd, p, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int wflush(struct hp_writer *w)
{
	if (w->err)
		return w->err;
	if (w->buf_len) {
		int rc = write_all(w->fd, w->buf, w->buf_len);
		if (rc)
			return wfail(w, rc);
		w->buf_len = 0;
	}
	return 0;
}

int hp_u64_dec(char *out, uint64_t v, int width)
{
	char d[20];
	int k = 0;
	do {
		d[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k < width && k < (int)sizeof(d))
		d[k++] = '0';
	int n = k;
	for (int o = 0; k;)
		out[o++] = d[--k];
	out[n] = 0;
	return n;
}

/* Append decimal `v` to s (capacity cap, s NUL-terminated).  0 or -1. */
static int append_u64(char *s, size_t cap, uint64_t v)
{
	char d[21];
	int k = hp_u64_dec(d, v, 1);
	size_t len = strlen(s);
	if (len + (size_t)k + 1 > cap)
		return -1;
	memcpy(s + len, d, (size_t)k + 1);
	return 0;
}

static int open_retry(const char *path)
{
	int fd;
	do
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* A program may hold every descriptor its limit allows (a loop that opens
 * until EMFILE, a server at its limit), and the sample source may hold none
 * that the exit could free (POSIX timer, a crash while sampling): the
 * profile then takes one descriptor above the soft limit, which is raised
 * for the open alone and restored at once (Linux keeps a descriptor above a
 * lowered limit), so the program's descriptors and limit stay as they were.
 * Past the hard limit only with CAP_SYS_RESOURCE.  Signal-safe. */
static int open_tmp(const char *path)
{
	int fd = open_retry(path);
	if (fd >= 0 || errno != EMFILE)
		return fd;
	struct rlimit old, more;
	if (getrlimit(RLIMIT_NOFILE, &old) || old.rlim_cur == RLIM_INFINITY) {
		errno = EMFILE;
		return -1;
	}
	more = old;
	more.rlim_cur = old.rlim_cur + 1;
	if (more.rlim_max != RLIM_INFINITY && more.rlim_max < more.rlim_cur)
		more.rlim_max = more.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &more)) {
		errno = EMFILE;
		return -1;
	}
	fd = open_retry(path);
	int e = errno;
	setrlimit(RLIMIT_NOFILE, &old);
	errno = e;
	return fd;
}

int hp_writer_open(struct hp_writer *w, const char *path, uint32_t file_flags)
{
	w->fd = -1;
	w->err = 0;
	w->off = 0;
	w->sec_start = NO_SECTION;
	w->buf_len = 0;
	w->tmp[0] = w->final[0] = 0;
	size_t len = path ? strlen(path) : 0;
	if (len == 0)
		return wfail(w, -EINVAL);
	static const char sfx[] = ".tmp.";
	if (len + sizeof(sfx) + 12 > sizeof(w->tmp))
		return wfail(w, -ENAMETOOLONG);
	memcpy(w->final, path, len + 1);
	memcpy(w->tmp, path, len);
	memcpy(w->tmp + len, sfx, sizeof(sfx));
	append_u64(w->tmp, sizeof(w->tmp), (uint64_t)getpid());

	int fd = open_tmp(w->tmp);
	if (fd < 0) {
		w->tmp[0] = 0; /* nothing to remove */
		return wfail(w, -errno);
	}
	w->fd = fd;
	uint8_t hdr[HDR_LEN];
	uint32_t version = HP_FORMAT_VERSION;
	memcpy(hdr, HP_FORMAT_MAGIC, 8);
	memcpy(hdr + 8, &version, 4);
	memcpy(hdr + 12, &file_flags, 4);
	int rc = hp_writer_bytes(w, hdr, sizeof(hdr));
	if (rc)
		hp_writer_abort(w);
	return rc;
}

int hp_writer_bytes(struct hp_writer *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (w->fd < 0)
		return wfail(w, -EBADF);
	if (n == 0) /* an empty array may be NULL: no memcpy from it */
		return 0;
	const uint8_t *s = p;
	size_t room = sizeof(w->buf) - w->buf_len;
	if (n <= room) {
		memcpy(w->buf + w->buf_len, s, n);
		w->buf_len += (uint32_t)n;
	} else {
		memcpy(w->buf + w->buf_len, s, room);
		w->buf_len = sizeof(w->buf);
		if (wflush(w))
			return w->err;
		s += room;
		size_t rest = n - room;
		if (rest >= sizeof(w->buf)) {
			int rc = write_all(w->fd, s, rest);
			if (rc)
				return wfail(w, rc);
		} else {
			memcpy(w->buf, s, rest);
			w->buf_len = (uint32_t)rest;
		}
	}
	w->off += n;
	return 0;
}

int hp_writer_u32(struct hp_writer *w, uint32_t v)
{
	return hp_writer_bytes(w, &v, sizeof(v));
}

int hp_writer_begin(struct hp_writer *w, uint32_t sec_type)
{
	if (w->err)
		return w->err;
	if (w->sec_start != NO_SECTION)
		hp_writer_end(w); /* a caller forgot: close it rather than nest */
	uint8_t hdr[SEC_HDR_LEN] = {0};
	memcpy(hdr, &sec_type, 4);
	uint64_t start = w->off;
	int rc = hp_writer_bytes(w, hdr, sizeof(hdr));
	if (!rc)
		w->sec_start = start;
	return rc;
}

int hp_writer_end(struct hp_writer *w)
{
	if (w->sec_start == NO_SECTION)
		return w->err;
	uint64_t start = w->sec_start;
	w->sec_start = NO_SECTION;
	if (w->err)
		return w->err;
	uint64_t len = w->off - start - SEC_HDR_LEN;
	uint64_t flushed = w->off - w->buf_len; /* file offset of buf[0] */
	if (start >= flushed) {
		memcpy(w->buf + (start - flushed) + 8, &len, 8);
		return 0;
	}
	if (wflush(w))
		return w->err;
	int rc = pwrite_all(w->fd, &len, 8, start + 8);
	return rc ? wfail(w, rc) : 0;
}

size_t hp_kv_size(const char *key, size_t value_len)
{
	return KV_HDR_LEN + strlen(key) + value_len;
}

static int kv_put(struct hp_writer *w, const char *key, uint8_t type, const void *val,
		  size_t vlen)
{
	size_t klen = strlen(key);
	if (klen > 0xffff || vlen > 0xffffffffu)
		return wfail(w, -EINVAL);
	uint8_t hdr[KV_HDR_LEN];
	uint16_t k16 = (uint16_t)klen;
	uint32_t v32 = (uint32_t)vlen;
	memcpy(hdr, &k16, 2);
	hdr[2] = type;
	hdr[3] = 0;
	memcpy(hdr + 4, &v32, 4);
	hp_writer_bytes(w, hdr, sizeof(hdr));
	hp_writer_bytes(w, key, klen);
	return hp_writer_bytes(w, val, vlen);
}

int hp_writer_kv_str(struct hp_writer *w, const char *key, const char *val)
{
	if (!val)
		val = "";
	return kv_put(w, key, HP_KV_STR, val, strlen(val));
}

int hp_writer_kv_u64(struct hp_writer *w, const char *key, uint64_t v)
{
	return kv_put(w, key, HP_KV_U64, &v, 8);
}

int hp_writer_kv_i64(struct hp_writer *w, const char *key, int64_t v)
{
	return kv_put(w, key, HP_KV_I64, &v, 8);
}

int hp_writer_kv_f64(struct hp_writer *w, const char *key, double v)
{
	return kv_put(w, key, HP_KV_F64, &v, 8);
}

void hp_writer_abort(struct hp_writer *w)
{
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->tmp[0]) {
		unlink(w->tmp);
		w->tmp[0] = 0;
	}
	w->sec_start = NO_SECTION;
	w->buf_len = 0;
	if (!w->err)
		w->err = -ECANCELED;
}

/* CRC of the first `len` bytes of the file, read back through w->buf. */
static int crc_file(struct hp_writer *w, uint64_t len, uint32_t *out)
{
	if (lseek(w->fd, 0, SEEK_SET) != 0)
		return -errno;
	uint32_t crc = 0;
	uint64_t done = 0;
	while (done < len) {
		size_t want = sizeof(w->buf);
		if (len - done < want)
			want = (size_t)(len - done);
		ssize_t r = read(w->fd, w->buf, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO; /* file shorter than what we wrote */
		crc = hp_crc32(crc, w->buf, (size_t)r);
		done += (uint64_t)r;
	}
	if (lseek(w->fd, (off_t)len, SEEK_SET) != (off_t)len)
		return -errno;
	*out = crc;
	return 0;
}

int hp_writer_finish(struct hp_writer *w)
{
	if (w->fd < 0) {
		hp_writer_abort(w);
		return w->err ? w->err : -EBADF;
	}
	if (w->sec_start != NO_SECTION)
		hp_writer_end(w);
	wflush(w);
	uint32_t crc = 0;
	if (!w->err) {
		int rc = crc_file(w, w->off, &crc);
		if (rc)
			wfail(w, rc);
	}
	if (!w->err) {
		uint8_t t[TRAILER_LEN] = {0};
		uint32_t type = HP_SEC_TRAILER;
		uint64_t plen = TRAILER_PAYLOAD, flen = w->off + TRAILER_LEN;
		memcpy(t, &type, 4);
		memcpy(t + 8, &plen, 8);
		memcpy(t + 16, &crc, 4);
		memcpy(t + 24, &flen, 8);
		int rc = write_all(w->fd, t, sizeof(t));
		if (rc)
			wfail(w, rc);
		else
			w->off = flen;
	}
	if (!w->err && fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
		wfail(w, -errno);
	if (w->err) {
		hp_writer_abort(w);
		return w->err;
	}
	int fd = w->fd;
	w->fd = -1;
	if (close(fd) != 0 && errno != EINTR) {
		wfail(w, -errno);
		hp_writer_abort(w);
		return w->err;
	}
	if (rename(w->tmp, w->final) != 0) {
		wfail(w, -errno);
		hp_writer_abort(w);
		return w->err;
	}
	w->tmp[0] = 0;
	return 0;
}

/* ---- reader ------------------------------------------------------------ */

static const char *sec_name(uint32_t type, char *buf, size_t len)
{
	switch (type) {
	case HP_SEC_META: return "META";
	case HP_SEC_CALIB: return "CALIB";
	case HP_SEC_MODULES: return "MODULES";
	case HP_SEC_THREAD: return "THREAD";
	case HP_SEC_REGIONS: return "REGIONS";
	case HP_SEC_COST: return "COST";
	case HP_SEC_BUDGET: return "BUDGET";
	case HP_SEC_LIVE: return "LIVE";
	case HP_SEC_COUNTING: return "COUNTING";
	case HP_SEC_MPI: return "MPI";
	case HP_SEC_MPI_SITES: return "MPI_SITES";
	case HP_SEC_MPI_RANKS: return "MPI_RANKS";
	case HP_SEC_CRITPATH: return "CRITPATH";
	case HP_SEC_TRAILER: return "TRAILER";
	}
	snprintf(buf, len, "type %u", type);
	return buf;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

int hp_kv_parse(const uint8_t *p, size_t len, struct hp_kvlist *out)
{
	out->v = NULL;
	out->n = 0;
	size_t n = 0, strbytes = 0, off = 0;
	while (off < len) {
		if (len - off < KV_HDR_LEN)
			return -EINVAL;
		size_t klen = rd16(p + off), vlen = rd32(p + off + 4);
		uint8_t type = p[off + 2];
		off += KV_HDR_LEN;
		if (klen > len - off || vlen > len - off - klen)
			return -EINVAL;
		if ((type == HP_KV_U64 || type == HP_KV_I64 || type == HP_KV_F64) && vlen != 8)
			return -EINVAL;
		strbytes += klen + 1 + (type == HP_KV_STR ? vlen + 1 : 0);
		off += klen + vlen;
		n++;
	}
	if (n == 0)
		return 0;
	/* one block: the array, then every key and string */
	struct hp_kv *v = calloc(1, n * sizeof(*v) + strbytes);
	if (!v)
		return -ENOMEM;
	char *str = (char *)(v + n);
	off = 0;
	for (size_t i = 0; i < n; i++) {
		size_t klen = rd16(p + off), vlen = rd32(p + off + 4);
		uint8_t type = p[off + 2];
		const uint8_t *key = p + off + KV_HDR_LEN, *val = key + klen;
		memcpy(str, key, klen);
		str[klen] = 0;
		v[i].key = str;
		str += klen + 1;
		v[i].type = type;
		switch (type) {
		case HP_KV_STR:
			memcpy(str, val, vlen);
			str[vlen] = 0;
			v[i].s = str;
			str += vlen + 1;
			break;
		case HP_KV_U64: v[i].u = rd64(val); break;
		case HP_KV_I64: v[i].i = (int64_t)rd64(val); break;
		case HP_KV_F64: memcpy(&v[i].d, val, 8); break;
		default: break; /* a newer type: key kept, value skipped */
		}
		off += KV_HDR_LEN + klen + vlen;
	}
	out->v = v;
	out->n = n;
	return 0;
}

void hp_kv_free(struct hp_kvlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct hp_kv *hp_kv_get(const struct hp_kvlist *l, const char *key)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return &l->v[i];
	return NULL;
}

uint64_t hp_kv_u64(const struct hp_kvlist *l, const char *key, uint64_t def)
{
	const struct hp_kv *kv = hp_kv_get(l, key);
	if (!kv)
		return def;
	switch (kv->type) {
	case HP_KV_U64: return kv->u;
	case HP_KV_I64: return kv->i >= 0 ? (uint64_t)kv->i : def;
	case HP_KV_F64: return kv->d >= 0 && kv->d < 18446744073709551616.0 ? (uint64_t)kv->d : def;
	}
	return def;
}

int64_t hp_kv_i64(const struct hp_kvlist *l, const char *key, int64_t def)
{
	const struct hp_kv *kv = hp_kv_get(l, key);
	if (!kv)
		return def;
	switch (kv->type) {
	case HP_KV_I64: return kv->i;
	case HP_KV_U64: return kv->u <= INT64_MAX ? (int64_t)kv->u : def;
	case HP_KV_F64:
		return kv->d >= -9223372036854775808.0 && kv->d < 9223372036854775808.0
			       ? (int64_t)kv->d
			       : def;
	}
	return def;
}

double hp_kv_f64(const struct hp_kvlist *l, const char *key, double def)
{
	const struct hp_kv *kv = hp_kv_get(l, key);
	if (!kv)
		return def;
	switch (kv->type) {
	case HP_KV_F64: return kv->d;
	case HP_KV_U64: return (double)kv->u;
	case HP_KV_I64: return (double)kv->i;
	}
	return def;
}

const char *hp_kv_str(const struct hp_kvlist *l, const char *key, const char *def)
{
	const struct hp_kv *kv = hp_kv_get(l, key);
	return kv && kv->type == HP_KV_STR ? kv->s : def;
}

const struct hp_section *hp_prof_section(const struct hp_prof *p, uint32_t type)
{
	for (size_t i = 0; p && i < p->nsecs; i++)
		if (p->secs[i].type == type)
			return &p->secs[i];
	return NULL;
}

void hp_prof_free(struct hp_prof *p)
{
	if (!p)
		return;
	hp_kv_free(&p->meta);
	hp_kv_free(&p->calib);
	hp_kv_free(&p->cost);
	for (size_t i = 0; i < p->nmodules; i++)
		free(p->modules[i].path);
	free(p->modules);
	for (size_t i = 0; i < p->nregions; i++) {
		free(p->regions[i].name);
		free(p->regions[i].file);
	}
	free(p->regions);
	for (size_t i = 0; i < p->nthreads; i++) {
		hp_kv_free(&p->threads[i].kv);
		free(p->threads[i].sample);
		free(p->threads[i].probe);
	}
	free(p->threads);
	free(p->secs);
	free(p->buf);
	free(p->path);
	free(p);
}

struct rd {
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int rd_err(struct rd *r, const char *fmt, ...)
{
	if (!r->err || r->errlen == 0)
		return -EINVAL;
	int k = snprintf(r->err, r->errlen, "%s: ", r->path);
	if (k < 0 || (size_t)k >= r->errlen)
		return -EINVAL;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *memdup_str(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

/* Check one tree so the tools can walk it: every index in range, every
 * parent before its child (no parent cycles), the root first, every REDIRECT
 * target in range.  Sibling lists that do not check out (a node missing, a
 * cycle, a node in the wrong list: the tree was written while its thread
 * was inserting) are rebuilt from the parent pointers, which are written
 * once and never change.  Returns 0, -EINVAL with what in `what`, or
 * -ENOMEM. */
static int tree_check(struct cct_node *t, uint32_t n, char *what, size_t wlen)
{
	if (n == 0)
		return 0;
	if (t[0].parent != CCT_NONE) {
		snprintf(what, wlen, "node 0 is not a root (parent %u)", t[0].parent);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cct_node *c = &t[i];
		if (i > 0 && c->parent >= i) {
			snprintf(what, wlen, "node %u has parent %u (must come before it)", i,
				 c->parent);
			return -EINVAL;
		}
		if ((c->first_child != CCT_NONE && c->first_child >= n) ||
		    (c->next_sibling != CCT_NONE && c->next_sibling >= n)) {
			snprintf(what, wlen, "node %u links to a node past the last (%u)", i, n - 1);
			return -EINVAL;
		}
		if ((c->flags & CCT_F_REDIRECT) && c->target >= n) {
			snprintf(what, wlen, "node %u redirects to node %u past the last (%u)", i,
				 c->target, n - 1);
			return -EINVAL;
		}
	}
	uint8_t *seen = calloc(n, 1);
	uint32_t *stack = malloc((size_t)n * sizeof(*stack));
	if (!seen || !stack) {
		free(seen);
		free(stack);
		return -ENOMEM;
	}
	int ok = t[0].next_sibling == CCT_NONE;
	uint32_t sp = 0, nseen = 1;
	seen[0] = 1;
	stack[sp++] = 0;
	while (ok && sp > 0) {
		uint32_t u = stack[--sp];
		for (uint32_t c = t[u].first_child; c != CCT_NONE; c = t[c].next_sibling) {
			if (seen[c] || t[c].parent != u) {
				ok = 0;
				break;
			}
			seen[c] = 1;
			nseen++;
			stack[sp++] = c;
		}
	}
	free(seen);
	free(stack);
	if (ok && nseen == n)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		t[i].first_child = t[i].next_sibling = CCT_NONE;
	for (uint32_t i = n - 1; i > 0; i--) {
		t[i].next_sibling = t[t[i].parent].first_child;
		t[t[i].parent].first_child = i;
	}
	return 0;
}

static int parse_thread(struct rd *r, const struct hp_section *s, struct hp_prof_thread *th,
			uint64_t at)
{
	char nb[32], what[160];
	const char *name = sec_name(s->type, nb, sizeof(nb));
	const uint8_t *p = s->data;
	uint64_t len = s->len;
	if (len < 4)
		return rd_err(r, "section %s at byte %llu is too short (file corrupt)", name,
			      (unsigned long long)at);
	uint64_t kvlen = rd32(p);
	if (kvlen > len - 4)
		return rd_err(r,
			      "section %s at byte %llu: key-value block of %llu bytes runs past "
			      "the section (file corrupt)",
			      name, (unsigned long long)at, (unsigned long long)kvlen);
	int rc = hp_kv_parse(p + 4, (size_t)kvlen, &th->kv);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return rd_err(r, "section %s at byte %llu: bad key-value block (file corrupt)",
			      name, (unsigned long long)at);
	uint64_t off = 4 + kvlen;
	if (len - off < 8)
		return rd_err(r, "section %s at byte %llu: node counts missing (file corrupt)",
			      name, (unsigned long long)at);
	uint32_t ns = rd32(p + off), np = rd32(p + off + 4);
	off += 8;
	uint64_t need = ((uint64_t)ns + np) * sizeof(struct cct_node);
	if (need > len - off)
		return rd_err(r,
			      "section %s at byte %llu: %u+%u nodes need %llu bytes, the section "
			      "has %llu (file corrupt)",
			      name, (unsigned long long)at, ns, np, (unsigned long long)need,
			      (unsigned long long)(len - off));
	/* copy: the nodes sit at any byte offset in the file */
	size_t bs = (size_t)ns * sizeof(struct cct_node), bp = (size_t)np * sizeof(struct cct_node);
	th->sample = malloc(bs ? bs : 1);
	th->probe = malloc(bp ? bp : 1);
	if (!th->sample || !th->probe)
		return -ENOMEM;
	memcpy(th->sample, p + off, bs);
	memcpy(th->probe, p + off + bs, bp);
	th->nsample = ns;
	th->nprobe = np;
	rc = tree_check(th->sample, ns, what, sizeof(what));
	if (rc == -EINVAL)
		return rd_err(r, "section %s at byte %llu: sample tree: %s (file corrupt)", name,
			      (unsigned long long)at, what);
	if (rc)
		return rc;
	rc = tree_check(th->probe, np, what, sizeof(what));
	if (rc == -EINVAL)
		return rd_err(r, "section %s at byte %llu: probe tree: %s (file corrupt)", name,
			      (unsigned long long)at, what);
	return rc;
}

/* A section of a count and `n` fixed-size records, each followed by its
 * strings (MODULES, REGIONS), read record by record; every error names the
 * section, its offset and the record. */
struct recs {
	struct rd *r;
	const uint8_t *p;
	uint64_t len, off, at;
	const char *sec;  /* "MODULES" */
	const char *item; /* "module" */
	const char *strs; /* what follows a record: "path runs", "names run" */
	size_t size;      /* of one record */
};

/* The record count (*n), checked to fit, and *arr = an array of n (at
 * least one) zeroed elements of `elem` bytes for what they become.
 * Returns 0, -ENOMEM or rd_err()'s code. */
static int recs_open(struct recs *q, uint32_t *n, void **arr, size_t elem)
{
	if (q->len < 4)
		return rd_err(q->r, "section %s at byte %llu is too short (file corrupt)", q->sec,
			      (unsigned long long)q->at);
	*n = rd32(q->p);
	if ((uint64_t)*n * q->size > q->len - 4)
		return rd_err(q->r, "section %s at byte %llu: %u %ss do not fit (file corrupt)", q->sec,
			      (unsigned long long)q->at, *n, q->item);
	q->off = 4;
	*arr = calloc(*n ? *n : 1, elem);
	return *arr ? 0 : -ENOMEM;
}

/* Copy record i into rec and make sure the `strings(rec)` bytes after it are
 * in the section; *str points at them.  Returns 0 or rd_err()'s code. */
static int recs_next(struct recs *q, uint32_t i, void *rec, uint64_t (*strings)(const void *rec),
		     const uint8_t **str)
{
	if (q->len - q->off < q->size)
		return rd_err(q->r, "section %s at byte %llu: %s %u is cut (file corrupt)", q->sec,
			      (unsigned long long)q->at, q->item, i);
	memcpy(rec, q->p + q->off, q->size);
	q->off += q->size;
	uint64_t n = strings(rec);
	if (n > q->len - q->off)
		return rd_err(q->r,
			      "section %s at byte %llu: %s %u: its %s past the section (file corrupt)",
			      q->sec, (unsigned long long)q->at, q->item, i, q->strs);
	*str = q->p + q->off;
	q->off += n;
	return 0;
}

static uint64_t module_strings(const void *rec)
{
	return ((const struct hp_module_rec *)rec)->path_len;
}

static int parse_modules(struct rd *r, struct hp_prof *pf, const struct hp_section *s,
			 uint64_t at)
{
	struct recs q = {r, s->data, s->len, 0, at, "MODULES", "module", "path runs",
			 sizeof(struct hp_module_rec)};
	uint32_t n = 0;
	int rc = recs_open(&q, &n, (void **)&pf->modules, sizeof(*pf->modules));
	if (rc)
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		struct hp_module *m = &pf->modules[i];
		const uint8_t *str = NULL;
		if ((rc = recs_next(&q, i, &m->rec, module_strings, &str)))
			return rc;
		m->path = memdup_str(str, m->rec.path_len);
		if (!m->path)
			return -ENOMEM;
		pf->nmodules = i + 1;
	}
	return 0;
}

static uint64_t region_strings(const void *rec)
{
	const struct hp_region_rec *g = rec;
	return (uint64_t)g->name_len + g->file_len;
}

static int parse_regions(struct rd *r, struct hp_prof *pf, const struct hp_section *s,
			 uint64_t at)
{
	struct recs q = {r, s->data, s->len, 0, at, "REGIONS", "region", "names run",
			 sizeof(struct hp_region_rec)};
	uint32_t n = 0;
	int rc = recs_open(&q, &n, (void **)&pf->regions, sizeof(*pf->regions));
	if (rc)
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		struct hp_region_rec rec;
		const uint8_t *str = NULL;
		if ((rc = recs_next(&q, i, &rec, region_strings, &str)))
			return rc;
		struct hp_region *g = &pf->regions[i];
		g->id = rec.id;
		g->line = rec.line;
		g->name = memdup_str(str, rec.name_len);
		g->file = memdup_str(str + rec.name_len, rec.file_len);
		pf->nregions = i + 1;
		if (!g->name || !g->file)
			return -ENOMEM;
	}
	return 0;
}

/* The file's bytes are in pf->buf; check the frame, then parse. */
static int parse(struct rd *r, struct hp_prof *pf)
{
	const uint8_t *b = pf->buf;
	size_t size = pf->size;
	char nb[32];

	if (size == 0)
		return rd_err(r, "empty file (was the program killed before its profile was written?)");
	size_t m = size < 8 ? size : 8;
	if (memcmp(b, HP_FORMAT_MAGIC, m) != 0)
		return rd_err(r, "not a hyprof profile (bad magic)");
	if (size < HDR_LEN)
		return rd_err(r,
			      "truncated at byte %zu (the file header is %u bytes; was the "
			      "program killed while writing?)",
			      size, HDR_LEN);
	pf->version = rd32(b + 8);
	pf->flags = rd32(b + 12);

	/* The header and the trailer keep their layout in every version, so
	 * the checksum is checked before the version: a flipped byte reads as
	 * corruption, not as a file from the future. */
	int have_trailer = 0;
	if (size >= HDR_LEN + TRAILER_LEN) {
		const uint8_t *t = b + size - TRAILER_LEN;
		have_trailer = rd32(t) == HP_SEC_TRAILER && rd64(t + 8) == TRAILER_PAYLOAD;
	}
	if (!have_trailer) {
		/* find where it breaks, to say so */
		uint64_t off = HDR_LEN;
		while (off < size) {
			if (size - off < SEC_HDR_LEN)
				return rd_err(r,
					      "truncated at byte %zu (section header at byte %llu "
					      "is cut; was the program killed while writing?)",
					      size, (unsigned long long)off);
			uint32_t type = rd32(b + off);
			uint64_t len = rd64(b + off + 8);
			if (len > size - off - SEC_HDR_LEN)
				return rd_err(r,
					      "truncated at byte %zu (section %s at byte %llu runs "
					      "past the end; was the program killed while writing?)",
					      size, sec_name(type, nb, sizeof(nb)),
					      (unsigned long long)off);
			off += SEC_HDR_LEN + len;
			if (type == HP_SEC_TRAILER && off < size)
				return rd_err(r,
					      "%llu bytes follow the trailer (file appended to or "
					      "corrupt)",
					      (unsigned long long)(size - off));
		}
		return rd_err(r,
			      "truncated at byte %zu (no trailer; was the program killed while "
			      "writing?)",
			      size);
	}
	const uint8_t *t = b + size - TRAILER_LEN;
	if (rd32(t + 4) != 0 || rd32(t + 20) != 0)
		return rd_err(r, "damaged trailer (reserved fields not zero; file corrupt)");
	uint64_t flen = rd64(t + 24);
	if (flen != size)
		return rd_err(r,
			      "the trailer records %llu bytes but the file has %zu (file "
			      "truncated, appended to or corrupt)",
			      (unsigned long long)flen, size);
	if (hp_crc32(0, b, size - TRAILER_LEN) != rd32(t + 16))
		return rd_err(r, "checksum mismatch (file corrupt)");
	if (pf->version == 0)
		return rd_err(r, "bad format version 0 (file corrupt)");
	if (pf->version > HP_FORMAT_VERSION)
		return rd_err(r, "version %u is newer than this hyprof (%u); read it with a newer hyprof",
			      pf->version, HP_FORMAT_VERSION);

	/* sections */
	uint64_t end = size - TRAILER_LEN, off = HDR_LEN;
	size_t nsec = 0;
	while (off < end) {
		if (end - off < SEC_HDR_LEN)
			return rd_err(r, "section header at byte %llu runs into the trailer (file corrupt)",
				      (unsigned long long)off);
		uint32_t type = rd32(b + off);
		uint64_t len = rd64(b + off + 8);
		if (len > end - off - SEC_HDR_LEN)
			return rd_err(r,
				      "section %s at byte %llu claims %llu bytes, past the end of "
				      "its data at byte %llu (file corrupt)",
				      sec_name(type, nb, sizeof(nb)), (unsigned long long)off,
				      (unsigned long long)len, (unsigned long long)end);
		if (type == HP_SEC_TRAILER)
			return rd_err(r, "a trailer at byte %llu before the end (file corrupt)",
				      (unsigned long long)off);
		off += SEC_HDR_LEN + len;
		nsec++;
	}
	pf->secs = calloc(nsec + 1, sizeof(*pf->secs));
	uint64_t *at = calloc(nsec + 1, sizeof(*at));
	if (!pf->secs || !at) {
		free(at);
		return -ENOMEM;
	}
	size_t nthr = 0;
	off = HDR_LEN;
	for (size_t i = 0; i < nsec; i++) {
		struct hp_section *s = &pf->secs[i];
		s->type = rd32(b + off);
		s->flags = rd32(b + off + 4);
		s->len = rd64(b + off + 8);
		s->data = b + off + SEC_HDR_LEN;
		at[i] = off;
		off += SEC_HDR_LEN + s->len;
		nthr += s->type == HP_SEC_THREAD;
	}
	pf->nsecs = nsec;
	pf->threads = calloc(nthr + 1, sizeof(*pf->threads));
	if (!pf->threads) {
		free(at);
		return -ENOMEM;
	}
	int rc = 0, got_meta = 0, got_calib = 0, got_cost = 0, got_mod = 0, got_reg = 0;
	for (size_t i = 0; i < nsec && !rc; i++) {
		const struct hp_section *s = &pf->secs[i];
		struct hp_kvlist *kv = NULL;
		int *got = NULL;
		switch (s->type) {
		case HP_SEC_META: kv = &pf->meta; got = &got_meta; break;
		case HP_SEC_CALIB: kv = &pf->calib; got = &got_calib; break;
		case HP_SEC_COST: kv = &pf->cost; got = &got_cost; break;
		case HP_SEC_MODULES:
			if (!got_mod++)
				rc = parse_modules(r, pf, s, at[i]);
			break;
		case HP_SEC_REGIONS:
			if (!got_reg++)
				rc = parse_regions(r, pf, s, at[i]);
			break;
		case HP_SEC_THREAD:
			rc = parse_thread(r, s, &pf->threads[pf->nthreads++], at[i]);
			break;
		default: break; /* kept in secs[] for whoever knows it */
		}
		if (kv && !(*got)++) {
			rc = hp_kv_parse(s->data, (size_t)s->len, kv);
			if (rc == -EINVAL)
				rc = rd_err(r,
					    "section %s at byte %llu: bad key-value block (file "
					    "corrupt)",
					    sec_name(s->type, nb, sizeof(nb)), (unsigned long long)at[i]);
		}
	}
	free(at);
	return rc;
}

int hp_prof_read(const char *path, struct hp_prof **out, char *err, size_t errlen)
{
	struct rd r = {.path = path, .err = err, .errlen = errlen};
	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	/* O_NONBLOCK: a FIFO named *.hyp would block the open until a writer
	 * came (a report that never ends); it opens at once and fstat below
	 * refuses it.  A regular file's reads ignore the flag. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		rd_err(&r, "cannot open: %s", strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		rd_err(&r, "cannot stat: %s", strerror(e));
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		rd_err(&r, "not a regular file");
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	struct hp_prof *pf = calloc(1, sizeof(*pf));
	size_t size = (size_t)st.st_size;
	if (!pf || !(pf->path = strdup(path)) || !(pf->buf = malloc(size ? size : 1))) {
		close(fd);
		hp_prof_free(pf);
		rd_err(&r, "out of memory reading %zu bytes", size);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t k = read(fd, pf->buf + got, size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			close(fd);
			hp_prof_free(pf);
			rd_err(&r, "read error: %s", strerror(e));
			return -e;
		}
		if (k == 0)
			break; /* shrank while reading: check what we have */
		got += (size_t)k;
	}
	close(fd);
	pf->size = got;
	int rc = parse(&r, pf);
	if (rc) {
		if (rc == -ENOMEM)
			rd_err(&r, "out of memory");
		hp_prof_free(pf);
		return rc;
	}
	*out = pf;
	return 0;
}
