/* json.c: cJSON loading with file, line and field in every error. */
#include "cko.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Line and column of byte offset off in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* Whether cJSON stopped at off because the value there opens one level more
 * than CJSON_NESTING_LIMIT allows: counts the [ and { open before off,
 * outside strings. */
static int too_deep(const char *text, size_t off)
{
	if (text[off] != '[' && text[off] != '{')
		return 0;
	long depth = 0;
	int in_str = 0;
	for (size_t i = 0; i < off; i++) {
		char c = text[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return depth >= CJSON_NESTING_LIMIT;
}

static int cmp_keys(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* A key that occurs twice among an object's members, or NULL. Pairwise for
 * small objects, sorted for large ones (a reply of many keys must not take
 * quadratic time). */
static const char *duplicate_member(const cJSON *obj)
{
	size_t n = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		n++;
	if (n <= 16) {
		for (const cJSON *c = obj->child; c; c = c->next)
			for (const cJSON *d = c->next; d; d = d->next)
				if (c->string && d->string && !strcmp(c->string, d->string))
					return c->string;
		return NULL;
	}
	const char **keys = xcalloc(n, sizeof *keys);
	size_t k = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string)
			keys[k++] = c->string;
	qsort(keys, k, sizeof *keys, cmp_keys);
	const char *dup = NULL;
	for (size_t i = 1; i < k && !dup; i++)
		if (!strcmp(keys[i - 1], keys[i]))
			dup = keys[i];
	free(keys);
	return dup;
}

/* Returns the first duplicated key under item (depth-first), or NULL. */
static const char *find_duplicate(const cJSON *item)
{
	if (item && cJSON_IsObject(item)) {
		const char *dup = duplicate_member(item);
		if (dup)
			return dup;
	}
	for (const cJSON *c = item ? item->child : NULL; c; c = c->next) {
		const char *dup = find_duplicate(c);
		if (dup)
			return dup;
	}
	return NULL;
}

cJSON *cko_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	const char *end = NULL;
	if (memchr(text, 0, len)) {
		snprintf(err, errlen, "contains a NUL byte");
		return NULL;
	}
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		int line, col;
		size_t off = end && end >= text ? (size_t)(end - text) : 0;
		line_col(text, off, &line, &col);
		if (off < len && too_deep(text, off))
			snprintf(err, errlen, "line %d, column %d: nested deeper than %d levels (arrays and objects)",
				 line, col, CJSON_NESTING_LIMIT);
		else
			snprintf(err, errlen, "line %d, column %d: %s", line, col,
				 off >= len ? "unexpected end of input" : "syntax error");
		return NULL;
	}
	/* Anything but white space after the value is an error. */
	for (const char *p = end; p && p < text + len; p++) {
		if (!strchr(" \t\r\n", *p)) {
			int line, col;
			line_col(text, (size_t)(p - text), &line, &col);
			snprintf(err, errlen, "line %d, column %d: text after the JSON value", line, col);
			cJSON_Delete(root);
			return NULL;
		}
	}
	const char *dup = find_duplicate(root);
	if (dup) {
		snprintf(err, errlen, "duplicate key \"%.64s\"", dup);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *cko_json_load(const char *path)
{
	size_t len;
	char *text = cko_read_file(path, CKO_JSON_MAX, &len);
	char err[256];
	cJSON *root = cko_json_parse(text, len, err, sizeof err);
	free(text);
	if (!root)
		cko_die(CKO_BADINPUT, "%s: malformed JSON: %s", path, err);
	return root;
}

void cko_jfail(const char *file, const char *field, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (field && *field)
		cko_die(CKO_BADINPUT, "%s: %s: %s", file, field, msg);
	cko_die(CKO_BADINPUT, "%s: %s", file, msg);
}

void cko_jkeys(const cJSON *obj, const char *file, const char *field, const char *const *allowed)
{
	if (!cJSON_IsObject(obj))
		cko_jfail(file, field, "expected an object");
	for (const cJSON *c = obj->child; c; c = c->next) {
		int ok = 0;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = !strcmp(*a, c->string);
		if (!ok)
			cko_jfail(file, cko_field(field, c->string), "unknown key");
	}
}

const cJSON *cko_jget(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

const cJSON *cko_jreq(const cJSON *obj, const char *key, const char *file, const char *field)
{
	const cJSON *v = cko_jget(obj, key);
	if (!v)
		cko_jfail(file, cko_field(field, key), "missing");
	return v;
}

const char *cko_jstr(const cJSON *obj, const char *key, const char *file, const char *field)
{
	const cJSON *v = cko_jreq(obj, key, file, field);
	if (!cJSON_IsString(v))
		cko_jfail(file, cko_field(field, key), "expected a string");
	return v->valuestring;
}

const char *cko_jstr_opt(const cJSON *obj, const char *key, const char *dflt)
{
	const cJSON *v = cko_jget(obj, key);
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

double cko_jnum(const cJSON *obj, const char *key, const char *file, const char *field)
{
	const cJSON *v = cko_jreq(obj, key, file, field);
	if (!cJSON_IsNumber(v))
		cko_jfail(file, cko_field(field, key), "expected a number");
	return v->valuedouble;
}

double cko_jnum_opt(const cJSON *obj, const char *key, double dflt)
{
	const cJSON *v = cko_jget(obj, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int64_t as_int(const cJSON *v, const char *file, const char *field)
{
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 9007199254740992.0)
		cko_jfail(file, field, "expected an integer");
	return (int64_t)v->valuedouble;
}

int64_t cko_jint(const cJSON *obj, const char *key, const char *file, const char *field)
{
	return as_int(cko_jreq(obj, key, file, field), file, cko_field(field, key));
}

int64_t cko_jint_opt(const cJSON *obj, const char *key, int64_t dflt, const char *file, const char *field)
{
	const cJSON *v = cko_jget(obj, key);
	return v ? as_int(v, file, cko_field(field, key)) : dflt;
}

char *cko_json_print(const cJSON *obj)
{
	char *s = cJSON_Print(obj);
	if (!s)
		cko_die(CKO_ENV, "out of memory printing JSON");
	char *r = xasprintf("%s\n", s);
	cJSON_free(s);
	return r;
}

void cko_json_write(const char *path, const cJSON *obj)
{
	char *s = cko_json_print(obj);
	cko_write_file(path, s, strlen(s));
	free(s);
}

int cko_json_array_has(const cJSON *arr, const char *s)
{
	for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
			return 1;
	return 0;
}

int cko_json_write_if_changed(const char *path, const cJSON *obj)
{
	char *s = cko_json_print(obj);
	int w = cko_write_if_changed(path, s, strlen(s));
	free(s);
	return w;
}

/* Field names live in a small ring so several can be in use in one message. */
static char ring[8][256];
static int ring_i;

const char *cko_field(const char *parent, const char *key)
{
	char *s = ring[ring_i++ & 7];
	if (parent && *parent)
		snprintf(s, 256, "%s.%s", parent, key);
	else
		snprintf(s, 256, "%s", key);
	return s;
}

const char *cko_field_i(const char *parent, int i)
{
	char *s = ring[ring_i++ & 7];
	snprintf(s, 256, "%s[%d]", parent ? parent : "", i);
	return s;
}
