/* gen.h: input generators of cases.json (docs/formats.md, "Generators"):
 * parsing a generator spec for one buffer and filling the buffer from
 * seeded random streams, in parallel and with the same bytes for any
 * thread count. Used by cko-gen. */
#ifndef CKO_GEN_H
#define CKO_GEN_H

#include "cko.h"

typedef enum {
	CKO_GEN_UNIFORM,
	CKO_GEN_NORMAL,
	CKO_GEN_INT,
	CKO_GEN_ARANGE,
	CKO_GEN_CONSTANT,
	CKO_GEN_FILE,
} cko_gen_dist;

/* Elements per independently seeded chunk: chunk c of a stream is seeded
 * from cko_seed_mix(seed, label, c), so chunks can be filled in any order. */
#define CKO_GEN_CHUNK ((size_t)1 << 20)

typedef struct {
	cko_gen_dist dist;
	cko_dtype dtype;
	int integer;       /* values drawn as integers (int, or uniform on an integer dtype) */
	double a, b;       /* uniform low/high, normal mean/std, arange start/step, constant value */
	int64_t lo, hi;    /* integer draws: inclusive bounds */
	int allow_constant;
	char *path;        /* file: resolved path */
	cko_tensor file;   /* file: its contents (read by cko_gen_parse) */
} cko_gen;

/* Parses and checks a generator spec for a buffer of dtype t and the given
 * shape: keys, ranges against the dtype, file shape and dtype, and that a
 * constant input (constant, or a degenerate range, or a file of one value)
 * says "allow_constant": true. base_dir resolves file paths. Dies with
 * status 2: "FILE: FIELD: what is wrong". */
void cko_gen_parse(const cJSON *spec, cko_dtype t, int ndim, const int64_t *shape, size_t count,
		   const char *base_dir, const char *file, const char *field, cko_gen *g);
void cko_gen_free(cko_gen *g);
/* The spec as text for messages ("uniform(-1, 1)"). */
void cko_gen_describe(const cko_gen *g, char *buf, size_t n);

/* Fills count elements of g->dtype at data from the stream (seed, label)
 * with up to `threads` threads (<= 0: one per online CPU). */
void cko_gen_fill(const cko_gen *g, void *data, size_t count, uint64_t seed, const char *label, int threads);

/* The number of online CPUs (at least 1). */
int cko_ncpus(void);

#endif
