/* tools/view_comp.c - the compensation header of `hyprof report` (measured
 * mode): which mode ran, how much probe overhead local compensation removed,
 * how many calls were clamped at zero, and the calibrated costs it used.
 *
 * Reads the HP_SEC_COUNTING and HP_SEC_CALIB sections of every profile of
 * the model (summed over processes; costs from the first process) and the
 * model's root totals (raw and compensated).  The costs are the start-up
 * calibration's and, when measured mode recalibrated in situ, what the
 * bursts measured during the run (docs/probes.md).
 */
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "tools/json.h"
#include "tools/util.h"
#include "tools/views.h"

struct comp_sum {
	int nprofs;             /* profiles with a counting section */
	char mode[64];          /* effective mode of the first */
	char compensation[64];
	double removed_s;
	uint64_t clamped, probes, mismatch, overflow, folded;
	double timed_ns, di_ns, de_ns, count_ns, sample_us, delay_ns;
	char calib_method[64];
	/* in-situ recalibration (first process) */
	uint64_t bursts;
	double recal_ms, recal_s, pair_mean_ns, pair_min_ns, pair_max_ns, di_last_ns;
	char excluded[512];
};

void view_probe_stack(const struct hp_model *m, uint64_t v[4])
{
	v[0] = v[1] = v[2] = v[3] = 0;
	for (size_t i = 0; i < m->nprofs; i++) {
		const struct hp_section *sec = hp_prof_section(m->profs[i], HP_SEC_COUNTING);
		struct hp_kvlist kv = {0};
		if (!sec || hp_kv_parse(sec->data, sec->len, &kv) != 0)
			continue;
		v[0] += hp_kv_u64(&kv, "exit_mismatch", 0);
		v[1] += hp_kv_u64(&kv, "stack_overflow", 0);
		v[2] += hp_kv_u64(&kv, "nested_lost", 0);
		v[3] += hp_kv_u64(&kv, "tree_full", 0);
		hp_kv_free(&kv);
	}
}

static void gather(const struct hp_model *m, struct comp_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < m->nprofs; i++) {
		const struct hp_prof *p = m->profs[i];
		const struct hp_section *sec = hp_prof_section(p, HP_SEC_COUNTING);
		struct hp_kvlist kv = {0};
		if (!sec || hp_kv_parse(sec->data, sec->len, &kv) != 0)
			continue;
		if (s->nprofs++ == 0) {
			snprintf(s->mode, sizeof s->mode, "%s", hp_kv_str(&kv, "mode_effective", "?"));
			snprintf(s->compensation, sizeof s->compensation, "%s",
				 hp_kv_str(&kv, "compensation", "?"));
			snprintf(s->excluded, sizeof s->excluded, "%s",
				 hp_kv_str(&kv, "filter.excluded", ""));
			const struct hp_kvlist *c = &p->calib;
			s->timed_ns = hp_kv_f64(c, "timed_probe_ns.median", 0);
			s->di_ns = hp_kv_f64(c, "di_ns.median", 0);
			s->de_ns = hp_kv_f64(c, "de_ns.median", 0);
			s->count_ns = hp_kv_f64(c, "count_probe_ns.median", 0);
			s->sample_us = hp_kv_f64(c, "sample_kernel_us.median", 0);
			s->delay_ns = hp_kv_f64(c, "probe_delay_ns", 0);
			snprintf(s->calib_method, sizeof s->calib_method, "%s",
				 hp_kv_str(c, "method", "?"));
			double hz = hp_kv_f64(&kv, "tsc_hz", 0), ns = hz > 0 ? 1e9 / hz : 0;
			s->bursts = hp_kv_u64(&kv, "comp.recal_bursts", 0);
			s->recal_ms = hp_kv_f64(&kv, "comp.recal_period_ms", 0);
			s->recal_s = hp_kv_f64(&kv, "comp.recal_s", 0);
			s->pair_mean_ns = hp_kv_f64(&kv, "comp.insitu_pair_cycles.mean", 0) * ns;
			s->pair_min_ns = hp_kv_f64(&kv, "comp.insitu_pair_cycles.min", 0) * ns;
			s->pair_max_ns = hp_kv_f64(&kv, "comp.insitu_pair_cycles.max", 0) * ns;
			s->di_last_ns = hp_kv_f64(&kv, "comp.insitu_di_cycles.last", 0) * ns;
		}
		s->removed_s += hp_kv_f64(&kv, "comp.removed_s", 0);
		s->clamped += hp_kv_u64(&kv, "comp.clamped", 0);
		s->probes += hp_kv_u64(&kv, "probes_seen", 0);
		s->mismatch += hp_kv_u64(&kv, "exit_mismatch", 0);
		s->overflow += hp_kv_u64(&kv, "stack_overflow", 0);
		s->folded += hp_kv_u64(&kv, "folded_nodes", 0);
		hp_kv_free(&kv);
	}
}

void view_comp_text(struct hp_model *m, FILE *out)
{
	struct comp_sum s;
	gather(m, &s);
	if (!s.nprofs) {
		fprintf(out, "Compensation: no counting section in the profile (written by an older runtime?)\n");
		return;
	}
	char b1[32], b2[32];
	double raw = m->root ? m->root->total_raw : 0;
	fprintf(out, "Compensation (mode %s): %s; removed %s of probe overhead", s.mode,
		s.compensation, tool_fmt_secs(s.removed_s, b1, sizeof b1));
	if (raw > 0)
		fprintf(out, " (%.1f%% of the raw %s)", 100.0 * s.removed_s / raw,
			tool_fmt_secs(raw, b2, sizeof b2));
	fprintf(out, "\n  %llu probe pairs; %llu clamps at 0 (calls that would have taken a node's compensated total"
		     " below zero)\n",
		(unsigned long long)s.probes, (unsigned long long)s.clamped);
	fprintf(out, "  calibrated costs (%s): timed pair %.1f ns = Di %.1f ns inside the call + De %.1f ns outside;"
		     " sample kernel part %.2f us",
		s.calib_method, s.timed_ns, s.di_ns, s.de_ns, s.sample_us);
	if (s.delay_ns > 0)
		fprintf(out, "; includes injected test delay %.0f ns", s.delay_ns);
	fputc('\n', out);
	if (s.bursts)
		fprintf(out, "  recalibrated in situ: %llu bursts (every %.0f ms, %s in all, excluded from every interval);"
			     " timed pair %.1f ns on average, %.1f to %.1f ns measured; Di %.1f ns at the end\n",
			(unsigned long long)s.bursts, s.recal_ms, tool_fmt_secs(s.recal_s, b1, sizeof b1),
			s.pair_mean_ns, s.pair_min_ns, s.pair_max_ns, s.di_last_ns);
	if (s.mismatch || s.overflow)
		fprintf(out, "  %llu exits did not match their entry (longjmp/exceptions), %llu calls past the shadow-stack depth\n",
			(unsigned long long)s.mismatch, (unsigned long long)s.overflow);
	if (s.excluded[0])
		fprintf(out, "  excluded by the filter: %s\n", s.excluded);
	fputs("  (`hyprof report --raw` shows the times before compensation)\n", out);
}

void view_comp_json(struct hp_model *m, struct json *j)
{
	struct comp_sum s;
	gather(m, &s);
	json__key(j, "compensation");
	if (!s.nprofs) {
		json__null(j);
		return;
	}
	double raw = m->root ? m->root->total_raw : 0;
	json__obj_begin(j);
	json__key(j, "mode_effective");
	json__str(j, s.mode);
	json__key(j, "method");
	json__str(j, s.compensation);
	json__key(j, "removed_s");
	json__num(j, s.removed_s);
	json__key(j, "removed_pct");
	json__num(j, raw > 0 ? 100.0 * s.removed_s / raw : 0);
	json__key(j, "clamped");
	json__uint(j, s.clamped);
	json__key(j, "probes");
	json__uint(j, s.probes);
	json__key(j, "exit_mismatch");
	json__uint(j, s.mismatch);
	json__key(j, "stack_overflow");
	json__uint(j, s.overflow);
	json__key(j, "costs");
	json__obj_begin(j);
	json__key(j, "calibration");
	json__str(j, s.calib_method);
	json__key(j, "timed_probe_ns");
	json__num(j, s.timed_ns);
	json__key(j, "di_ns");
	json__num(j, s.di_ns);
	json__key(j, "de_ns");
	json__num(j, s.de_ns);
	json__key(j, "count_probe_ns");
	json__num(j, s.count_ns);
	json__key(j, "sample_kernel_us");
	json__num(j, s.sample_us);
	json__key(j, "probe_delay_ns");
	json__num(j, s.delay_ns);
	json__key(j, "insitu");
	json__obj_begin(j);
	json__key(j, "bursts");
	json__uint(j, s.bursts);
	json__key(j, "period_ms");
	json__num(j, s.recal_ms);
	json__key(j, "bursts_s");
	json__num(j, s.recal_s);
	json__key(j, "timed_probe_ns_mean");
	json__num(j, s.pair_mean_ns);
	json__key(j, "timed_probe_ns_min");
	json__num(j, s.pair_min_ns);
	json__key(j, "timed_probe_ns_max");
	json__num(j, s.pair_max_ns);
	json__key(j, "di_ns_last");
	json__num(j, s.di_last_ns);
	json__obj_end(j);
	json__obj_end(j);
	json__key(j, "excluded");
	json__str(j, s.excluded);
	json__obj_end(j);
}
