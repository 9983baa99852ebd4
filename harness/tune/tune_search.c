/* tune_search.c: cko-tune's bookkeeping (what the history has seen, the
 * space's size) and its simple strategies: exhaustive, random, auto. */
#include "tune.h"

#include <stdlib.h>
#include <string.h>

#define SCAN_CAP (1ULL << 24)   /* a larger space's exhaustive scan covers its first 2^24 points */
#define SAMPLE_TRIES 4096       /* random draws per wanted point in a larger space */
#define SIZE_SAMPLES 4096       /* draws that estimate a larger space's valid count */
#define AUTO_EXHAUSTIVE 64      /* auto: spaces this small are walked in order */
#define AUTO_RANDOM_ITERS 2     /* auto: iterations of random sampling before local */

static int seen_hash(const tune_state *t, const char *hash)
{
	if (tune_history_seen(&t->h, hash))
		return 1;
	for (int i = 0; i < t->nextra; i++)
		if (!strcmp(t->extra[i], hash))
			return 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Valid, not in the history and not yet picked in this batch. */
int tune_fresh(tune_state *t, uint64_t g)
{
	for (int i = 0; i < t->npicks; i++)
		if (t->picks[i].g == g)
			return 0;
	if (t->counted)
		return bsearch(&g, t->fresh, t->nfresh, sizeof g, cmp_u64) != NULL;
	tune_point pt;
	char hash[65];
	tune_point_decode(&t->sp, g, &pt);
	if (!tune_point_valid(&t->sp, &pt))
		return 0;
	tune_point_hash(&t->sp, &pt, hash);
	return !seen_hash(t, hash);
}

void tune_add(tune_state *t, uint64_t g, int parent, const char *strategy, char *how)
{
	t->picks[t->npicks++] = (tune_pick){g, parent, strategy, how};
}

/* The point a history entry stands for: by its variant's name and defines,
 * or by any variant whose point of those defines has the entry's hash. */
int tune_entry_point(tune_state *t, const tune_entry *e, tune_point *pt)
{
	for (int v = 0; v < t->sp.nvar; v++)
		if (e->variant && !strcmp(e->variant, t->sp.var[v].name) &&
		    tune_point_from_defines(&t->sp, v, e->defines, pt))
			return 1;
	for (int v = 0; e->hash && v < t->sp.nvar; v++) {
		char hash[65];
		if (tune_point_from_defines(&t->sp, v, e->defines, pt)) {
			tune_point_hash(&t->sp, pt, hash);
			if (!strcmp(hash, e->hash))
				return 1;
		}
	}
	return 0;
}

/* Entries without a hash (written by hand, or by an older tool) still mark
 * their configuration as seen. */
static void note_hashless(tune_state *t)
{
	t->extra = xcalloc((size_t)t->h.n + 1, sizeof *t->extra);
	for (int i = 0; i < t->h.n; i++) {
		tune_point pt;
		char hash[65];
		if (t->h.e[i].hash || !tune_entry_point(t, &t->h.e[i], &pt))
			continue;
		tune_point_hash(&t->sp, &pt, hash);
		if (!seen_hash(t, hash))
			t->extra[t->nextra++] = xstrdup(hash);
	}
}

/* Counts the valid points and those already seen. A space of up to
 * TUNE_COUNT_CAP points is walked whole (and its fresh points kept); a larger
 * one's size is estimated from a sample, and its seen count is the history
 * entries whose configuration is in it. */
static void survey(tune_state *t)
{
	tune_point pt;
	char hash[65];
	if (t->sp.total <= TUNE_COUNT_CAP) {
		t->counted = 1;
		t->fresh = xcalloc((size_t)t->sp.total + 1, sizeof *t->fresh);
		for (uint64_t g = 0; g < t->sp.total; g++) {
			tune_point_decode(&t->sp, g, &pt);
			if (!tune_point_valid(&t->sp, &pt))
				continue;
			t->size++;
			tune_point_hash(&t->sp, &pt, hash);
			if (seen_hash(t, hash))
				t->nseen++;
			else
				t->fresh[t->nfresh++] = g;
		}
		return;
	}
	cko_rng r;
	cko_rng_seed(&r, cko_seed_mix(t->seed, "size", 0));
	uint64_t valid = 0;
	for (int i = 0; i < SIZE_SAMPLES; i++) {
		tune_point_decode(&t->sp, (uint64_t)cko_rng_range(&r, 0, (int64_t)(t->sp.total - 1)), &pt);
		valid += (uint64_t)tune_point_valid(&t->sp, &pt);
	}
	t->size = (uint64_t)((double)t->sp.total * (double)valid / SIZE_SAMPLES + 0.5);
	char **in = xcalloc((size_t)t->h.n + 1, sizeof *in);
	int nin = 0;
	for (int i = 0; i < t->h.n; i++) {
		const tune_entry *e = &t->h.e[i];
		if (!e->hash || !tune_entry_point(t, e, &pt) || !tune_point_valid(&t->sp, &pt))
			continue;
		tune_point_hash(&t->sp, &pt, hash);
		int skip = strcmp(hash, e->hash) != 0; /* not this space's, or counted */
		for (int j = 0; j < nin && !skip; j++)
			skip = !strcmp(in[j], e->hash);
		if (!skip)
			in[nin++] = (char *)e->hash;
	}
	t->nseen = (uint64_t)nin + (uint64_t)t->nextra;
	free(in);
}

void tune_exhaustive(tune_state *t)
{
	if (t->counted) {
		for (size_t i = 0; i < t->nfresh && t->npicks < t->k; i++)
			if (tune_fresh(t, t->fresh[i])) /* not a start picked already */
				tune_add(t, t->fresh[i], -1, "exhaustive", NULL);
		return;
	}
	for (uint64_t g = 0; g < t->sp.total && g < SCAN_CAP && t->npicks < t->k; g++)
		if (tune_fresh(t, g))
			tune_add(t, g, -1, "exhaustive", NULL);
}

/* Uniform over the fresh points, without repeats. */
void tune_random(tune_state *t, const char *how)
{
	int need = t->k - t->npicks;
	if (need <= 0)
		return;
	if (t->counted) {
		uint64_t *pool = xcalloc(t->nfresh + 1, sizeof *pool);
		size_t n = 0;
		for (size_t i = 0; i < t->nfresh; i++)
			if (tune_fresh(t, t->fresh[i]))
				pool[n++] = t->fresh[i];
		for (size_t j = 0; j < n && need > 0; j++, need--) {
			size_t r = (size_t)cko_rng_range(&t->rng, (int64_t)j, (int64_t)n - 1);
			uint64_t x = pool[r];
			pool[r] = pool[j];
			pool[j] = x;
			tune_add(t, x, -1, "random", how ? xstrdup(how) : NULL);
		}
		free(pool);
		return;
	}
	for (long tries = (long)SAMPLE_TRIES * need; tries > 0 && t->npicks < t->k; tries--) {
		uint64_t g = (uint64_t)cko_rng_range(&t->rng, 0, (int64_t)(t->sp.total - 1));
		if (tune_fresh(t, g))
			tune_add(t, g, -1, "random", how ? xstrdup(how) : NULL);
	}
}

void tune_starts(tune_state *t)
{
	for (int i = 0; i < t->sp.nstarts && t->npicks < t->k; i++)
		if (tune_fresh(t, t->sp.starts[i]))
			tune_add(t, t->sp.starts[i], -1, "start", NULL);
}

static int is_start(const tune_state *t, uint64_t g)
{
	for (int i = 0; i < t->sp.nstarts; i++)
		if (t->sp.starts[i] == g)
			return 1;
	return 0;
}

const char *tune_resolve(tune_state *t, const char *strategy, int64_t iteration)
{
	if (strcmp(strategy, "auto"))
		return strategy;
	if (t->size <= AUTO_EXHAUSTIVE)
		return "exhaustive";
	/* A run that starts from a remembered best, or whose space's starts
	 * verified, searches around them at once. */
	for (int i = 0; i < t->h.n; i++) {
		tune_point pt;
		if (t->h.e[i].status == TUNE_OK && tune_entry_point(t, &t->h.e[i], &pt) &&
		    (t->h.e[i].memory || is_start(t, tune_point_encode(&t->sp, &pt))))
			return "local";
	}
	return iteration <= AUTO_RANDOM_ITERS ? "random" : "local";
}

void tune_prepare(tune_state *t)
{
	note_hashless(t);
	survey(t);
}

void tune_state_free(tune_state *t)
{
	for (int j = 0; j < t->npicks; j++)
		free(t->picks[j].how);
	free(t->picks);
	for (int j = 0; j < t->nextra; j++)
		free(t->extra[j]);
	free(t->extra);
	free(t->fresh);
	tune_history_free(&t->h);
	tune_space_free(&t->sp);
}
