/* counting/counting_priv.h - what the files of counting/ and calib/ share inside
 * libhyprof.so.  Not an interface for other parts of hyprof (they use
 * counting/counting.h and calib/calib.h).
 */
#ifndef HYPROF_COUNTING_PRIV_H
#define HYPROF_COUNTING_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "counting/probe_impl.h"

struct hp_writer;

/* ---- probe.c ------------------------------------------------------------ */
/* Set hp_probe_g's injected delay from hp_rt.cfg.test_probe_delay_ns and the
 * TSC frequency (calibration runs the probes with the delay, so the costs it
 * measures include it). */
HP_HIDDEN void hp_probe_setup_delay(double tsc_hz);

/* Calibration entry points: the bodies of the public probes, byte for byte
 * the same code (one macro), but dispatched on the mode word hp_calib_mode
 * (set it with hp_probe_mode_word()), so calibration can run count and
 * timed pairs whatever mode the program runs in.  Exported (default
 * visibility) so calibration reaches them through the PLT, like a program
 * reaches the public probes. */
HP_HIDDEN extern volatile int hp_calib_mode;
void hp_calib_probe_enter(void *fn, void *site);
void hp_calib_probe_exit(void *fn, void *site);
/* Point the calling thread's probe state at `t` (calibration's private
 * state) and return the previous one.  Probes on this thread then count
 * into `t`; nothing else (sampler, other threads) is affected. */
HP_HIDDEN struct hp_thread *hp_probe_swap_self(struct hp_thread *t);

/* ---- filter.c ----------------------------------------------------------- */
struct hp_filter_ent {
	uint64_t addr;    /* 0 = empty slot */
	const char *name; /* symbol name (copied) */
	volatile uint8_t seen; /* a probe hit it */
};
struct hp_filter_set {
	struct hp_filter_ent *slot;
	uint64_t mask;    /* capacity - 1, capacity a power of two */
	uint32_t n;       /* addresses in the set */
};
HP_HIDDEN extern struct hp_filter_set hp_filter;

/* Parse "name,glob*,..." into patterns and resolve them against the symbol
 * tables of every loaded object.  Returns the number of addresses matched
 * (>= 0) or -errno.  Not signal-safe. */
HP_HIDDEN int hp_filter_init(const char *spec);
/* Does `name` match a pattern of the filter?  (Used for region names.) */
HP_HIDDEN int hp_filter_match_name(const char *name);
/* Number of patterns. */
HP_HIDDEN int hp_filter_npatterns(void);
/* Write the filter keys into the open kv section.  Signal-safe. */
HP_HIDDEN int hp_filter_write_kv(struct hp_writer *w);
/* Record a probe hit on filtered entry e: mark it seen and, the first time,
 * add an excluded node (no counts) under the thread's current node. */
HP_HIDDEN void hp_filter_hit(struct hp_thread *t, struct hp_filter_ent *e, uint64_t key,
			     uint32_t kind);

/* Lookup: the entry for `addr`, or NULL.  Probe context. */
static inline struct hp_filter_ent *hp_filter_find(uint64_t addr)
{
	const struct hp_filter_set *s = &hp_filter;
	if (!s->slot)
		return NULL;
	uint64_t h = (addr * 0x9e3779b97f4a7c15ull) >> 17;
	for (uint64_t i = h & s->mask;; i = (i + 1) & s->mask) {
		struct hp_filter_ent *e = &s->slot[i];
		if (e->addr == addr)
			return e;
		if (e->addr == 0)
			return NULL;
	}
}

/* Pure helpers, exported to the unit tests through this header. */
/* Split `spec` at commas (spaces around names dropped) into at most `max`
 * patterns written into `buf`; returns the count. */
HP_HIDDEN int hp_filter_split(const char *spec, char *buf, size_t buflen, const char **pats,
			      int max);
/* Insert addr into a set with room (n < capacity/2).  Returns the entry. */
HP_HIDDEN struct hp_filter_ent *hp_filter_set_put(struct hp_filter_set *s, uint64_t addr,
						  const char *name);

/* ---- regions.c ---------------------------------------------------------- */
struct hp_region_ent {
	const char *name, *file; /* copies */
	uint32_t line;
	uint32_t name_id;        /* id of the first region with this name */
	uint32_t excluded;       /* name matched HYPROF_FILTER */
	volatile uint32_t seen;  /* an excluded region was hit (reported) */
};
HP_HIDDEN extern struct hp_region_ent *hp_regions; /* [HP_REGION_MAX], id 0 unused */
HP_HIDDEN extern volatile uint32_t hp_nregions;    /* ids in use are 1..hp_nregions */
HP_HIDDEN int hp_regions_init(void);
/* Region id for (name, file, line), created if new; 0 when the table is full
 * or the name is NULL.  Thread-safe (lock-free lookup, locked insert). */
HP_HIDDEN uint32_t hp_region_lookup(const char *name, size_t name_len, const char *file,
				    int line, int create);
/* name_id for a name, 0 if no region has this name.  Lock-free. */
HP_HIDDEN uint32_t hp_region_name_id(const char *name, size_t name_len);
HP_HIDDEN int hp_regions_write(struct hp_writer *w, void *arg);

/* ---- counting.c --------------------------------------------------------- */
/* Sum of probe pairs entered over every thread. */
HP_HIDDEN uint64_t hp_counting_probes_seen(void);
/* The mode in effect, as reported ("sampled (no probes ran)" etc). */
HP_HIDDEN const char *hp_counting_mode_effective(char *buf, size_t len);

#endif
