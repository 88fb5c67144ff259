/* core/format.h - the hyprof profile file: writer (runtime) and reader (tools).
 *
 * A profile is one file per process, documented in docs/FORMAT.md:
 *   file header  { "HYPROF\r\n" magic, u32 version, u32 flags }
 *   sections     { u32 type, u32 flags, u64 length, payload[length] } ...
 *   trailer      section HP_SEC_TRAILER { u32 crc32 of every byte before it,
 *                u32 0, u64 file length }
 * Readers skip section types they do not know (forward compatible) and
 * reject files whose trailer or lengths do not check out, with one line of
 * explanation.  Little-endian, the byte order of every supported host.
 *
 * Key-value blocks (HP_SEC_META, HP_SEC_CALIB, ...): repeated records
 *   { u16 key_len, u8 type (enum hp_kv_type), u8 0, u32 value_len, key, value }
 *
 * Signal-safe: every hp_writer_* function (no malloc, no stdio, only
 * open/write/pwrite/read/lseek/rename/close).  The reader is not.
 */
#ifndef HYPROF_CORE_FORMAT_H
#define HYPROF_CORE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/cct.h"

#define HP_FORMAT_MAGIC "HYPROF\r\n"
#define HP_FORMAT_VERSION 1u
#define HP_FILE_EXT ".hyp"

enum hp_file_flag {
	HP_FILE_PARTIAL = 1u << 0, /* written on a fatal signal or at exec: may miss data */
	HP_FILE_MERGED = 1u << 1,  /* several processes merged (MPI merge at finalize) */
};

enum hp_sec_type {
	HP_SEC_META = 1,      /* kv: program, argv, source, period, mode, pid, rank ... */
	HP_SEC_CALIB = 2,     /* kv: calibrated costs (docs/FORMAT.md lists the keys) */
	HP_SEC_MODULES = 3,   /* loaded objects: struct hp_module_rec + path */
	HP_SEC_THREAD = 4,    /* one thread: kv block, then sample and probe nodes */
	HP_SEC_REGIONS = 5,   /* region table: struct hp_region_rec + name + file */
	HP_SEC_COST = 6,      /* kv: the cost system's totals */
	HP_SEC_BUDGET = 7,    /* kv + records: what the overhead budget regulated */
	HP_SEC_COUNTING = 8,  /* kv: probes: effective mode, probes seen, filter, folding (docs/probes.md) */
	HP_SEC_LIVE = 9,      /* kv: live statistics: state, snapshots and their cost (docs/cmd-watch.md) */
	HP_SEC_MPI = 16,      /* kv: per-rank MPI summary, compensation */
	HP_SEC_MPI_SITES = 17,/* per call site and peer statistics */
	HP_SEC_MPI_RANKS = 18,/* merged profiles: one kv block per rank */
	HP_SEC_CRITPATH = 32, /* critical-path state and shares */
	HP_SEC_TRAILER = 0x7fffffff,
};

enum hp_kv_type { HP_KV_STR = 1, HP_KV_U64 = 2, HP_KV_F64 = 3, HP_KV_I64 = 4 };

/* HP_SEC_MODULES payload: u32 count, then per module this record followed by
 * path_len bytes of path (no NUL). */
struct hp_module_rec {
	uint64_t base;      /* load bias: runtime address - ELF virtual address */
	uint64_t lo, hi;    /* runtime address range of the executable segments */
	uint64_t load_ns;   /* CLOCK_MONOTONIC when seen loaded (0 = at start) */
	uint64_t unload_ns; /* when unloaded with dlclose, 0 if still loaded */
	uint32_t path_len;
	uint32_t flags;     /* 1 = main executable, 2 = hyprof runtime, 4 = vdso */
};

/* HP_SEC_REGIONS payload: u32 count, then per region this record, then name
 * then file (no NULs). */
struct hp_region_rec {
	uint64_t id;        /* the key used in the probe tree (CCT_F_REGION nodes) */
	uint32_t line;
	uint16_t name_len;
	uint16_t file_len;
};

/* HP_SEC_THREAD payload: u32 kv_len, kv block, u32 n_sample, u32 n_probe,
 * n_sample struct cct_node, n_probe struct cct_node. */

/* ---- writer ---------------------------------------------------------- */
struct hp_writer {
	int fd;
	int err;              /* first -errno seen; sticky */
	uint64_t off;         /* bytes written so far */
	uint64_t sec_start;   /* offset of the open section's header, or ~0 */
	char tmp[4096];       /* temporary path */
	char final[4096];     /* path after rename */
	uint32_t buf_len;     /* bytes in buf not yet written to fd */
	uint8_t buf[16384];   /* write buffer (few syscalls, no malloc) */
};

/* Create `path`.tmp.<pid>; returns 0 or -errno.  Signal-safe. */
int hp_writer_open(struct hp_writer *w, const char *path, uint32_t file_flags);
int hp_writer_begin(struct hp_writer *w, uint32_t sec_type);
int hp_writer_end(struct hp_writer *w);
int hp_writer_bytes(struct hp_writer *w, const void *p, size_t n);
int hp_writer_u32(struct hp_writer *w, uint32_t v);
int hp_writer_kv_str(struct hp_writer *w, const char *key, const char *val);
int hp_writer_kv_u64(struct hp_writer *w, const char *key, uint64_t v);
int hp_writer_kv_i64(struct hp_writer *w, const char *key, int64_t v);
int hp_writer_kv_f64(struct hp_writer *w, const char *key, double v);
/* Size in bytes of a kv record, for callers that need a length up front. */
size_t hp_kv_size(const char *key, size_t value_len);
/* Write the trailer (crc32 of the file read back), fsync, rename to the final
 * name.  Returns 0 or -errno; on error the temporary file is removed. */
int hp_writer_finish(struct hp_writer *w);
/* Remove the temporary file. */
void hp_writer_abort(struct hp_writer *w);

/* ---- reader ---------------------------------------------------------- */
struct hp_kv {
	const char *key;
	int type;           /* enum hp_kv_type */
	const char *s;      /* HP_KV_STR (NUL-terminated copy) */
	uint64_t u;
	int64_t i;
	double d;
};
struct hp_kvlist {
	struct hp_kv *v;
	size_t n;
};
struct hp_section {
	uint32_t type, flags;
	uint64_t len;
	const uint8_t *data; /* inside hp_prof.buf */
};
struct hp_module {
	struct hp_module_rec rec;
	char *path;
};
struct hp_region {
	uint64_t id;
	uint32_t line;
	char *name, *file;
};
struct hp_prof_thread {
	struct hp_kvlist kv; /* tid, name, samples, dropped.*, ... */
	struct cct_node *sample;
	uint32_t nsample;
	struct cct_node *probe;
	uint32_t nprobe;
};
struct hp_prof {
	char *path;
	uint32_t version, flags;
	uint8_t *buf;
	size_t size;
	struct hp_kvlist meta, calib, cost;
	struct hp_module *modules;
	size_t nmodules;
	struct hp_region *regions;
	size_t nregions;
	struct hp_prof_thread *threads;
	size_t nthreads;
	struct hp_section *secs; /* every section, known or not, in file order */
	size_t nsecs;
};

/* Read and check one profile file.  Returns 0, or -errno with a one-line
 * explanation in err (e.g. "truncated: section 4 at byte 1234 runs past the
 * end of the file").  Thread-safe. */
int hp_prof_read(const char *path, struct hp_prof **out, char *err, size_t errlen);
void hp_prof_free(struct hp_prof *p);
/* Parse a kv block (also used by extension sections).  Returns 0 or -EINVAL. */
int hp_kv_parse(const uint8_t *p, size_t len, struct hp_kvlist *out);
void hp_kv_free(struct hp_kvlist *l);
const struct hp_kv *hp_kv_get(const struct hp_kvlist *l, const char *key);
uint64_t hp_kv_u64(const struct hp_kvlist *l, const char *key, uint64_t def);
int64_t hp_kv_i64(const struct hp_kvlist *l, const char *key, int64_t def);
double hp_kv_f64(const struct hp_kvlist *l, const char *key, double def);
const char *hp_kv_str(const struct hp_kvlist *l, const char *key, const char *def);
/* First section of `type`, or NULL. */
const struct hp_section *hp_prof_section(const struct hp_prof *p, uint32_t type);

/* v in decimal, at least `width` digits (zero-padded, at most 20), into
 * out (room for 21 bytes), NUL-terminated.  Returns the number of digits.
 * Signal-safe (what snprintf is not guaranteed to be). */
int hp_u64_dec(char *out, uint64_t v, int width);

/* CRC-32 (IEEE), incremental: crc = hp_crc32(crc, p, n), start with 0. */
uint32_t hp_crc32(uint32_t crc, const void *p, size_t n);

#endif
