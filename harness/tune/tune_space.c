/* tune_space.c: cko-tune's search space, its points and their hashes. */
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SRC_MAX (4u << 20)
#define TOTAL_MAX (1ULL << 62)

/* ---- the canonical text and hash (see tune.h) ---- */

static char *launch_key(const cJSON *l)
{
	cJSON *k = cJSON_CreateObject();
	const cJSON *g = cko_jget(l, "grid"), *b = cko_jget(l, "block"), *s = cko_jget(l, "smem"),
		    *o = cko_jget(l, "overrides");
	cJSON_AddItemToObject(k, "grid", g ? cJSON_Duplicate(g, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(k, "block", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(k, "smem", s ? cJSON_Duplicate(s, 1) : cJSON_CreateNumber(0));
	if (o)
		cJSON_AddItemToObject(k, "overrides", cJSON_Duplicate(o, 1));
	char *text = cJSON_PrintUnformatted(k);
	cJSON_Delete(k);
	if (!text)
		cko_die(CKO_ENV, "out of memory");
	return text;
}

/* names/texts already sorted by name. */
static void canon_hash(const char *src_sha, int n, const char *const *names, const char *const *texts,
		       const char *lkey, char out[65])
{
	cko_buf b = {0};
	buf_printf(&b, "cko-candidate-v1\nsource %s\n", src_sha);
	for (int i = 0; i < n; i++)
		buf_printf(&b, "define %s=%s\n", names[i], texts[i]);
	buf_printf(&b, "launch %s\n", lkey);
	cko_sha256_hex(b.s, b.len, out);
	buf_free(&b);
}

static int cmp_item_name(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

void cko_config_hash(const char *src_sha, const cJSON *launch, char out[65])
{
	const cJSON *d = cko_jget(launch, "defines");
	int n = cJSON_IsObject(d) ? cJSON_GetArraySize(d) : 0;
	const cJSON **items = xcalloc((size_t)n + 1, sizeof *items);
	const char **names = xcalloc((size_t)n + 1, sizeof *names);
	char **texts = xcalloc((size_t)n + 1, sizeof *texts);
	int i = 0;
	for (const cJSON *c = n ? d->child : NULL; c; c = c->next)
		items[i++] = c;
	qsort(items, (size_t)n, sizeof *items, cmp_item_name);
	for (i = 0; i < n; i++) {
		char t[128];
		if (!cko_define_text(items[i], t, sizeof t))
			snprintf(t, sizeof t, "?");
		names[i] = items[i]->string;
		texts[i] = xstrdup(t);
	}
	char *lkey = launch_key(launch);
	canon_hash(src_sha, n, names, (const char *const *)texts, lkey, out);
	free(lkey);
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(names);
	free(items);
}

void cko_candidate_hash(const void *src, size_t srclen, const cJSON *launch, char out[65])
{
	char sha[65];
	cko_sha256_hex(src, srclen, sha);
	cko_config_hash(sha, launch, out);
}

/* ---- loading ---- */

static const char *dname(const tune_variant *v, int d)
{
	return d >= 0 ? v->fix_item[d]->string : v->tun[-d - 1].name;
}

static const tune_variant *sort_var;
static int cmp_dorder(const void *a, const void *b)
{
	return strcmp(dname(sort_var, *(const int *)a), dname(sort_var, *(const int *)b));
}

/* Fills v from a launch-like object; file is the message prefix (the file
 * and, for space.json, the variant's index). */
static void variant_init(tune_variant *v, const cJSON *obj, const char *file, const char *name, const char *srcpath,
			 const char *src_field)
{
	char err[512], t[128];
	cko_launch_validate(obj, file);
	v->launch = obj;
	v->field = xstrdup(file);
	v->name = xstrdup(name);
	v->source = xstrdup(srcpath);
	v->src = cko_try_read_file(srcpath, SRC_MAX, &v->srclen, err, sizeof err);
	if (!v->src)
		cko_jfail(file, src_field, "%s", err);
	if (memchr(v->src, 0, v->srclen))
		cko_jfail(file, src_field, "%s contains a NUL byte", srcpath);
	cko_sha256_hex(v->src, v->srclen, v->src_sha);

	const cJSON *tun = cko_jget(obj, "tunables");
	if (cJSON_GetArraySize(tun) > TUNE_MAXTUN)
		cko_jfail(file, "tunables", "more than %d tunables", TUNE_MAXTUN);
	v->npoints = 1;
	for (const cJSON *x = tun ? tun->child : NULL; x; x = x->next) {
		tune_param *p = &v->tun[v->ntun++];
		const char *f = cko_field("tunables", x->string);
		p->name = xstrdup(x->string);
		p->nvals = cJSON_GetArraySize(x);
		p->vals = xcalloc((size_t)p->nvals, sizeof *p->vals);
		p->slot = -1;
		int i = 0, nint = 0;
		for (const cJSON *y = x->child; y; y = y->next, i++) {
			cko_define_text(y, t, sizeof t); /* validated above */
			for (int j = 0; j < i; j++)
				if (!strcmp(p->vals[j].text, t))
					cko_jfail(file, cko_field_i(f, i), "value %s appears twice", t);
			p->vals[i].text = xstrdup(t);
			p->vals[i].is_int = cJSON_IsNumber(y);
			p->vals[i].ival = p->vals[i].is_int ? (int64_t)y->valuedouble : 0;
			nint += p->vals[i].is_int;
		}
		if (nint && nint != p->nvals)
			cko_jfail(file, f, "mixes integers and strings");
		if ((uint64_t)p->nvals > TOTAL_MAX / v->npoints)
			cko_jfail(file, "tunables", "the space has more than 2^62 points");
		v->npoints *= (uint64_t)p->nvals;
	}

	const cJSON *defs = cko_jget(obj, "defines");
	int nd = cJSON_GetArraySize(defs);
	v->fix_item = xcalloc((size_t)nd + 1, sizeof *v->fix_item);
	v->fix_text = xcalloc((size_t)nd + 1, sizeof *v->fix_text);
	for (const cJSON *d = defs ? defs->child : NULL; d; d = d->next) {
		int replaced = 0;
		for (int i = 0; i < v->ntun && !replaced; i++)
			replaced = !strcmp(v->tun[i].name, d->string);
		if (replaced)
			continue; /* a tunable's default: the tunable decides */
		cko_define_text(d, t, sizeof t);
		v->fix_item[v->nfix] = d;
		v->fix_text[v->nfix++] = xstrdup(t);
		if (cJSON_IsNumber(d))
			cko_env_set(&v->env, d->string, (int64_t)d->valuedouble);
	}
	for (int i = 0; i < v->ntun; i++) {
		tune_param *p = &v->tun[i];
		if (!p->vals[0].is_int)
			continue;
		cko_env_set(&v->env, p->name, p->vals[0].ival);
		for (int s = 0; s < v->env.n; s++)
			if (!strcmp(v->env.v[s].name, p->name))
				p->slot = s;
	}

	v->ndef = v->nfix + v->ntun;
	v->dorder = xcalloc((size_t)v->ndef + 1, sizeof *v->dorder);
	for (int i = 0; i < v->nfix; i++)
		v->dorder[i] = i;
	for (int i = 0; i < v->ntun; i++)
		v->dorder[v->nfix + i] = -(i + 1);
	sort_var = v;
	qsort(v->dorder, (size_t)v->ndef, sizeof *v->dorder, cmp_dorder);

	const cJSON *con = cko_jget(obj, "constraints");
	v->ncons = cJSON_GetArraySize(con);
	v->cons = xcalloc((size_t)v->ncons + 1, sizeof *v->cons);
	int i = 0;
	for (const cJSON *c = con ? con->child : NULL; c; c = c->next)
		v->cons[i++] = c->valuestring;
	v->launch_key = launch_key(obj);
}

static void space_finish(tune_space *sp)
{
	sp->total = 0;
	for (int i = 0; i < sp->nvar; i++) {
		tune_variant *v = &sp->var[i];
		if (v->npoints > TOTAL_MAX - sp->total)
			cko_jfail(sp->file, "variants", "the space has more than 2^62 points");
		v->first = sp->total;
		sp->total += v->npoints;
		/* Checks every constraint's names on the variant's first point. */
		tune_point pt = {.var = i};
		tune_point_valid(sp, &pt);
	}
}

/* "starts": [{"variant": NAME, "defines": {...}}, ...], points the
 * space's author measured as good, which auto tries before anything else.
 * Each names a variant and a listed value of every one of its tunables,
 * and satisfies its constraints. */
static void load_starts(tune_space *sp)
{
	static const char *const keys[] = {"variant", "defines", "comment", NULL};
	const cJSON *st = cko_jget(sp->root, "starts");
	if (!st)
		return;
	if (!cJSON_IsArray(st) || cJSON_GetArraySize(st) > 64)
		cko_jfail(sp->file, "starts", "expected an array of at most 64 points");
	sp->starts = xcalloc((size_t)cJSON_GetArraySize(st) + 1, sizeof *sp->starts);
	int i = 0;
	for (const cJSON *o = st->child; o; o = o->next, i++) {
		char *file = xasprintf("%s: starts[%d]", sp->file, i);
		if (!cJSON_IsObject(o))
			cko_jfail(file, "", "expected an object");
		cko_jkeys(o, file, "", keys);
		const char *name = cko_jstr(o, "variant", file, "");
		int v = 0;
		while (v < sp->nvar && strcmp(sp->var[v].name, name))
			v++;
		if (v == sp->nvar)
			cko_jfail(file, "variant", "'%s' is not a variant of the space", name);
		tune_point pt;
		if (!tune_point_from_defines(sp, v, cko_jget(o, "defines"), &pt))
			cko_jfail(file, "defines", "expected a listed value of each of %s's tunables", name);
		if (!tune_point_valid(sp, &pt))
			cko_jfail(file, "defines", "breaks a constraint of %s", name);
		sp->starts[sp->nstarts++] = tune_point_encode(sp, &pt);
		free(file);
	}
}

static int name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
		    !strchr("_.+-", *s))
			return 0;
	return 1;
}

void tune_space_load(const char *path, tune_space *sp)
{
	static const char *const top[] = {"variants", "starts", "comment", NULL};
	memset(sp, 0, sizeof *sp);
	sp->file = xstrdup(path);
	sp->root = cko_json_load(path);
	cko_jkeys(sp->root, path, "", top);
	const cJSON *vars = cko_jreq(sp->root, "variants", path, "");
	if (!cJSON_IsArray(vars) || cJSON_GetArraySize(vars) < 1)
		cko_jfail(path, "variants", "expected a non-empty array");
	sp->nvar = cJSON_GetArraySize(vars);
	if (sp->nvar > 4096)
		cko_jfail(path, "variants", "more than 4096 variants");
	sp->var = xcalloc((size_t)sp->nvar, sizeof *sp->var);
	char *dir = cko_dirname(path);
	int i = 0;
	for (const cJSON *o = vars->child; o; o = o->next, i++) {
		/* Messages name "space.json: variants[2]: field". */
		char *file = xasprintf("%s: variants[%d]", path, i);
		if (!cJSON_IsObject(o))
			cko_jfail(file, "", "expected an object");
		const char *name = cko_jstr(o, "name", file, "");
		if (!name_ok(name))
			cko_jfail(file, "name", "'%s': use 1 to 64 of [A-Za-z0-9_.+-]", name);
		for (int j = 0; j < i; j++)
			if (!strcmp(sp->var[j].name, name))
				cko_jfail(file, "name", "'%s' appears twice", name);
		char *srcpath = cko_path_join(dir, cko_jstr(o, "source", file, ""));
		variant_init(&sp->var[i], o, file, name, srcpath, "source");
		free(file);
		free(srcpath);
	}
	free(dir);
	space_finish(sp);
	load_starts(sp);
}

void tune_space_from_kernel(const char *kernel, const char *launch, tune_space *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->file = xstrdup(launch);
	sp->root = cko_json_load(launch);
	if (!cJSON_IsObject(sp->root))
		cko_jfail(launch, "", "expected an object");
	const char *name = cko_jstr_opt(sp->root, "name", NULL);
	char *base = NULL;
	if (!name) {
		const char *b = strrchr(kernel, '/') ? strrchr(kernel, '/') + 1 : kernel;
		base = xstrdup(b);
		char *dot = strrchr(base, '.');
		if (dot && dot != base)
			*dot = 0;
		for (char *c = base; *c; c++)
			if (!name_ok((char[]){*c, 0}))
				*c = '_';
		name = base;
	}
	if (!name_ok(name))
		cko_jfail(launch, "name", "'%s': use 1 to 64 of [A-Za-z0-9_.+-]", name);
	sp->nvar = 1;
	sp->var = xcalloc(1, sizeof *sp->var);
	variant_init(&sp->var[0], sp->root, launch, name, kernel, "--kernel");
	free(base);
	space_finish(sp);
}

void tune_space_free(tune_space *sp)
{
	free(sp->starts);
	for (int i = 0; i < sp->nvar; i++) {
		tune_variant *v = &sp->var[i];
		for (int t = 0; t < v->ntun; t++) {
			for (int j = 0; j < v->tun[t].nvals; j++)
				free(v->tun[t].vals[j].text);
			free(v->tun[t].vals);
			free(v->tun[t].name);
		}
		for (int j = 0; j < v->nfix; j++)
			free(v->fix_text[j]);
		free(v->fix_text);
		free(v->fix_item);
		free(v->dorder);
		free(v->cons);
		free(v->launch_key);
		free(v->name);
		free(v->source);
		free(v->src);
		free(v->field);
		cko_env_free(&v->env);
	}
	free(sp->var);
	cJSON_Delete(sp->root);
	free(sp->file);
	memset(sp, 0, sizeof *sp);
}

/* ---- points ---- */

void tune_point_decode(const tune_space *sp, uint64_t g, tune_point *pt)
{
	int lo = 0, hi = sp->nvar - 1;
	while (lo < hi) { /* the last variant whose first point is <= g */
		int mid = (lo + hi + 1) / 2;
		if (sp->var[mid].first <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	const tune_variant *v = &sp->var[lo];
	memset(pt, 0, sizeof *pt);
	pt->var = lo;
	uint64_t r = g - v->first;
	for (int t = v->ntun - 1; t >= 0; t--) {
		pt->idx[t] = (int)(r % (uint64_t)v->tun[t].nvals);
		r /= (uint64_t)v->tun[t].nvals;
	}
}

uint64_t tune_point_encode(const tune_space *sp, const tune_point *pt)
{
	const tune_variant *v = &sp->var[pt->var];
	uint64_t r = 0;
	for (int t = 0; t < v->ntun; t++)
		r = r * (uint64_t)v->tun[t].nvals + (uint64_t)pt->idx[t];
	return v->first + r;
}

int tune_point_valid(tune_space *sp, const tune_point *pt)
{
	tune_variant *v = &sp->var[pt->var];
	for (int t = 0; t < v->ntun; t++)
		if (v->tun[t].slot >= 0)
			v->env.v[v->tun[t].slot].value = v->tun[t].vals[pt->idx[t]].ival;
	for (int c = 0; c < v->ncons; c++) {
		int64_t r;
		char err[512];
		if (cko_expr_eval(v->cons[c], &v->env, &r, err, sizeof err)) {
			if (strstr(err, "unknown name"))
				cko_jfail(v->field, cko_field_i("constraints", c), "%s (constraints see only the "
					  "integer defines and tunables)", err);
			return 0;
		}
		if (!r)
			return 0;
	}
	return 1;
}

void tune_point_hash(const tune_space *sp, const tune_point *pt, char out[65])
{
	const tune_variant *v = &sp->var[pt->var];
	const char *names[TUNE_MAXTUN + 256], *texts[TUNE_MAXTUN + 256];
	const char **nm = names, **tx = texts;
	const char **hn = NULL, **ht = NULL;
	if (v->ndef > (int)(sizeof names / sizeof *names)) {
		nm = hn = xcalloc((size_t)v->ndef, sizeof *nm);
		tx = ht = xcalloc((size_t)v->ndef, sizeof *tx);
	}
	for (int i = 0; i < v->ndef; i++) {
		int d = v->dorder[i];
		nm[i] = dname(v, d);
		tx[i] = d >= 0 ? v->fix_text[d] : v->tun[-d - 1].vals[pt->idx[-d - 1]].text;
	}
	canon_hash(v->src_sha, v->ndef, nm, tx, v->launch_key, out);
	free(hn);
	free(ht);
}

cJSON *tune_point_launch(const tune_space *sp, const tune_point *pt)
{
	const tune_variant *v = &sp->var[pt->var];
	cJSON *l = cJSON_CreateObject();
	cJSON *d = cJSON_AddObjectToObject(l, "defines");
	for (int i = 0; i < v->nfix; i++)
		cJSON_AddItemToObject(d, v->fix_item[i]->string, cJSON_Duplicate(v->fix_item[i], 0));
	for (int t = 0; t < v->ntun; t++) {
		const tune_val *x = &v->tun[t].vals[pt->idx[t]];
		cJSON_AddItemToObject(d, v->tun[t].name,
				      x->is_int ? cJSON_CreateNumber((double)x->ival) : cJSON_CreateString(x->text));
	}
	static const char *const keys[] = {"grid", "block", "smem", "overrides"};
	for (int i = 0; i < 4; i++)
		if (cko_jget(v->launch, keys[i]))
			cJSON_AddItemToObject(l, keys[i], cJSON_Duplicate(cko_jget(v->launch, keys[i]), 1));
	return l;
}

void tune_point_describe(const tune_space *sp, const tune_point *pt, cko_buf *b)
{
	const tune_variant *v = &sp->var[pt->var];
	buf_puts(b, v->name);
	for (int t = 0; t < v->ntun; t++)
		buf_printf(b, " %s=%s", v->tun[t].name, v->tun[t].vals[pt->idx[t]].text);
}

int tune_point_from_defines(const tune_space *sp, int vi, const cJSON *defines, tune_point *pt)
{
	const tune_variant *v = &sp->var[vi];
	char t[128];
	if (!cJSON_IsObject(defines))
		return 0;
	memset(pt, 0, sizeof *pt);
	pt->var = vi;
	for (int i = 0; i < v->ntun; i++) {
		const cJSON *d = cko_jget(defines, v->tun[i].name);
		if (!d || !cko_define_text(d, t, sizeof t))
			return 0;
		int j = 0;
		while (j < v->tun[i].nvals && strcmp(v->tun[i].vals[j].text, t))
			j++;
		if (j == v->tun[i].nvals)
			return 0;
		pt->idx[i] = j;
	}
	for (int i = 0; i < v->nfix; i++) {
		const cJSON *d = cko_jget(defines, v->fix_item[i]->string);
		if (d && (!cko_define_text(d, t, sizeof t) || strcmp(t, v->fix_text[i])))
			return 0;
	}
	return 1;
}

/* ---- history.json ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void tune_history_load(const char *path, int64_t before, tune_history *h)
{
	memset(h, 0, sizeof *h);
	if (!path)
		return;
	h->root = cko_json_load(path);
	if (!cJSON_IsObject(h->root))
		cko_jfail(path, "", "expected an object");
	const cJSON *c = cko_jreq(h->root, "candidates", path, "");
	if (!cJSON_IsArray(c))
		cko_jfail(path, "candidates", "expected an array");
	int n = cJSON_GetArraySize(c), i = 0;
	h->e = xcalloc((size_t)n + 1, sizeof *h->e);
	h->hashes = xcalloc((size_t)n + 1, sizeof *h->hashes);
	for (const cJSON *x = c->child; x; x = x->next, i++) {
		char field[64];
		snprintf(field, sizeof field, "candidates[%d]", i);
		if (!cJSON_IsObject(x))
			cko_jfail(path, field, "expected an object");
		tune_entry *e = &h->e[h->n];
		const cJSON *it = cko_jget(x, "iteration");
		e->iteration = it ? cko_jint(x, "iteration", path, field) : -1;
		if (before >= 0 && e->iteration >= before)
			continue;
		const cJSON *hs = cko_jget(x, "hash");
		if (hs && !cJSON_IsNull(hs) && !cJSON_IsString(hs))
			cko_jfail(path, cko_field(field, "hash"), "expected a string");
		e->hash = cJSON_IsString(hs) ? hs->valuestring : NULL;
		e->id = cko_jstr_opt(x, "id", NULL);
		e->variant = cko_jstr_opt(x, "variant", NULL);
		e->parent = cko_jstr_opt(x, "parent", NULL);
		e->memory = !strcmp(cko_jstr_opt(x, "proposer", ""), "memory");
		const char *st = cko_jstr_opt(x, "status", "");
		e->status = !strcmp(st, "ok")        ? TUNE_OK
			    : !strcmp(st, "invalid") ? TUNE_INVALID
			    : !strcmp(st, "skipped") ? TUNE_SKIPPED
						     : TUNE_OTHER;
		const cJSON *ms = cko_jget(x, "geomean_ms");
		if (ms && !cJSON_IsNull(ms) && !cJSON_IsNumber(ms))
			cko_jfail(path, cko_field(field, "geomean_ms"), "expected a number or null");
		e->has_ms = cJSON_IsNumber(ms) && isfinite(ms->valuedouble) && ms->valuedouble > 0;
		e->ms = e->has_ms ? ms->valuedouble : 0;
		e->defines = cko_jget(x, "defines");
		if (e->defines && !cJSON_IsNull(e->defines) && !cJSON_IsObject(e->defines))
			cko_jfail(path, cko_field(field, "defines"), "expected an object");
		if (e->hash)
			h->hashes[h->nhash++] = (char *)e->hash;
		h->n++;
	}
	qsort(h->hashes, (size_t)h->nhash, sizeof *h->hashes, cmp_str);
	int k = 0;
	for (i = 0; i < h->nhash; i++)
		if (!k || strcmp(h->hashes[k - 1], h->hashes[i]))
			h->hashes[k++] = h->hashes[i];
	h->nhash = k;
}

void tune_history_add_memory(tune_history *h, const char *id, const char *hash, const cJSON *defines)
{
	h->e = xrealloc(h->e, (size_t)(h->n + 1) * sizeof *h->e);
	h->hashes = xrealloc(h->hashes, (size_t)(h->nhash + 1) * sizeof *h->hashes);
	h->e[h->n++] = (tune_entry){.id = id, .hash = hash, .status = TUNE_OK, .has_ms = 1, .ms = 0,
				    .iteration = -1, .defines = cJSON_IsObject(defines) ? defines : NULL, .memory = 1};
	if (!tune_history_seen(h, hash)) {
		h->hashes[h->nhash++] = (char *)hash;
		qsort(h->hashes, (size_t)h->nhash, sizeof *h->hashes, cmp_str);
	}
}

int tune_history_seen(const tune_history *h, const char *hash)
{
	const char *key = hash;
	return h->nhash && bsearch(&key, h->hashes, (size_t)h->nhash, sizeof *h->hashes, cmp_str) != NULL;
}

void tune_history_free(tune_history *h)
{
	free(h->e);
	free(h->hashes);
	cJSON_Delete(h->root);
	memset(h, 0, sizeof *h);
}
