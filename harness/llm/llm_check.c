/* llm_check.c: local checks of a kernel answer before anything compiles
 * it: the entry point is declared as the signature says, and the launch
 * rules are well formed and evaluate for every case, hidden ones too. */
#include "llm.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	size_t off, len;
} tok;

/* Tokens of C++ source, without comments and preprocessor lines. String
 * and character literals are one token each. */
static tok *tokenize(const char *s, size_t n, int *count)
{
	int cap = 1024, k = 0;
	tok *t = xmalloc((size_t)cap * sizeof *t);
	size_t i = 0;
	int line_start = 1;
	while (i < n) {
		char c = s[i];
		if (c == '\n') {
			line_start = 1;
			i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '#' && line_start) {
			/* A directive, with its continuation lines. */
			while (i < n && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
					i++;
				else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
					i += 2;
					while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
						i++;
					i++;
				}
				i++;
			}
			continue;
		}
		line_start = 0;
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
				i++;
			i += 2;
			continue;
		}
		size_t st = i;
		if (c == '"' || c == '\'') {
			i++;
			while (i < n && s[i] != c && s[i] != '\n')
				i += s[i] == '\\' ? 2 : 1;
			i++;
		} else if (isalnum((unsigned char)c) || c == '_') {
			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
				i++;
		} else {
			i++;
		}
		if (i > n)
			i = n;
		if (k == cap)
			t = xrealloc(t, (size_t)(cap *= 2) * sizeof *t);
		t[k++] = (tok){st, i - st};
	}
	*count = k;
	return t;
}

static int is(const char *s, const tok *t, const char *w) { return t->len == strlen(w) && !memcmp(s + t->off, w, t->len); }

static int is_ident(const char *s, const tok *t) { return isalpha((unsigned char)s[t->off]) || s[t->off] == '_'; }

/* Declaration specifiers and attributes that may stand around __global__. */
static int is_attr(const char *s, const tok *t)
{
	static const char *const w[] = {"__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__noinline__",
					"__forceinline__", "__inline__", "inline", "__attribute__", "__global__",
					"__restrict__", NULL};
	for (const char *const *p = w; *p; p++)
		if (is(s, t, *p))
			return 1;
	return 0;
}

/* The partner of each bracket token ( "(" with ")", "[" with "]", each kind
 * on its own, as the innermost unclosed one), or -1 for an unmatched one
 * and for other tokens. Found once, so that skipping a group is one step
 * and the scans below stay linear in the number of tokens. */
static int *match_groups(const char *s, const tok *t, int n)
{
	int *m = xmalloc(((size_t)n + 1) * sizeof *m), *stack = xmalloc(((size_t)n + 1) * sizeof *stack);
	for (int i = 0; i < n; i++)
		m[i] = -1;
	for (int pass = 0; pass < 2; pass++) {
		char open = pass ? '[' : '(', close = pass ? ']' : ')';
		int sp = 0;
		for (int i = 0; i < n; i++) {
			char c = t[i].len == 1 ? s[t[i].off] : 0;
			if (c == open) {
				stack[sp++] = i;
			} else if (c == close && sp) {
				m[i] = stack[--sp];
				m[m[i]] = i;
			}
		}
	}
	free(stack);
	return m;
}

int llm_check_entry(const char *src, size_t len, const char *entry, char *err, size_t errlen)
{
	int n;
	tok *t = tokenize(src, len, &n);
	int *m = match_groups(src, t, n);
	/* A __global__ that the forward scan of an earlier one stepped over
	 * belongs to that declaration and is not scanned again (else a run of
	 * them takes time quadratic in its length). */
	char *seen = xcalloc((size_t)n + 1, 1);
	/* Braces that open an extern "C" { } block are marked on a stack;
	 * in_c counts the marked ones open. */
	int depth = 0, cap = 64, in_c = 0;
	char *externc = xcalloc((size_t)cap, 1);
	int found = 0, saw_name = 0, bad_linkage = 0, bad_type = 0;
	for (int i = 0; i < n && !found; i++) {
		if (t[i].len == 1 && src[t[i].off] == '{') {
			if (depth + 1 >= cap)
				externc = xrealloc(externc, (size_t)(cap *= 2));
			depth++;
			externc[depth] = i >= 2 && is(src, &t[i - 1], "\"C\"") && is(src, &t[i - 2], "extern");
			in_c += externc[depth];
			continue;
		}
		if (t[i].len == 1 && src[t[i].off] == '}') {
			if (depth > 0)
				in_c -= externc[depth--];
			continue;
		}
		if (seen[i] || !is(src, &t[i], "__global__"))
			continue;
		/* Forward: attributes and void up to NAME ( */
		int j = i + 1, saw_void = 0, other_type = 0, named = 0;
		while (j < n && !named) {
			if (is(src, &t[j], "void")) {
				saw_void = 1;
				j++;
			} else if (is_attr(src, &t[j])) {
				seen[j++] = 1;
				if (j < n && is(src, &t[j], "(")) {
					if (m[j] < 0)
						break; /* never closed: no name follows */
					j = m[j] + 1;
				}
			} else if (is(src, &t[j], "[") && j + 1 < n && is(src, &t[j + 1], "[") && m[j] >= 0) {
				j = m[j] + 1;
			} else if (is_ident(src, &t[j]) && j + 1 < n && is(src, &t[j + 1], "(")) {
				named = 1;
			} else if (is_ident(src, &t[j]) || is(src, &t[j], "*") || is(src, &t[j], "&")) {
				other_type = 1;
				j++;
			} else {
				break;
			}
		}
		if (!named || t[j].len != strlen(entry) || memcmp(src + t[j].off, entry, t[j].len))
			continue;
		saw_name = 1;
		if (!saw_void || other_type) {
			bad_type = 1;
			continue;
		}
		/* Backward: attributes, then extern "C"; or an enclosing block. */
		int linkage = in_c > 0;
		int b = i - 1;
		while (b >= 0) {
			if (is(src, &t[b], ")") || is(src, &t[b], "]")) {
				int o = m[b];
				if (o < 0)
					break;
				b = o - 1;
				if (is(src, &t[o], "[") && b >= 0 && is(src, &t[b], "["))
					b--;
			} else if (is_attr(src, &t[b]) || is(src, &t[b], "void")) {
				b--;
			} else {
				break;
			}
		}
		if (b >= 1 && is(src, &t[b], "\"C\"") && is(src, &t[b - 1], "extern"))
			linkage = 1;
		if (linkage)
			found = 1;
		else
			bad_linkage = 1;
	}
	free(t);
	free(m);
	free(seen);
	free(externc);
	if (found)
		return 0;
	if (saw_name && bad_type)
		snprintf(err, errlen, "kernel '%s' must return void: declare it extern \"C\" __global__ void %s(...)",
			 entry, entry);
	else if (saw_name && bad_linkage)
		snprintf(err, errlen, "kernel '%s' must have C linkage: declare it extern \"C\" __global__ void %s(...)",
			 entry, entry);
	else
		snprintf(err, errlen, "the source defines no kernel extern \"C\" __global__ void %s(...)", entry);
	return -1;
}

/* ---- launch rules ---- */

struct validate_arg {
	const cJSON *launch;
};

static void validate_fn(void *p)
{
	struct validate_arg *a = p;
	cko_launch_validate(a->launch, "launch");
}

static int check_tunables(const cJSON *launch, char *err, size_t errlen)
{
	const cJSON *defs = cko_jget(launch, "defines");
	for (const cJSON *t = cko_jget(launch, "tunables") ? cko_jget(launch, "tunables")->child : NULL; t;
	     t = t->next) {
		const cJSON *d = cko_jget(defs, t->string);
		if (!d) {
			snprintf(err, errlen, "launch: tunables.%s: not in defines (give the value this candidate uses)",
				 t->string);
			return -1;
		}
		char cur[128], v[128];
		cko_define_text(d, cur, sizeof cur);
		int listed = 0;
		for (const cJSON *x = t->child; x; x = x->next) {
			cko_define_text(x, v, sizeof v);
			for (const cJSON *y = x->next; y; y = y->next) {
				char w[128];
				cko_define_text(y, w, sizeof w);
				if (!strcmp(v, w)) {
					snprintf(err, errlen, "launch: tunables.%s: value %s appears twice", t->string, v);
					return -1;
				}
			}
			listed |= !strcmp(cur, v);
		}
		if (!listed) {
			snprintf(err, errlen, "launch: tunables.%s: the define's value %s is not among its values",
				 t->string, cur);
			return -1;
		}
	}
	return 0;
}

/* What kind of rule failed, without the numbers (for hidden cases). */
static const char *rule_part(const char *msg)
{
	if (!strncmp(msg, "grid", 4))
		return "grid";
	if (!strncmp(msg, "block", 5))
		return "block";
	if (!strncmp(msg, "smem", 4))
		return "shared memory size";
	return "launch rule";
}

int llm_check_launch(const cJSON *launch, const cko_signature *sig, const char *cases_dir, char *err, size_t errlen)
{
	char e[512];
	struct validate_arg va = {launch};
	if (cko_try(validate_fn, &va, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	if (check_tunables(launch, err, errlen))
		return -1;
	/* -D NAME would rewrite the kernel's parameter of that name. */
	for (const cJSON *d = cko_jget(launch, "defines") ? cko_jget(launch, "defines")->child : NULL; d; d = d->next)
		for (int p = 0; p < sig->nparams; p++)
			if (!strcmp(sig->params[p].name, d->string)) {
				snprintf(err, errlen, "launch: defines.%s: a define may not share a kernel parameter's name",
					 d->string);
				return -1;
			}
	char *ip = cko_path_join(cases_dir, "index.json");
	cJSON *index = cko_json_load(ip);
	if (!cJSON_IsArray(index))
		cko_jfail(ip, "", "expected an array of cases");
	/* Overrides may name only the cases the model was shown. */
	for (const cJSON *o = cko_jget(launch, "overrides") ? cko_jget(launch, "overrides")->child : NULL; o;
	     o = o->next) {
		int known = 0;
		for (const cJSON *c = index->child; c && !known; c = c->next)
			known = !cJSON_IsTrue(cko_jget(c, "hidden")) && !strcmp(cko_jstr_opt(c, "name", ""), o->string);
		if (!known) {
			snprintf(err, errlen, "launch: overrides.%.100s: there is no such case", o->string);
			goto fail;
		}
	}
	int i = 0;
	for (const cJSON *c = index->child; c; c = c->next, i++) {
		const char *name = cko_jstr(c, "name", ip, cko_field_i("", i));
		int hidden = cJSON_IsTrue(cko_jget(c, "hidden"));
		if (!cko_is_ident(name) && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
						   strlen(name))
			cko_jfail(ip, cko_field_i("", i), "case name '%s' is not a plain name", name);
		char *cd = cko_path_join(cases_dir, name);
		char *cp = cko_path_join(cd, "case.json");
		cJSON *cj = cko_json_load(cp);
		cko_env env = {0};
		cko_case_env(sig, cko_jget(cj, "scalars"), cp, "scalars", &env);
		cko_launch_defines_env(launch, &env);
		cko_launch l;
		int bad = cko_launch_eval(launch, name, hidden, &env, &l, e, sizeof e);
		int ci = 0;
		for (const cJSON *k = cko_jget(launch, "constraints") ? cko_jget(launch, "constraints")->child : NULL;
		     k && !bad; k = k->next, ci++) {
			int64_t v;
			char m[256];
			if (cko_expr_eval(k->valuestring, &env, &v, m, sizeof m)) {
				snprintf(e, sizeof e, "constraints[%d]: %s", ci, m);
				bad = 1;
			} else if (!v) {
				snprintf(e, sizeof e, "constraints[%d] \"%.200s\" does not hold", ci, k->valuestring);
				bad = 1;
			}
		}
		cko_env_free(&env);
		cJSON_Delete(cj);
		free(cp);
		free(cd);
		if (bad) {
			if (hidden)
				snprintf(err, errlen,
					 "launch: the %s fails for a hidden correctness case (the rules must hold for "
					 "any sizes, including odd ones)",
					 rule_part(e));
			else if (strstr(e, name))
				snprintf(err, errlen, "launch: %s", e);
			else
				snprintf(err, errlen, "launch: %s (case %s)", e, name);
			goto fail;
		}
	}
	cJSON_Delete(index);
	free(ip);
	return 0;
fail:
	cJSON_Delete(index);
	free(ip);
	return -1;
}
