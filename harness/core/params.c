/* params.c: a kernel's parameter list (the params[] of signature.json and
 * of a launch request): names, kinds, dtypes and roles, read once for both. */
#include "cko.h"

#include <ctype.h>
#include <string.h>

int cko_is_ident(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > 63)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

int cko_role_parse(const char *s, int *role)
{
	static const char *names[] = {"in", "out", "inout"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*role = i;
			return 1;
		}
	return 0;
}

const char *cko_role_name(int role) { return role == CKO_IN ? "in" : role == CKO_OUT ? "out" : "inout"; }

/* One entry's name, dtype, kind and role. */
static void param_head(const cJSON *p, const char *file, const char *field, const char *const *keys,
		       const cko_param *prev, int i, cko_param *q)
{
	cko_jkeys(p, file, field, keys);
	const char *name = cko_jstr(p, "name", file, field);
	if (!cko_is_ident(name))
		cko_jfail(file, cko_field(field, "name"), "'%s' is not a C identifier", name);
	for (int j = 0; j < i; j++)
		if (!strcmp(prev[j].name, name))
			cko_jfail(file, cko_field(field, "name"), "'%s' appears twice", name);
	const char *kind = cko_jstr(p, "kind", file, field);
	const char *dt = cko_jstr(p, "dtype", file, field);
	if (!cko_dtype_parse(dt, &q->dtype))
		cko_jfail(file, cko_field(field, "dtype"), "unknown dtype '%s'", dt);
	if (!strcmp(kind, "buffer")) {
		q->is_buffer = 1;
		const char *role = cko_jstr(p, "role", file, field);
		if (!cko_role_parse(role, &q->role))
			cko_jfail(file, cko_field(field, "role"), "expected in, out or inout, not '%s'", role);
	} else if (strcmp(kind, "scalar")) {
		cko_jfail(file, cko_field(field, "kind"), "expected buffer or scalar, not '%s'", kind);
	}
	q->name = xstrdup(name);
}

int cko_params_parse(const cJSON *root, const char *file, int min, const char *const *keys, cko_param **params,
		     cko_param_fn *fn, void *arg)
{
	const cJSON *a = cko_jreq(root, "params", file, "");
	int n = cJSON_GetArraySize(a);
	if (!cJSON_IsArray(a) || n < min || n > CKO_MAXPARAMS)
		cko_jfail(file, "params", "expected an array of %d to %d parameters", min, CKO_MAXPARAMS);
	cko_param *q = xcalloc((size_t)n + 1, sizeof *q);
	int i = 0;
	for (const cJSON *p = a->child; p; p = p->next, i++) {
		char field[32];
		snprintf(field, sizeof field, "params[%d]", i);
		param_head(p, file, field, keys, q, i, &q[i]);
		if (fn)
			fn(p, file, field, i, &q[i], arg);
	}
	*params = q;
	return n;
}
