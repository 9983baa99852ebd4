/* tune.h: cko-tune's search space (space.json, or one kernel whose
 * launch.json declares tunables), its configurations, their content hash,
 * and the history the tuner reads.
 *
 * A configuration is a variant plus one value index per tunable. Points of
 * the whole space are numbered 0..total-1: the variants in order, and within
 * a variant a mixed-radix counter over its tunables (the first tunable
 * varies slowest), so a space is walked without ever being held in memory. */
#ifndef CKO_TUNE_H
#define CKO_TUNE_H

#include "cko.h"

#define TUNE_MAXTUN 32

typedef struct {
	char *text;   /* the value as passed to -D */
	int is_int;
	int64_t ival;
} tune_val;

typedef struct {
	char *name;
	int nvals;
	tune_val *vals;
	int slot;     /* its binding in the variant's env, -1 for string values */
} tune_param;

typedef struct {
	char *name;
	char *source;           /* path of the kernel source, as resolved */
	char *src;              /* its bytes */
	size_t srclen;
	char src_sha[65];
	const cJSON *launch;    /* the variant's object (grid, block, ...) */
	char *field;            /* "space.json: variants[2]" for messages */
	int ntun;
	tune_param tun[TUNE_MAXTUN];
	int nfix;               /* fixed defines that no tunable replaces */
	const cJSON **fix_item;
	char **fix_text;
	int ndef;               /* all defines sorted by name: >= 0 a fixed */
	int *dorder;            /* define's index, < 0 tunable -(t+1) */
	int ncons;
	const char **cons;
	char *launch_key;       /* canonical JSON of grid, block, smem, overrides */
	uint64_t npoints, first;
	cko_env env;            /* integer fixed defines, then the tunables */
} tune_variant;

typedef struct {
	char *file;
	cJSON *root;
	int nvar;
	tune_variant *var;
	uint64_t total;         /* points, valid or not */
	int nstarts;            /* "starts": points known to be good, tried first */
	uint64_t *starts;
} tune_space;

typedef struct {
	int var;
	int idx[TUNE_MAXTUN];
} tune_point;

/* Loads space.json; dies with status 2 naming the file and field. */
void tune_space_load(const char *path, tune_space *sp);
/* One variant from a kernel and a launch.json that declares tunables and
 * constraints (a model's candidate). The variant is named by the launch's
 * "name", else by the kernel file's base name. */
void tune_space_from_kernel(const char *kernel, const char *launch, tune_space *sp);
void tune_space_free(tune_space *sp);

void tune_point_decode(const tune_space *sp, uint64_t g, tune_point *pt);
uint64_t tune_point_encode(const tune_space *sp, const tune_point *pt);
/* 1 if every constraint holds (an expression that fails to evaluate, e.g.
 * divides by zero, makes the point invalid); dies with status 2 on a name
 * that is neither a define nor a tunable. */
int tune_point_valid(tune_space *sp, const tune_point *pt);
void tune_point_hash(const tune_space *sp, const tune_point *pt, char out[65]);
/* The concrete launch.json: grid, block, smem, overrides and "defines" =
 * fixed defines + the chosen values; no tunables or constraints. */
cJSON *tune_point_launch(const tune_space *sp, const tune_point *pt);
/* "variant NAME=VALUE ..." (tunables only) into b. */
void tune_point_describe(const tune_space *sp, const tune_point *pt, cko_buf *b);
/* Maps a defines object (a history entry's) onto variant v: 1 with pt set
 * when every tunable of v has a listed value there. */
int tune_point_from_defines(const tune_space *sp, int v, const cJSON *defines, tune_point *pt);

/* The content hash of a candidate, shared by every tool that records one:
 * SHA-256 of the text
 *     cko-candidate-v1\n
 *     source <sha256 of the kernel source bytes>\n
 *     define NAME=VALUE\n      (every define, sorted by name, bytewise)
 *     launch {"grid":..,"block":..,"smem":..,"overrides":..}\n
 * where the launch line is the unformatted JSON of those keys in that order
 * (smem 0 when absent, overrides only when present). Tunables, constraints
 * and comments do not count. */
void cko_candidate_hash(const void *src, size_t srclen, const cJSON *launch, char out[65]);
void cko_config_hash(const char *src_sha, const cJSON *launch, char out[65]);

/* ---- history.json, as far as cko-tune reads it ---- */
enum { TUNE_OK, TUNE_INVALID, TUNE_SKIPPED, TUNE_OTHER };
typedef struct {
	const char *id, *hash, *variant;
	const char *parent;     /* the id of the entry it moved from, or NULL */
	int status;
	int has_ms;
	double ms;
	int64_t iteration;      /* -1 when absent */
	const cJSON *defines;
	int memory;             /* proposer "memory": a remembered best (cko-tune --memory) */
} tune_entry;

typedef struct {
	cJSON *root;
	int n;
	tune_entry *e;
	int nhash;
	char **hashes;          /* sorted, distinct */
} tune_history;

/* Loads history.json's "candidates" (NULL path: empty). Entries of
 * iteration >= before (when before >= 0) are left out, so redoing an
 * iteration proposes what it proposed the first time. */
void tune_history_load(const char *path, int64_t before, tune_history *h);
int tune_history_seen(const tune_history *h, const char *hash);
/* Adds the remembered best of a seed (cko-docs --memory-seed) as entry id,
 * verified and faster than anything (the first origin of local search);
 * its strings must outlive h. */
void tune_history_add_memory(tune_history *h, const char *id, const char *hash, const cJSON *defines);
void tune_history_free(tune_history *h);

/* ---- a proposal round (tune_search.c, tune_local.c) ---- */
#define TUNE_COUNT_CAP (1ULL << 20) /* spaces up to this many points are walked whole */

typedef struct {
	uint64_t g;             /* the point */
	int parent;             /* history entry it moved from, -1 for none */
	const char *strategy;
	char *how;              /* "BM 64->128", or NULL */
} tune_pick;

/* Set sp, h, k (and picks with room for k), seed and rng, then call
 * tune_prepare and one strategy; the picks are the proposals. */
typedef struct {
	tune_space sp;
	tune_history h;
	char **extra;           /* hashes of the points of history entries without one */
	int nextra;
	int counted;            /* the space was walked whole: fresh and counts are exact */
	uint64_t *fresh;        /* counted: valid points not in the history, ascending */
	size_t nfresh;
	uint64_t size, nseen;   /* valid points; those in the history */
	tune_pick *picks;
	int npicks, k;
	uint64_t seed;
	cko_rng rng;
} tune_state;

/* Marks what the history has seen and counts the space (exactly up to
 * TUNE_COUNT_CAP points, else the size is estimated from a sample). */
void tune_prepare(tune_state *t);
/* "exhaustive", "random" or "local" for a strategy name ("auto" too). */
const char *tune_resolve(tune_state *t, const char *strategy, int64_t iteration);
void tune_exhaustive(tune_state *t);
/* The space's starts not yet seen, in their order, up to k picks (auto
 * proposes them before its strategy's own). */
void tune_starts(tune_state *t);
/* Uniform over the fresh points, up to k picks; how goes into their notes. */
void tune_random(tune_state *t, const char *how);
void tune_local(tune_state *t, int64_t iteration);
/* Valid, not in the history and not yet picked. */
int tune_fresh(tune_state *t, uint64_t g);
void tune_add(tune_state *t, uint64_t g, int parent, const char *strategy, char *how);
/* The point a history entry stands for, by its variant's name and defines,
 * or by any variant whose point of those defines has the entry's hash. */
int tune_entry_point(tune_state *t, const tune_entry *e, tune_point *pt);
void tune_state_free(tune_state *t);

#endif
