/* export.h: launch rules compiled to C, for cko-export (libcko-export.a). */
#ifndef CKO_EXPORT_H
#define CKO_EXPORT_H

#include "cko.h"

/* ---- export.c: launch rules compiled to C (cko-export) ----
 * The generated code has cko's expression semantics (overflow, division by
 * zero and unbound names are errors, never undefined behaviour). Integer
 * scalars are s[0..] in signature order (cko_export_scalar_index). */
int cko_export_scalar_index(const cko_signature *sig, const char *name);
/* One expression (JSON number or string) as a C expression of type int64_t
 * that sets the int e in scope on an error; defs are the integer defines
 * (fixed values). Allocated, or NULL with err for a malformed one. */
char *cko_export_expr(const cJSON *item, const char *pre, const cko_env *defs, const cko_signature *sig, char *err,
		      size_t errlen);
/* The helpers every rule uses and the type PRE_dims. */
void cko_export_helpers(cko_buf *b, const char *pre);
/* static int FNAME(const int64_t *s, PRE_dims *d): the rule of launch for
 * case_name's override (NULL: the general rule); 0, 1 on an expression
 * error, 2 beyond CUDA's limits (as cko_launch_eval). 0 or -1 with err. */
int cko_export_rule(cko_buf *b, const char *pre, const char *fname, const cJSON *launch, const char *case_name,
		    const cko_signature *sig, char *err, size_t errlen);
/* Every rule (PRE_rule0 general, PRE_ruleK overrides; PRE_rule_case[K]
 * names the case), PRE_which (the rule for scalars: a case's exact
 * scalars, else the hidden ranges and constraints of cases.json, else -1)
 * and PRE_config (0, 1, 2 as a rule; 3 for scalars the run did not
 * verify). doc gets a Markdown list of what was verified. */
int cko_export_config(cko_buf *b, cko_buf *doc, const char *pre, const cJSON *launch, const cJSON *cases,
		      const cko_signature *sig, char *err, size_t errlen);

#endif
