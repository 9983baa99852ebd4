/* tune_local.c: cko-tune's local search. Best first from the fastest
 * configurations of the history, with a climber per variant. */
#include "tune.h"

#include <stdlib.h>
#include <string.h>

#define SWITCH_COMBOS 4096      /* combinations a variant switch enumerates */
#define EXPLORE_EVERY 2         /* every 2nd slot climbs in another variant */
#define EXPLORE_WITHIN 2.0      /* ... whose best is within 2x of the best */
#define EXPLORE_MIN 16          /* ... or that has been climbed fewer times */

typedef struct {
	uint64_t g;
	char *how;
} move;

typedef struct {
	int entry;      /* in the history */
	double ms;
	tune_point pt;
	uint64_t g;
} origin;

static int cmp_origin(const void *a, const void *b)
{
	const origin *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return x->entry - y->entry; /* history order breaks ties */
}

/* The valid configurations of the history that local search may move
 * from, fastest first, each once; and each variant's fastest. */
typedef struct {
	origin *o;
	int n;
	int *vbest; /* per variant: index in o, or -1 */
} origins;

static void find_origins(tune_state *t, origins *os)
{
	os->o = xcalloc((size_t)t->h.n + 1, sizeof *os->o);
	os->n = 0;
	for (int i = 0; i < t->h.n; i++) {
		const tune_entry *e = &t->h.e[i];
		origin *x = &os->o[os->n];
		if (e->status != TUNE_OK || !e->has_ms || !tune_entry_point(t, e, &x->pt) || !tune_point_valid(&t->sp, &x->pt))
			continue;
		x->entry = i;
		x->ms = e->ms;
		x->g = tune_point_encode(&t->sp, &x->pt);
		os->n++;
	}
	qsort(os->o, (size_t)os->n, sizeof *os->o, cmp_origin);
	int n = 0;
	for (int i = 0; i < os->n; i++) {
		int dup = 0;
		for (int j = 0; j < n && !dup; j++)
			dup = os->o[j].g == os->o[i].g;
		if (!dup)
			os->o[n++] = os->o[i];
	}
	os->n = n;
	os->vbest = xcalloc((size_t)t->sp.nvar, sizeof *os->vbest);
	for (int v = 0; v < t->sp.nvar; v++)
		os->vbest[v] = -1;
	for (int i = n - 1; i >= 0; i--)
		os->vbest[os->o[i].pt.var] = i;
}

/* Index of the value of w's tunable closest to text/ival of another's. */
static int nearest(const tune_param *p, const tune_val *x)
{
	int best = 0;
	for (int j = 0; j < p->nvals; j++) {
		if (!strcmp(p->vals[j].text, x->text))
			return j;
		if (x->is_int && p->vals[j].is_int && p->vals[best].is_int) {
			int64_t d = llabs(p->vals[j].ival - x->ival), db = llabs(p->vals[best].ival - x->ival);
			if (d < db)
				best = j;
		}
	}
	return best;
}

/* The same configuration in variant w: shared tunables keep their value
 * (or the nearest one w has); the others take the values of w's fastest
 * configuration so far, or the middle of their lists. When that point is
 * invalid, the valid one nearest to it (fewest steps along the lists, the
 * first in numbering order on a tie). One fixed point per origin and
 * variant, so a used-up neighbourhood stays used up. 1 with *out set when
 * that point is fresh. */
static int switch_variant(tune_state *t, const origins *os, const tune_point *o, int w, uint64_t *out)
{
	const tune_variant *v = &t->sp.var[o->var], *wv = &t->sp.var[w];
	tune_point q = {.var = w};
	int free_t[TUNE_MAXTUN], base[TUNE_MAXTUN], nfree = 0;
	uint64_t combos = 1;
	for (int i = 0; i < wv->ntun; i++) {
		int shared = -1;
		for (int j = 0; j < v->ntun && shared < 0; j++)
			if (!strcmp(v->tun[j].name, wv->tun[i].name))
				shared = j;
		if (shared >= 0) {
			q.idx[i] = nearest(&wv->tun[i], &v->tun[shared].vals[o->idx[shared]]);
			continue;
		}
		base[nfree] = os->vbest[w] >= 0 ? os->o[os->vbest[w]].pt.idx[i] : wv->tun[i].nvals / 2;
		q.idx[i] = base[nfree];
		free_t[nfree++] = i;
		combos = combos > SWITCH_COMBOS ? combos : combos * (uint64_t)wv->tun[i].nvals;
	}
	int found = tune_point_valid(&t->sp, &q);
	if (!found && nfree) {
		/* The nearest valid combination: all of them when few, else
		 * along each free tunable's axis only. */
		tune_point best = q, c = q;
		int bestd = -1;
		uint64_t n = combos <= SWITCH_COMBOS ? combos : 0;
		for (uint64_t k = 0; k < n; k++) {
			uint64_t r = k;
			int d = 0;
			for (int f = nfree - 1; f >= 0; f--) {
				int i = free_t[f];
				c.idx[i] = (int)(r % (uint64_t)wv->tun[i].nvals);
				r /= (uint64_t)wv->tun[i].nvals;
				d += abs(c.idx[i] - base[f]);
			}
			if ((bestd < 0 || d < bestd) && tune_point_valid(&t->sp, &c))
				best = c, bestd = d;
		}
		for (int f = 0; !n && f < nfree; f++) {
			int i = free_t[f];
			c = q;
			for (int j = 0; j < wv->tun[i].nvals; j++) {
				c.idx[i] = j;
				int d = abs(j - base[f]);
				if ((bestd < 0 || d < bestd) && tune_point_valid(&t->sp, &c))
					best = c, bestd = d;
			}
		}
		found = bestd >= 0;
		q = best;
	}
	if (!found)
		return 0;
	*out = tune_point_encode(&t->sp, &q);
	return tune_fresh(t, *out);
}

static void shuffle(tune_state *t, move *m, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int r = (int)cko_rng_range(&t->rng, 0, i);
		move x = m[r];
		m[r] = m[i];
		m[i] = x;
	}
}

/* Fresh neighbours of o, in a seeded shuffle. Tier 1: one tunable one step
 * along its list (stepping over invalid values to the nearest valid one, so
 * constraints such as divisibility do not wall a point in), or another
 * variant. Tier 2, once every tier-1 neighbourhood is used up: two tunables
 * one step each. */
static int neighbours(tune_state *t, const origins *os, const tune_point *o, int tier, move *m)
{
	const tune_variant *v = &t->sp.var[o->var];
	int n = 0;
	for (int i = 0; tier == 1 && i < v->ntun; i++)
		for (int d = -1; d <= 1; d += 2) {
			tune_point q = *o;
			int j = o->idx[i] + d;
			for (; j >= 0 && j < v->tun[i].nvals; j += d) {
				q.idx[i] = j;
				if (tune_point_valid(&t->sp, &q))
					break;
			}
			if (j < 0 || j >= v->tun[i].nvals)
				continue;
			uint64_t g = tune_point_encode(&t->sp, &q);
			if (tune_fresh(t, g))
				m[n++] = (move){g, xasprintf("%s %s->%s", v->tun[i].name, v->tun[i].vals[o->idx[i]].text,
							     v->tun[i].vals[j].text)};
		}
	for (int w = 0; tier == 1 && w < t->sp.nvar; w++) {
		uint64_t g;
		if (w != o->var && switch_variant(t, os, o, w, &g))
			m[n++] = (move){g, xasprintf("variant %s->%s", v->name, t->sp.var[w].name)};
	}
	for (int a = 0; tier == 2 && a < v->ntun; a++)
		for (int b = a + 1; b < v->ntun; b++)
			for (int da = -1; da <= 1; da += 2)
				for (int db = -1; db <= 1; db += 2) {
					tune_point q = *o;
					q.idx[a] += da;
					q.idx[b] += db;
					if (q.idx[a] < 0 || q.idx[a] >= v->tun[a].nvals || q.idx[b] < 0 ||
					    q.idx[b] >= v->tun[b].nvals)
						continue;
					uint64_t g = tune_point_encode(&t->sp, &q);
					if (tune_fresh(t, g))
						m[n++] = (move){g, xasprintf("%s %s->%s, %s %s->%s", v->tun[a].name,
									     v->tun[a].vals[o->idx[a]].text,
									     v->tun[a].vals[q.idx[a]].text, v->tun[b].name,
									     v->tun[b].vals[o->idx[b]].text,
									     v->tun[b].vals[q.idx[b]].text)};
				}
	shuffle(t, m, n);
	return n;
}

#define MAX_MOVES (2 * TUNE_MAXTUN * TUNE_MAXTUN)

/* Walks the fresh neighbours of a list of origins, best first: all of the
 * first's, then the second's, ... (var < 0: all origins, else only those of
 * that variant); tier 1 through all of them, then tier 2. */
typedef struct {
	int var, pos, from, tier;
	move *m;
	int nm, mpos;
} walker;

static int walk(tune_state *t, const origins *os, walker *w, move *out, int *from)
{
	for (;;) {
		while (w->mpos < w->nm) {
			move x = w->m[w->mpos++];
			if (tune_fresh(t, x.g)) {
				*out = x;
				*from = w->from;
				return 1;
			}
			free(x.how);
		}
		while (w->pos < os->n && w->var >= 0 && os->o[w->pos].pt.var != w->var)
			w->pos++;
		if (w->pos >= os->n) {
			if (w->tier == 2)
				return 0;
			w->tier = 2;
			w->pos = 0;
			continue;
		}
		if (!w->m) /* allocated on first use: few of the walkers ever are */
			w->m = xcalloc((size_t)(MAX_MOVES + t->sp.nvar) + 1, sizeof *w->m);
		w->from = w->pos++;
		w->nm = neighbours(t, os, &os->o[w->from].pt, w->tier, w->m);
		w->mpos = 0;
	}
}

static void walk_free(walker *w)
{
	while (w->mpos < w->nm)
		free(w->m[w->mpos++].how);
	free(w->m);
}

/* Best-first local search with a climber per variant. Most slots take the
 * next fresh neighbour of the fastest configurations (all of the best's,
 * then the next best's, ...); every EXPLORE_EVERY-th slot (counted across
 * iterations) goes instead to the climb inside another variant whose best
 * is within EXPLORE_WITHIN of the overall best or that has had fewer than
 * EXPLORE_MIN evaluations moved to from inside it (the history's "parent"),
 * those variants taken in turn by their best time:
 * a variant whose first samples were unlucky is still climbed, a hopeless
 * one only briefly. Random when the history
 * has no valid configuration or every neighbourhood is used up. */
void tune_local(tune_state *t, int64_t iteration)
{
	origins os;
	find_origins(t, &os);
	walker all = {.var = -1, .tier = 1};
	walker *per = xcalloc((size_t)t->sp.nvar, sizeof *per);
	int *rank = xcalloc((size_t)t->sp.nvar, sizeof *rank), nrank = 0;
	/* Per variant, the evaluations that climbed in it: entries whose parent
	 * is of the same variant. */
	int *evals = xcalloc((size_t)t->sp.nvar, sizeof *evals);
	int *var = xcalloc((size_t)t->h.n + 1, sizeof *var);
	for (int i = 0; i < t->h.n; i++) {
		tune_point pt;
		var[i] = tune_entry_point(t, &t->h.e[i], &pt) ? pt.var : -1;
	}
	for (int i = 0; i < t->h.n; i++) {
		const tune_entry *e = &t->h.e[i];
		if (var[i] < 0 || !e->parent || (e->status != TUNE_OK && e->status != TUNE_INVALID))
			continue;
		for (int j = 0; j < t->h.n; j++)
			if (t->h.e[j].id && !strcmp(t->h.e[j].id, e->parent)) {
				evals[var[i]] += var[j] == var[i];
				break;
			}
	}
	free(var);
	for (int i = 0; i < os.n; i++) {
		int v = os.o[i].pt.var;
		if (os.vbest[v] == i && (!i || os.o[i].ms <= EXPLORE_WITHIN * os.o[0].ms || evals[v] < EXPLORE_MIN))
			rank[nrank++] = v;
	}
	free(evals);
	for (int v = 0; v < t->sp.nvar; v++)
		per[v] = (walker){.var = v, .tier = 1};
	for (int j = 0; j < t->k && t->npicks < t->k; j++) {
		uint64_t s = (uint64_t)iteration * (uint64_t)t->k + (uint64_t)j;
		move x;
		int from, got = 0;
		if (nrank > 1 && s % EXPLORE_EVERY == EXPLORE_EVERY - 1) {
			int v = rank[1 + (int)((s / EXPLORE_EVERY) % (uint64_t)(nrank - 1))];
			got = walk(t, &os, &per[v], &x, &from);
		}
		if (!got && !walk(t, &os, &all, &x, &from))
			break;
		tune_add(t, x.g, os.o[from].entry, "local", x.how);
	}
	tune_random(t, os.n ? "neighbourhoods exhausted" : "no valid candidate in the history yet");
	walk_free(&all);
	for (int v = 0; v < t->sp.nvar; v++)
		walk_free(&per[v]);
	free(per);
	free(rank);
	free(os.vbest);
	free(os.o);
}

