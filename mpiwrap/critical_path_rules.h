/* mpiwrap/critical_path_rules.h - the update rules of the online critical
 * path as pure functions (ALGORITHMS.md section 6; Hollingsworth 1996,
 * Figures 3 and 5).  critical_path.c applies them to each thread's state
 * and to the piggybacks; tests/critpath/test_rules.c checks them against
 * the offline algorithm (longest paths through the program activity graph)
 * on random message-passing programs.
 *
 * A path state is (len, share[f], net[f]) for n selected functions: the
 * longest path ending here, f's time on it, and the longest path ending
 * here had f taken no time (zeroing: one independent path per f, compared by
 * net length).  On the wire (struct hp_pb) the shares and nets interleave:
 * sn[2f] = share[f], sn[2f + 1] = net[f].  Times are integers (ns).
 *
 * Signal-safe and thread-safe: pure functions on caller-owned arrays.
 */
#ifndef HYPROF_MPIWRAP_CRITICAL_PATH_RULES_H
#define HYPROF_MPIWRAP_CRITICAL_PATH_RULES_H

#include <stdint.h>

/* Local progress: dP of path time (not waiting) since the last event, of
 * which dF[f] was spent in f (0 <= dF[f] <= dP; dF may be NULL: none). */
static inline void hp_cp_advance(int64_t *len, int64_t *share, int64_t *net, int n, int64_t dP,
				 const int64_t *dF)
{
	*len += dP;
	for (int f = 0; f < n; f++) {
		int64_t d = dF ? dF[f] : 0;
		share[f] += d;
		net[f] += dP - d;
	}
}

/* A message (or a collective's combination) carrying the path (rlen, rsn)
 * arrives: the longer path wins with its shares (Figure 3); each zeroing
 * path keeps the larger net length (Figure 5).  Returns 1 when the incoming
 * path was adopted. */
static inline int hp_cp_merge(int64_t *len, int64_t *share, int64_t *net, int n, int64_t rlen,
			      const int64_t *rsn)
{
	int adopt = rlen > *len;
	if (adopt) {
		*len = rlen;
		for (int f = 0; f < n; f++)
			share[f] = rsn[2 * f];
	}
	for (int f = 0; f < n; f++)
		if (rsn[2 * f + 1] > net[f])
			net[f] = rsn[2 * f + 1];
	return adopt;
}

/* Fill the wire form of a path. */
static inline void hp_cp_pack(int64_t *olen, int64_t *osn, int64_t len, const int64_t *share,
			      const int64_t *net, int n)
{
	*olen = len;
	for (int f = 0; f < n; f++) {
		osn[2 * f] = share[f];
		osn[2 * f + 1] = net[f];
	}
}

/* Combine two wire-form paths (a collective's reduction): the longer with
 * its shares (equal lengths: the larger share vector, so that the
 * operation is commutative and associative, as MPI requires), each net the
 * larger. */
static inline void hp_cp_combine(int64_t in_len, const int64_t *in_sn, int64_t *io_len, int64_t *io_sn,
				 int n)
{
	int take = in_len > *io_len;
	for (int f = 0; !take && in_len == *io_len && f < n; f++)
		if (in_sn[2 * f] != io_sn[2 * f]) {
			take = in_sn[2 * f] > io_sn[2 * f];
			break;
		}
	if (take) {
		*io_len = in_len;
		for (int f = 0; f < n; f++)
			io_sn[2 * f] = in_sn[2 * f];
	}
	for (int f = 0; f < n; f++)
		if (in_sn[2 * f + 1] > io_sn[2 * f + 1])
			io_sn[2 * f + 1] = in_sn[2 * f + 1];
}

#endif
