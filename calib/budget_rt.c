/* calib/budget_rt.c - the overhead budget in the runtime: the slot table the
 * probes read, per-thread skip counters, the regulator's interval (called by
 * the cost controller thread, calib/cost_rt.c), partial marking of the
 * regulated call paths, and section HP_SEC_BUDGET.
 *
 * Without a budget (HYPROF_MAX_OVERHEAD unset or 0) nothing here runs after
 * hp_budget_init(): hp_budget_used stays 0 and every probe pays one load and
 * one predictable branch.  There is no fixed throttling anywhere in hyprof's
 * probes: only a budget regulates.
 *
 * Signal-safe: hp_budget_thread_slow() (mmap once per thread),
 * hp_budget_skips(), hp_budget_slot_totals(), hp_budget_mark_partial(),
 * hp_budget_write().  The rest runs at set-up or on the controller thread.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "calib/budget.h"
#include "calib/calib.h"
#include "calib/cost_priv.h"
#include "core/format.h"
#include "runtime/state.h"

int hp_budget_used;
int hp_budget_armed;
struct hp_budget_slot hp_budget_tab[HP_BUDGET_SLOTS];
__thread struct hp_budget_thread *hp_budget_self __attribute__((tls_model("initial-exec")));

/* Present when some object of libhyprof.so calls the hooks. */
extern char __start_hyprof_budget_enter[] __attribute__((weak, visibility("hidden")));
extern char __start_hyprof_budget_exit[] __attribute__((weak, visibility("hidden")));

static struct hp_budget_thread *threads; /* every thread's counters, pushed once */

static struct {
	int active;
	int wired;               /* the probes call hp_budget_enter/exit */
	double budget;           /* fraction */
	double skip_pair_s;      /* cost of a skipped pair */
	int skip_measured;       /* skip_pair_s was measured (else an upper estimate) */
	struct hp_bpol pol;
	uint32_t ticks, ticks_off, ticks_infeasible;
	uint32_t regulated;      /* points ever regulated */
	double last_work, last_floor;
	uint32_t slots_full;     /* points that could not get a slot */
	int debug;               /* HYPROF_BUDGET_DEBUG: one log line per interval */
	uint64_t nodes_seen;     /* probe nodes walked by the last partial marking */
} B;

static uint64_t mark(int active);

/* ---- per-thread counters ---------------------------------------------- */

struct hp_budget_thread *hp_budget_thread_slow(void)
{
	struct hp_budget_thread *b = hp_budget_self;
	if (b)
		return b;
	void *p = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	b = p;
	struct hp_budget_thread *head = __atomic_load_n(&threads, __ATOMIC_ACQUIRE);
	do
		b->next = head;
	while (!__atomic_compare_exchange_n(&threads, &head, b, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
	hp_budget_self = b;
	return b;
}

void hp_budget_skips(uint64_t *roots, uint64_t *nested)
{
	uint64_t r = 0, n = 0;
	for (struct hp_budget_thread *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next) {
		for (int s = 0; s < HP_BUDGET_SLOTS; s++)
			r += b->skips[s];
		n += b->nested;
	}
	*roots = r;
	*nested = n;
}

void hp_budget_slot_totals(uint64_t *out)
{
	memset(out, 0, HP_BUDGET_SLOTS * sizeof(*out));
	for (struct hp_budget_thread *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next)
		for (int s = 0; s < HP_BUDGET_SLOTS; s++)
			out[s] += b->skips[s];
}

uint64_t hp_budget_slot_skips(int slot)
{
	uint64_t n = 0;
	if (slot < 0 || slot >= HP_BUDGET_SLOTS)
		return 0;
	for (struct hp_budget_thread *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next)
		n += b->skips[slot];
	return n;
}

static uint64_t resets_total(void)
{
	uint64_t n = 0;
	for (struct hp_budget_thread *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next)
		n += b->resets;
	return n;
}

/* ---- slots -------------------------------------------------------------- */

/* The slot of `key`, taken if new (controller thread only).  -1 if full. */
static int slot_take(uint64_t key, uint32_t index)
{
	uint32_t h = hp_budget_hash(key);
	for (int i = 0; i < HP_BUDGET_SLOTS; i++, h = (h + 1) & (HP_BUDGET_SLOTS - 1)) {
		uint64_t k = hp_budget_tab[h].key;
		if (k == key) {
			hp_budget_tab[h].index = index; /* (again after a fork) */
			return (int)h;
		}
		if (k == 0) {
			hp_budget_tab[h].off = 0;
			hp_budget_tab[h].index = index;
			__atomic_store_n(&hp_budget_tab[h].key, key, __ATOMIC_RELEASE);
			return (int)h;
		}
	}
	return -1;
}

static void slot_set(int s, int off)
{
	if (hp_budget_tab[s].off != (uint32_t)off)
		__atomic_store_n(&hp_budget_tab[s].off, (uint32_t)off, __ATOMIC_RELAXED);
}

/* ---- set-up: the cost of a skipped probe pair ---------------------------- */

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static __attribute__((noinline, no_instrument_function)) void calib_key(void)
{
	__asm__ volatile("");
}

static double median3(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

/* Run the real probes (through their PLT entries, as a program calls them)
 * with a key regulated off.  Only when the probes are wired: otherwise the
 * calls would reach the profile. */
static void skip_calibrate(void)
{
	double hz = hp_calib.tsc_hz > 0 ? hp_calib.tsc_hz : hp_rt.tsc_hz;
	if (!B.wired || hz <= 0 || hp_rt.cfg.mode == HP_MODE_SAMPLED)
		return;
	uint64_t key = (uint64_t)(uintptr_t)calib_key;
	int s = slot_take(key, 0);
	if (s < 0)
		return;
	void *fn = (void *)(uintptr_t)key;
	hp_budget_tab[s].off = 1;
	__atomic_store_n(&hp_budget_armed, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&hp_budget_used, 1, __ATOMIC_SEQ_CST);
	__cyg_profile_func_enter(fn, NULL);
	struct hp_budget_thread *b = hp_budget_self;
	int ok = b && b->depth == 1 && b->skip_key == key;
	__cyg_profile_func_exit(fn, NULL);
	/* The pair's whole cost as the program pays it: two calls through the
	 * PLT, the check, two returns (the program would make none of them
	 * without instrumentation). */
	enum { K = 4000, TRIALS = 9 };
	double v[TRIALS];
	int nv = 0;
	for (int t = 0; ok && t < TRIALS; t++) {
		uint64_t a = hp_rdtsc();
		for (int i = 0; i < K; i++) {
			__cyg_profile_func_enter(fn, NULL);
			__cyg_profile_func_exit(fn, NULL);
		}
		uint64_t e = hp_rdtsc();
		v[nv++] = (double)(e - a) / K / hz;
	}
	if (b)
		b->skips[s] = 0; /* not the program's */
	hp_budget_tab[s].off = 0;
	__atomic_store_n(&hp_budget_armed, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&hp_budget_used, 0, __ATOMIC_SEQ_CST);
	if (!ok) {
		hp_log("budget: the probes did not skip a regulated key: regulation is off");
		B.wired = 0;
		return;
	}
	B.skip_pair_s = median3(v, nv);
	B.skip_measured = 1;
}

int hp_budget_init(void)
{
	memset(&B, 0, sizeof(B));
	double pct = hp_rt.cfg.max_overhead;
	/* Without a measurement, a skipped pair costs at most a counted one. */
	B.skip_pair_s = hp_calib.count_probe.median * 1e-9;
	if (!(pct > 0))
		return 0;
	B.budget = pct / 100.0;
	B.debug = hp_rt.cfg.budget_debug; /* HYPROF_BUDGET_DEBUG */
	B.wired = __start_hyprof_budget_enter && __start_hyprof_budget_exit;
	if (!B.wired) {
		hp_log("budget: the probes of this build do not call the budget hooks: nothing can "
		       "be regulated (the cost is still measured and reported)");
	}
	skip_calibrate();
	B.active = 1;
	/* Aim a little under the budget: the estimates behind each decision
	 * are one interval old and noisy. */
	B.pol.budget = B.budget;
	B.pol.margin = 0.9;
	return 0;
}

int hp_budget_active(void)
{
	return B.active;
}

double hp_budget_skip_pair_s(void)
{
	return B.skip_pair_s;
}

/* ---- the regulator's interval (controller thread) ------------------------- */

void hp_budget_tick(const struct hp_cost_interval *iv)
{
	if (!B.active || !B.wired)
		return;
	static uint64_t tot[HP_BUDGET_SLOTS];
	hp_budget_slot_totals(tot);
	uint32_t n = __atomic_load_n(&hp_cpts.n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		struct hp_bpol_pt *p = &hp_cpts.pol[i];
		int s = hp_cpts.slot[i];
		int was_on = p->ticks == 0 || p->on;
		if (i < iv->new_from) {
			if (was_on)
				hp_cpts.on_total[i] += iv->dt;
			else
				hp_cpts.off_total[i] += iv->dt;
		} else {
			hp_cpts.on_total[i] += iv->dt; /* at most: it appeared during it */
		}
		if (s >= 0) {
			uint64_t d = tot[s] - hp_cpts.skips_prev[i];
			hp_cpts.skips_prev[i] = tot[s];
			if (!was_on && iv->dcpu > 0) {
				/* Regulated the whole interval: its skipped activations are
				 * its calls (per CPU second, as the predictor's rates). */
				hp_cpts.rate_off[i] = (double)d / iv->dcpu;
				if (d)
					hp_cpts.pred[i].rate = hp_cpts.rate_off[i];
			}
		}
		/* Rates are per CPU second of the process; costs per second. */
		double rate = hp_cpts.pred[i].rate * iv->cpu_rate;
		double roff = (hp_cpts.rate_off[i] > 0 ? hp_cpts.rate_off[i] : hp_cpts.pred[i].rate) *
			      iv->cpu_rate;
		p->cost_on = iv->kappa * rate * iv->pair_s;
		p->cost_off = roff * B.skip_pair_s;
		/* A point with a handful of calls cannot cost anything that
		 * matters (its first rate is only a floor over a short interval). */
		if (hp_cpts.calls[i] + (s >= 0 ? tot[s] : 0) < 100)
			p->cost_on = p->cost_off = 0;
		if (p->cost_off > p->cost_on)
			p->cost_off = p->cost_on;
	}
	B.last_work = iv->work;
	B.last_floor = iv->floor;
	/* The budget holds for the whole run: what the next interval may spend
	 * is what keeps cost / work at the budget once it is over, start-up and
	 * earlier overshoot included (never more than twice the budget's rate,
	 * so a cheap start does not buy a burst). */
	double w_next = iv->work * iv->dt;
	double b_eff = B.budget;
	if (w_next > 0) {
		b_eff = (B.budget * (iv->cum_work + w_next) - iv->cum_cost) / w_next;
		/* (0 would mean "no budget" to the policy: keep it positive) */
		b_eff = b_eff < 1e-9 ? 1e-9 : b_eff > 2 * B.budget ? 2 * B.budget : b_eff;
	}
	B.pol.budget = b_eff;
	B.pol.keep = 0.0005 * B.budget / 0.05 * iv->work; /* 0.05% of the work at a 5% budget */
	int off = hp_bpol__decide(&B.pol, hp_cpts.pol, n, iv->work, iv->floor);
	if (B.debug)
		hp_log("budget t=%lu ms: work %lu%% floor %lu/1e6 cum cost %lu us work %lu us -> "
		       "budget %lu/1e4 level %lu/1e6 off %d%s",
		       (unsigned long)(iv->now_s * 1e3), (unsigned long)(iv->work * 100),
		       (unsigned long)(iv->floor * 1e6), (unsigned long)(iv->cum_cost * 1e6),
		       (unsigned long)(iv->cum_work * 1e6), (unsigned long)(b_eff * 1e4),
		       (unsigned long)(isfinite(B.pol.last_level) ? B.pol.last_level * 1e6 : 999999),
		       off, B.pol.infeasible ? " (infeasible)" : "");
	B.ticks++;
	if (off)
		B.ticks_off++;
	if (B.pol.infeasible)
		B.ticks_infeasible++;
	int armed = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct hp_bpol_pt *p = &hp_cpts.pol[i];
		hp_cpts.enabled[i] = p->duty;
		hp_cpts.on_s[i] = p->on ? 1e30 : 0;
		int s = hp_cpts.slot[i];
		if (!p->on && s < 0 && !p->fixed) {
			s = slot_take(p->key, i);
			if (s < 0) {
				/* No slot left: this point cannot be regulated. */
				p->fixed = 1;
				p->on = 1;
				B.slots_full++;
				continue;
			}
			hp_cpts.slot[i] = (int16_t)s;
			hp_cpts.skips_prev[i] = tot[s];
			B.regulated++;
		}
		if (s >= 0) {
			slot_set(s, !p->on);
			armed += !p->on;
		}
	}
	if (armed)
		__atomic_store_n(&hp_budget_used, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&hp_budget_armed, armed, __ATOMIC_RELEASE);
	/* Partial marks walk every probe node: every interval for trees of
	 * up to 20,000 nodes, every 10th (0.5 s) for larger ones.  The runtime
	 * marks once more before it writes the threads' trees. */
	if (__atomic_load_n(&hp_budget_used, __ATOMIC_RELAXED) &&
	    (B.nodes_seen < 20000 || B.ticks % 10 == 1))
		B.nodes_seen = mark(B.wired);
}

/* ---- partial call paths --------------------------------------------------- */

/* Skipped activations of key, and its counted calls, or 0 if never regulated. */
static int point_skips(uint64_t key, uint64_t *skipped, uint64_t *calls)
{
	int s = hp_budget_slot_of(key);
	if (s < 0)
		return 0;
	uint32_t i = hp_budget_tab[s].index;
	if (i >= __atomic_load_n(&hp_cpts.n, __ATOMIC_ACQUIRE) || hp_cpts.pol[i].key != key)
		return 0;
	*skipped = hp_budget_slot_skips(s);
	*calls = hp_cpts.calls[i];
	return *skipped > 0;
}

void hp_budget_mark_partial(void)
{
	if (B.active && __atomic_load_n(&hp_budget_used, __ATOMIC_RELAXED))
		mark(1);
}

/* Returns the number of nodes walked. */
static uint64_t mark(int active)
{
	uint64_t walked = 0;
	if (!active)
		return 0;
	for (struct hp_thread *t = __atomic_load_n(&hp_rt.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		struct cct *tr = &t->probe;
		if (!tr->nodes)
			continue;
		uint32_t n = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
		if (n > tr->cap)
			n = tr->cap;
		walked += n;
		/* Parents come before children: one pass propagates the flag and
		 * the missed fraction down the regulated subtrees. */
		for (uint32_t i = 1; i < n; i++) {
			struct cct_node *nd = &tr->nodes[i];
			uint32_t par = nd->parent < n ? nd->parent : CCT_ROOT;
			const struct cct_node *pn = &tr->nodes[par];
			uint64_t sk = 0, calls = 0;
			double ratio = 0; /* skipped / counted of this node */
			int own = point_skips(nd->key, &sk, &calls);
			if (own && calls > 0)
				ratio = (double)sk / (double)calls;
			if ((pn->flags & CCT_F_PARTIAL) && pn->calls > 0) {
				/* Missed whenever an ancestor was skipped. */
				double pr = (double)pn->skipped / (double)pn->calls;
				ratio = (1 + ratio) * (1 + pr) - 1;
				own = 1;
			}
			if (!own)
				continue;
			__atomic_or_fetch(&nd->flags, CCT_F_PARTIAL, __ATOMIC_RELAXED);
			nd->skipped = (uint64_t)llround(ratio * (double)nd->calls);
		}
	}
	return walked;
}

/* ---- fork ----------------------------------------------------------------- */

void hp_budget_after_fork_child(void)
{
	/* The child starts its own profile: forget the parent's skips, keep
	 * the calling thread's skip region (fork may be called inside one). */
	for (struct hp_budget_thread *b = threads; b; b = b->next) {
		memset(b->skips, 0, sizeof(b->skips));
		b->nested = b->resets = 0;
	}
	B.ticks = B.ticks_off = B.ticks_infeasible = B.regulated = 0;
	B.slots_full = 0;
	B.pol.last_level = B.pol.last_target = 0;
	B.pol.infeasible = 0;
	for (int s = 0; s < HP_BUDGET_SLOTS; s++)
		if (hp_budget_tab[s].key)
			hp_budget_tab[s].off = 0, hp_budget_tab[s].index = 0xffffffffu;
	hp_budget_armed = 0;
}

/* ---- HP_SEC_BUDGET ---------------------------------------------------------- */

static int budget_kv(struct hp_writer *w, uint64_t roots, uint64_t nested, uint32_t nrec)
{
	int rc = 0;
#define KVF(k, v) rc = rc ? rc : hp_writer_kv_f64(w, k, v)
#define KVU(k, v) rc = rc ? rc : hp_writer_kv_u64(w, k, v)
	KVF("budget", B.budget);
	KVF("margin", B.pol.margin);
	KVU("wired", (uint64_t)B.wired);
	KVF("skip_pair_ns", B.skip_pair_s * 1e9);
	KVU("skip_pair_measured", (uint64_t)B.skip_measured);
	KVU("ticks", B.ticks);
	KVU("ticks_regulating", B.ticks_off);
	KVU("ticks_infeasible", B.ticks_infeasible);
	KVU("regulated", B.regulated);
	KVU("records", nrec);
	KVU("slots_full", B.slots_full);
	KVU("skipped.roots", roots);
	KVU("skipped.nested", nested);
	KVU("skip_resets", resets_total());
	KVF("last.work", B.last_work);
	KVF("last.floor", B.last_floor);
	KVF("last.target", B.pol.last_target);
	KVF("last.level", isfinite(B.pol.last_level) ? B.pol.last_level : -1.0);
	KVF("last.budget", B.pol.budget);
#undef KVF
#undef KVU
	return rc;
}

int hp_budget_write(struct hp_writer *w)
{
	if (!B.active)
		return 0;
	uint64_t roots = 0, nested = 0;
	hp_budget_skips(&roots, &nested);
	uint32_t n = __atomic_load_n(&hp_cpts.n, __ATOMIC_ACQUIRE);
	uint32_t nrec = 0;
	for (uint32_t i = 0; i < n; i++)
		nrec += hp_cpts.slot[i] >= 0 && hp_cpts.pol[i].key != (uint64_t)(uintptr_t)calib_key;
	/* kv size first (the section puts its length before it). */
	size_t kvlen = 0;
	{
		/* Same keys as budget_kv(): every value is 8 bytes. */
		static const char *const keys[] = {
			"budget", "margin", "wired", "skip_pair_ns", "skip_pair_measured", "ticks",
			"ticks_regulating", "ticks_infeasible", "regulated", "records", "slots_full",
			"skipped.roots", "skipped.nested", "skip_resets", "last.work", "last.floor",
			"last.target", "last.level", "last.budget"};
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			kvlen += hp_kv_size(keys[k], 8);
	}
	int rc = hp_writer_begin(w, HP_SEC_BUDGET);
	rc = rc ? rc : hp_writer_u32(w, (uint32_t)kvlen);
	rc = rc ? rc : budget_kv(w, roots, nested, nrec);
	rc = rc ? rc : hp_writer_u32(w, nrec);
	/* A live snapshot runs beside the controller, which may give a point a
	 * slot between the count above and this loop (slots are only ever
	 * given, never taken back): write at most the nrec records announced. */
	uint32_t written = 0;
	for (uint32_t i = 0; i < n && !rc && written < nrec; i++) {
		int s = hp_cpts.slot[i];
		if (s < 0 || hp_cpts.pol[i].key == (uint64_t)(uintptr_t)calib_key)
			continue;
		written++;
		struct hp_budget_rec r = {
			.key = hp_cpts.pol[i].key,
			.calls = hp_cpts.calls[i],
			.skipped = hp_budget_slot_skips(s),
			.on_s = hp_cpts.on_total[i],
			.off_s = hp_cpts.off_total[i],
			.duty = hp_cpts.pol[i].duty,
			.cost_rate = hp_cpts.pol[i].cost_on,
			.offs = hp_cpts.pol[i].offs,
			.flags = (hp_cpts.flags[i] & HP_PT_REGION) ? HP_BREC_REGION : 0,
		};
		rc = hp_writer_bytes(w, &r, sizeof(r));
	}
	return rc ? rc : hp_writer_end(w);
}
