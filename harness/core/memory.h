/* memory.h: the memory across runs (docs/formats.md, "The memory across
 * runs"): the store's folder, its entries, and the remembered best a new
 * run starts from (cko-docs --memory-seed, --memory-candidate). */
#ifndef CKO_MEMORY_H
#define CKO_MEMORY_H

#include "cko.h"

/* given, else $CKO_MEMORY_DIR, else $XDG_DATA_HOME/cko/memory, else
 * ~/.local/share/cko/memory (allocated). */
char *cko_memory_dir(const char *given);
/* The entries (run-*.json with a "kernel" string), NULL-terminated; each
 * gets "_file", its file name. An unreadable one is skipped with a warning. */
cJSON **cko_memory_load(const char *dir, int *n);
void cko_memory_free(cJSON **v, int n);
/* A signature's shape: the entry, then "role dtype kind name" per param. */
char *cko_signature_shape(const cJSON *sig);
/* Writes out (seed.json): the remembered best for run's workload, status
 * "ok" with the entry and its kernel and launch rules, or "none" with the
 * reason. Returns CKO_OK either way. */
int cko_memory_seed(const char *run, const char *dir, const char *out);
/* Writes the seed's kernel.cu, launch.json and proposal.json (proposer
 * "memory") into the candidate folder cdir; CKO_VERDICT, writing nothing,
 * when the seed holds no kernel. */
int cko_memory_candidate(const char *seed, const char *cdir);

/* ---- memory_store.c ---- */
/* Remembers an ended run (its best kernel, launch rules, signature and the
 * notes that helped) as dir/run-HASH.json; CKO_VERDICT, with a warning,
 * for a run that may not be remembered (no verified best, a candidate
 * unconfined or failed in the sandbox). */
int cko_memory_add(const char *run, const char *dir);
/* Removes every run-*.json of dir; CKO_OK. */
int cko_memory_clear(const char *dir);

#endif
