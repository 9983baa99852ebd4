/* llm_tools.c: the tools the model may call. A manifest maps each tool to
 * a description, JSON-schema parameters and an argv template. The model's
 * arguments are checked against the parameters and substituted only as
 * whole argv elements ("{name}"); the argv runs without a shell, with a
 * time limit and bounded output. Long text (a kernel) goes to a temporary
 * file first, and the placeholder becomes that file's path. */
#include "llm.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char *name;
	cJSON *spec;      /* the manifest entry */
	int enabled;
} tool;

struct llm_tools {
	char *file;
	int n;
	tool *v;
	char **allow;
	int nallow;
	llm_var *vars;
	int nvars;
	double timeout_s;
	size_t max_out;
};

#define ARG_MAX_LEN 1024

static int tool_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n >= 1 && n <= 64 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* A whole-element placeholder "{name}": the name, or NULL. */
static char *placeholder(const char *el)
{
	size_t n = strlen(el);
	if (n < 3 || el[0] != '{' || el[n - 1] != '}')
		return NULL;
	char *nm = strndup(el + 1, n - 2);
	if (!cko_is_ident(nm)) {
		free(nm);
		return NULL;
	}
	return nm;
}

static void check_argv(const cJSON *argv, const char *file, const char *field, int nested)
{
	if (!cJSON_IsArray(argv) || !argv->child)
		cko_jfail(file, field, "expected a non-empty array of strings");
	int i = 0;
	for (const cJSON *e = argv->child; e; e = e->next, i++) {
		if (cJSON_IsArray(e) && !nested && i > 0) {
			check_argv(e, file, cko_field_i(field, i), 1);
			continue;
		}
		if (!cJSON_IsString(e))
			cko_jfail(file, cko_field_i(field, i), "expected a string%s",
				  nested || !i ? "" : " or an array of strings (an optional group)");
		char *ph = placeholder(e->valuestring);
		if (strchr(e->valuestring, '{') && !ph)
			cko_jfail(file, cko_field_i(field, i), "a placeholder must be a whole element: \"{name}\"");
		free(ph);
	}
}

llm_tools *llm_tools_load(const char *manifest, const char *enable, char *const *allow, int nallow,
			  char *const *vars, int nvars, double timeout_s, size_t max_out)
{
	static const char *const top[] = {"tools", "comment", NULL};
	static const char *const tk[] = {"description", "parameters", "argv", "files", "allowed", "default",
					 "timeout_s", "comment", NULL};
	llm_tools *t = xcalloc(1, sizeof *t);
	t->file = xstrdup(manifest);
	t->timeout_s = timeout_s;
	t->max_out = max_out;
	cJSON *root = cko_json_load(manifest);
	cko_jkeys(root, manifest, "", top);
	const cJSON *tools = cko_jreq(root, "tools", manifest, "");
	if (!cJSON_IsObject(tools))
		cko_jfail(manifest, "tools", "expected an object of name -> tool");
	t->v = xcalloc((size_t)cJSON_GetArraySize(tools) + 1, sizeof *t->v);
	for (const cJSON *e = tools->child; e; e = e->next) {
		char f[128];
		snprintf(f, sizeof f, "tools.%.100s", e->string);
		if (!tool_name_ok(e->string))
			cko_jfail(manifest, f, "a tool name is 1 to 64 letters, digits, _ or -");
		cko_jkeys(e, manifest, f, tk);
		cko_jstr(e, "description", manifest, f);
		const cJSON *p = cko_jreq(e, "parameters", manifest, f);
		if (!cJSON_IsObject(p) || strcmp(cko_jstr_opt(p, "type", ""), "object"))
			cko_jfail(manifest, cko_field(f, "parameters"), "expected a JSON schema of type object");
		check_argv(cko_jreq(e, "argv", manifest, f), manifest, cko_field(f, "argv"), 0);
		const cJSON *files = cko_jget(e, "files");
		for (const cJSON *x = files ? files->child : NULL; x; x = x->next)
			if (!cJSON_IsString(x) || !cko_jget(cko_jget(p, "properties"), x->valuestring))
				cko_jfail(manifest, cko_field(cko_field(f, "files"), x->string),
					  "expected the name of a parameter whose text goes to this file");
		for (const cJSON *x = cko_jget(e, "allowed") ? cko_jget(e, "allowed")->child : NULL; x; x = x->next)
			if (!cJSON_IsString(x) || !cko_jget(cko_jget(p, "properties"), x->valuestring))
				cko_jfail(manifest, cko_field(f, "allowed"), "expected names of parameters");
		const cJSON *to = cko_jget(e, "timeout_s");
		if (to && (!cJSON_IsNumber(to) || to->valuedouble <= 0 || to->valuedouble > 86400))
			cko_jfail(manifest, cko_field(f, "timeout_s"), "expected seconds (0 to 86400)");
		tool *o = &t->v[t->n++];
		o->name = xstrdup(e->string);
		o->spec = cJSON_Duplicate(e, 1);
		o->enabled = enable ? 0 : cJSON_IsTrue(cko_jget(e, "default"));
	}
	cJSON_Delete(root);
	if (enable) {
		char *list = xstrdup(enable), *save;
		for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			int hit = 0;
			for (int i = 0; i < t->n; i++)
				if (!strcmp(t->v[i].name, w))
					t->v[i].enabled = hit = 1;
			if (!hit)
				cko_die(CKO_BADINPUT, "--enable %s: %s has no tool of that name", w, manifest);
		}
		free(list);
	}
	t->allow = xcalloc((size_t)nallow + 1, sizeof *t->allow);
	for (int i = 0; i < nallow; i++)
		t->allow[t->nallow++] = xstrdup(allow[i]);
	t->vars = xcalloc((size_t)nvars + 1, sizeof *t->vars);
	for (int i = 0; i < nvars; i++) {
		const char *eq = strchr(vars[i], '=');
		char *nm = eq ? strndup(vars[i], (size_t)(eq - vars[i])) : NULL;
		if (!nm || !cko_is_ident(nm))
			cko_die(CKO_BADINPUT, "--var %s: expected NAME=VALUE", vars[i]);
		t->vars[t->nvars].name = nm;
		t->vars[t->nvars++].value = xstrdup(eq + 1);
	}
	/* A tool whose allowed parameter has no allowed value cannot be used. */
	for (int i = 0; i < t->n; i++)
		if (t->v[i].enabled && cko_jget(t->v[i].spec, "allowed") && cko_jget(t->v[i].spec, "allowed")->child &&
		    !t->nallow) {
			cko_warn("%s: tool %s needs --allow values; leaving it out", manifest, t->v[i].name);
			t->v[i].enabled = 0;
		}
	return t;
}

void llm_tools_free(llm_tools *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->v[i].name);
		cJSON_Delete(t->v[i].spec);
	}
	free(t->v);
	cko_free_list(t->allow, t->nallow);
	for (int i = 0; i < t->nvars; i++) {
		free(t->vars[i].name);
		free(t->vars[i].value);
	}
	free(t->vars);
	free(t->file);
	free(t);
}

int llm_tools_count(const llm_tools *t)
{
	int n = 0;
	for (int i = 0; t && i < t->n; i++)
		n += t->v[i].enabled;
	return n;
}

cJSON *llm_tools_json(const llm_tools *t)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; t && i < t->n; i++) {
		if (!t->v[i].enabled)
			continue;
		const cJSON *s = t->v[i].spec;
		cJSON *fn = cJSON_CreateObject();
		cJSON_AddStringToObject(fn, "name", t->v[i].name);
		cJSON_AddStringToObject(fn, "description", cko_jstr_opt(s, "description", ""));
		cJSON *p = cJSON_Duplicate(cko_jget(s, "parameters"), 1);
		/* The allowed values are listed in the schema, so the model sees them. */
		for (const cJSON *x = cko_jget(s, "allowed") ? cko_jget(s, "allowed")->child : NULL; x; x = x->next) {
			cJSON *prop = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "properties"),
								       x->valuestring);
			cJSON_DeleteItemFromObjectCaseSensitive(prop, "enum");
			cJSON *en = cJSON_AddArrayToObject(prop, "enum");
			for (int k = 0; k < t->nallow; k++)
				cJSON_AddItemToArray(en, cJSON_CreateString(t->allow[k]));
		}
		cJSON_AddItemToObject(fn, "parameters", p);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "function");
		cJSON_AddItemToObject(o, "function", fn);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* Replaces bytes that are not UTF-8 by '?', in place: the text goes back
 * into a JSON request. */
static void utf8_clean(char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		int ok = k && i + k <= n && c != 0 && !(c < 0x20 && c != '\n' && c != '\t' && c != '\r');
		for (size_t j = 1; ok && j < k; j++)
			ok = ((unsigned char)s[i + j] >> 6) == 2;
		if (!ok) {
			s[i++] = '?';
			continue;
		}
		i += k;
	}
}

static void rm_tmpdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		for (struct dirent *e; (e = readdir(d));) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = xasprintf("%s/%s", dir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Checks one argument against its schema; the text to substitute, or NULL
 * with why in err. */
static char *arg_value(const cJSON *schema, const cJSON *v, int to_file, const char *name, char *err, size_t n)
{
	const char *type = cko_jstr_opt(schema, "type", "string");
	char *val = NULL;
	if (!strcmp(type, "string")) {
		if (!cJSON_IsString(v)) {
			snprintf(err, n, "argument %s: expected a string", name);
			return NULL;
		}
		size_t len = strlen(v->valuestring);
		size_t max = (size_t)cko_jnum_opt(schema, "maxLength", to_file ? LLM_KERNEL_MAX : ARG_MAX_LEN);
		if (!to_file && max > ARG_MAX_LEN)
			max = ARG_MAX_LEN;
		if (len > max || (to_file && len > LLM_KERNEL_MAX)) {
			snprintf(err, n, "argument %s: longer than %zu characters", name, max);
			return NULL;
		}
		if (!to_file) {
			for (const char *p = v->valuestring; *p; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f) {
					snprintf(err, n, "argument %s: contains a control character", name);
					return NULL;
				}
			if (v->valuestring[0] == '-') {
				snprintf(err, n, "argument %s: may not start with '-'", name);
				return NULL;
			}
		}
		val = xstrdup(v->valuestring);
	} else if (!strcmp(type, "integer") || !strcmp(type, "number")) {
		if (!cJSON_IsNumber(v) || (!strcmp(type, "integer") && v->valuedouble != (double)(int64_t)v->valuedouble)) {
			snprintf(err, n, "argument %s: expected %s", name, !strcmp(type, "integer") ? "an integer" : "a number");
			return NULL;
		}
		double lo = cko_jnum_opt(schema, "minimum", -1e15), hi = cko_jnum_opt(schema, "maximum", 1e15);
		if (v->valuedouble < lo || v->valuedouble > hi) {
			snprintf(err, n, "argument %s: outside %g..%g", name, lo, hi);
			return NULL;
		}
		val = !strcmp(type, "integer") ? xasprintf("%lld", (long long)v->valuedouble)
					       : xasprintf("%.17g", v->valuedouble);
	} else if (!strcmp(type, "boolean")) {
		if (!cJSON_IsBool(v)) {
			snprintf(err, n, "argument %s: expected true or false", name);
			return NULL;
		}
		val = xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	} else if (!strcmp(type, "object") && to_file) {
		if (!cJSON_IsObject(v)) {
			snprintf(err, n, "argument %s: expected an object", name);
			return NULL;
		}
		val = cko_json_print(v);
		if (strlen(val) > LLM_KERNEL_MAX) {
			free(val);
			snprintf(err, n, "argument %s: too large", name);
			return NULL;
		}
	} else {
		snprintf(err, n, "argument %s: type %s is not supported", name, type);
		return NULL;
	}
	const cJSON *en = cko_jget(schema, "enum");
	if (cJSON_IsArray(en)) {
		int hit = 0;
		for (const cJSON *e = en->child; e && !hit; e = e->next)
			hit = cJSON_IsString(e) ? !strcmp(e->valuestring, val) : cJSON_IsNumber(e) && cJSON_IsNumber(v) &&
											e->valuedouble == v->valuedouble;
		if (!hit) {
			snprintf(err, n, "argument %s: not one of the allowed values", name);
			free(val);
			return NULL;
		}
	}
	return val;
}

/* The tool's bindings from the model's arguments; 0 or -1 with err. */
static int bind_args(llm_tools *t, const tool *o, const cJSON *args, const char *tmpdir, llm_var **out, int *nout,
		     char *err, size_t n)
{
	const cJSON *params = cko_jget(o->spec, "parameters");
	const cJSON *props = cko_jget(params, "properties");
	const cJSON *files = cko_jget(o->spec, "files");
	int cap = cJSON_GetArraySize(props) + cJSON_GetArraySize(files) + t->nvars + 4, k = 0;
	llm_var *b = xcalloc((size_t)cap, sizeof *b);
	*out = b;
	b[k].name = xstrdup("tmpdir");
	b[k++].value = xstrdup(tmpdir);
	b[k].name = xstrdup("scratch_file");
	b[k++].value = xasprintf("%s/scratch.out", tmpdir);
	for (int i = 0; i < t->nvars; i++) {
		b[k].name = xstrdup(t->vars[i].name);
		b[k++].value = xstrdup(t->vars[i].value);
	}
	*nout = k;
	if (!cJSON_IsObject(args)) {
		snprintf(err, n, "the arguments must be a JSON object");
		return -1;
	}
	for (const cJSON *a = args->child; a; a = a->next)
		if (!cko_jget(props, a->string)) {
			snprintf(err, n, "unknown argument '%.64s'", a->string);
			return -1;
		}
	const cJSON *req = cko_jget(params, "required");
	for (const cJSON *r = req ? req->child : NULL; r; r = r->next)
		if (cJSON_IsString(r) && !cko_jget(args, r->valuestring)) {
			snprintf(err, n, "missing argument '%s'", r->valuestring);
			return -1;
		}
	for (const cJSON *p = props ? props->child : NULL; p; p = p->next) {
		const cJSON *v = cko_jget(args, p->string);
		if (!v)
			v = cko_jget(p, "default");
		if (!v || cJSON_IsNull(v))
			continue;
		const char *fname = NULL;
		for (const cJSON *f = files ? files->child : NULL; f; f = f->next)
			if (!strcmp(f->valuestring, p->string))
				fname = f->string;
		char *val = arg_value(p, v, fname != NULL, p->string, err, n);
		if (!val)
			return -1;
		for (const cJSON *al = cko_jget(o->spec, "allowed") ? cko_jget(o->spec, "allowed")->child : NULL; al;
		     al = al->next) {
			if (strcmp(al->valuestring, p->string))
				continue;
			int hit = 0;
			for (int i = 0; i < t->nallow && !hit; i++)
				hit = !strcmp(t->allow[i], val);
			if (!hit) {
				snprintf(err, n, "argument %s: not one of the allowed values", p->string);
				free(val);
				return -1;
			}
		}
		if (fname) {
			/* The text goes to a file; the placeholder is the file's path. */
			const char *suffix = !strcmp(cko_jstr_opt(p, "type", ""), "object") ? ".json" : ".cu";
			char *path = xasprintf("%s/%s%s", tmpdir, fname, suffix);
			cko_write_file(path, val, strlen(val));
			free(val);
			b[k].name = xstrdup(fname);
			b[k++].value = path;
		} else {
			b[k].name = xstrdup(p->string);
			b[k++].value = val;
		}
		*nout = k;
	}
	return 0;
}

static const char *lookup(const llm_var *b, int n, const char *name)
{
	for (int i = n - 1; i >= 0; i--)
		if (!strcmp(b[i].name, name))
			return b[i].value;
	return NULL;
}

/* Appends the elements of argv (a template) with their bindings; an
 * optional group is left out whole when one of its placeholders is unset.
 * 0, or -1 naming a missing placeholder. */
static int build_argv(const cJSON *tmpl, const llm_var *b, int nb, char ***argv, int *argc, int optional,
		      char *err, size_t n)
{
	int start = *argc;
	for (const cJSON *e = tmpl->child; e; e = e->next) {
		if (cJSON_IsArray(e)) {
			build_argv(e, b, nb, argv, argc, 1, err, n);
			continue;
		}
		char *ph = placeholder(e->valuestring);
		const char *val = ph ? lookup(b, nb, ph) : e->valuestring;
		if (!val) {
			if (!optional)
				snprintf(err, n, "missing argument '%s'", ph);
			free(ph);
			while (*argc > start)
				free((*argv)[--*argc]);
			if (*argv)
				(*argv)[*argc] = NULL;
			return -1;
		}
		free(ph);
		*argv = xrealloc(*argv, (size_t)(*argc + 2) * sizeof **argv);
		(*argv)[(*argc)++] = xstrdup(val);
		(*argv)[*argc] = NULL;
	}
	return 0;
}

static char *reply(cJSON *r)
{
	char *s = cJSON_PrintUnformatted(r);
	char *o = xstrdup(s);
	cJSON_free(s);
	cJSON_Delete(r);
	return o;
}

static char *error_reply(cJSON *record, const char *msg)
{
	cJSON_AddStringToObject(record, "error", msg);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "error", msg);
	return reply(r);
}

char *llm_tool_call(llm_tools *t, const char *name, const char *arguments, cJSON *record)
{
	cJSON_AddStringToObject(record, "name", name ? name : "");
	cJSON_AddStringToObject(record, "arguments", arguments ? arguments : "");
	tool *o = NULL;
	for (int i = 0; name && i < t->n && !o; i++)
		if (t->v[i].enabled && !strcmp(t->v[i].name, name))
			o = &t->v[i];
	if (!o)
		return error_reply(record, "there is no such tool");
	char err[512];
	cJSON *args = arguments && *arguments ? cko_json_parse(arguments, strlen(arguments), err, sizeof err)
					      : cJSON_CreateObject();
	if (!args) {
		char m[600];
		snprintf(m, sizeof m, "the arguments are not JSON: %s", err);
		return error_reply(record, m);
	}
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmpdir = xasprintf("%s/cko-llm.XXXXXX", base);
	if (!mkdtemp(tmpdir))
		cko_die(CKO_ENV, "%s: %s", tmpdir, strerror(errno));
	llm_var *b = NULL;
	int nb = 0, argc = 0;
	char **argv = NULL;
	char *result;
	err[0] = 0;
	if (bind_args(t, o, args, tmpdir, &b, &nb, err, sizeof err) ||
	    build_argv(cko_jget(o->spec, "argv"), b, nb, &argv, &argc, 0, err, sizeof err)) {
		result = error_reply(record, err);
	} else {
		cJSON *ja = cJSON_AddArrayToObject(record, "argv");
		for (int i = 0; i < argc; i++)
			cJSON_AddItemToArray(ja, cJSON_CreateString(argv[i]));
		cko_proc p;
		double t0 = cko_now();
		if (cko_run_argv(argv, NULL, cko_jnum_opt(o->spec, "timeout_s", t->timeout_s), t->max_out, 1, &p))
			cko_die(CKO_ENV, "cannot start %s: %s", argv[0], strerror(errno));
		utf8_clean(p.out, p.out_len);
		llm_scrub(p.out);
		cJSON_AddNumberToObject(record, "exit", p.status);
		cJSON_AddBoolToObject(record, "timed_out", p.timed_out);
		cJSON_AddBoolToObject(record, "truncated", p.truncated);
		cJSON_AddNumberToObject(record, "time_s", cko_now() - t0);
		cJSON_AddStringToObject(record, "output", p.out);
		cJSON *r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "exit", p.status);
		if (p.timed_out || p.truncated)
			cJSON_AddStringToObject(r, "note", p.timed_out ? "the tool ran out of time and was stopped"
								       : "the output was cut to its size limit");
		cJSON_AddStringToObject(r, "output", p.out);
		result = reply(r);
		cko_proc_free(&p);
	}
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	for (int i = 0; i < nb; i++) {
		free(b[i].name);
		free(b[i].value);
	}
	free(b);
	cJSON_Delete(args);
	rm_tmpdir(tmpdir);
	free(tmpdir);
	return result;
}
