/* test-json.c: cko_json_parse's strictness (duplicate keys, text after the
 * value, NUL bytes, line and column), the field accessors' messages under
 * cko_try, and cko_try itself. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static int parses(const char *text, size_t len, char *err, size_t errlen)
{
	cJSON *j = cko_json_parse(text, len, err, errlen);
	cJSON_Delete(j);
	return j != NULL;
}

static void rejects(const char *name, const char *text, size_t len, const char *want)
{
	char err[256] = "", n[96];
	int ok = parses(text, len, err, sizeof err);
	snprintf(n, sizeof n, "json-rejects-%s", name);
	CHECK(n, !ok && strstr(err, want));
	if (ok || !strstr(err, want))
		printf("# %s: '%s', expected '%s'\n", name, err, want);
}

#define REJ(name, lit, want) rejects(name, lit, sizeof lit - 1, want)
#define OK(lit) parses(lit, sizeof lit - 1, err, sizeof err)

static void parsing(void)
{
	char err[256];
	CHECK("json-parses", OK("{\"a\": [1, 2, {\"b\": null}]}\n"));
	CHECK("json-same-key-in-other-objects", OK("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}"));
	CHECK("json-trailing-white-space", OK("[1] \t\r\n  "));
	CHECK("json-scalar-root", OK("42"));
	/* the length bounds the text: what follows is not read */
	CHECK("json-length-bounds-text", parses("[1]xyz", 3, err, sizeof err));

	REJ("duplicate-key", "{\"a\": 1, \"a\": 2}", "duplicate key \"a\"");
	REJ("duplicate-nested", "{\"x\": {\"k\": 1, \"j\": 0, \"k\": 2}}", "duplicate key \"k\"");
	REJ("duplicate-in-array", "[1, {\"q\": 1, \"q\": 1}]", "duplicate key \"q\"");
	REJ("trailing-garbage", "{\"a\": 1} x", "text after the JSON value");
	REJ("trailing-garbage-column", "{\"a\": 1} x", "line 1, column 10");
	REJ("two-values", "{}\n{}", "line 2, column 1");
	REJ("trailing-comma", "[1, 2, ]", "line 1");
	REJ("nul-byte", "{\"a\": 1}\0", "NUL byte");
	REJ("nul-inside", "{\"a\0\": 1}", "NUL byte");
	REJ("empty", "", "");
	REJ("white-space-only", "  \n ", "");
	/* cJSON reports the last byte for an early end, so the message says
	 * "syntax error" at it rather than "unexpected end of input". */
	REJ("unclosed", "{\"a\": [1, 2", "line 1, column 11");
	REJ("syntax-error-line", "{\n  \"a\": 1,\n  \"b\": }\n", "line 3");
	REJ("single-quotes", "{'a': 1}", "line 1");
	REJ("bare-word", "nope", "");
	/* Deep nesting is refused by cJSON's limit, not by a stack overflow. */
	cko_buf b = {0};
	for (int i = 0; i < 100000; i++)
		buf_puts(&b, "[");
	rejects("deep-nesting", b.s, b.len, "line 1, column 1001: nested deeper than 1000 levels");
	buf_free(&b);
	/* Exactly at the limit parses; brackets in strings do not count; the
	 * position is the first level too many, objects included. */
	for (int i = 0; i < 1000; i++)
		buf_puts(&b, "[");
	for (int i = 0; i < 1000; i++)
		buf_puts(&b, "]");
	CHECK("json-nesting-at-limit", parses(b.s, b.len, err, sizeof err));
	buf_free(&b);
	buf_puts(&b, "{\"s\": \"[[[{{{\",\n \"a\":");
	for (int i = 0; i < 1100; i++)
		buf_puts(&b, i % 2 ? "{\"k\":" : "[");
	rejects("deep-nesting-position", b.s, b.len, "line 2, column 3001: nested deeper than 1000 levels");
	buf_free(&b);
	REJ("not-deep", "[[[1, 2]] x", "syntax error");
	/* Many keys: the duplicate check finds the one at the end. */
	buf_puts(&b, "{");
	for (int i = 0; i < 2000; i++)
		buf_printf(&b, "\"k%d\": %d, ", i, i);
	buf_puts(&b, "\"k1999\": 0}");
	rejects("duplicate-among-many", b.s, b.len, "duplicate key \"k1999\"");
	buf_free(&b);
	/* 100000 distinct keys are sorted, not compared pairwise (which took
	 * minutes); then one repeated at the end. */
	buf_puts(&b, "{");
	for (int i = 0; i < 100000; i++)
		buf_printf(&b, "%s\"k%d\": 0", i ? ", " : "", i);
	buf_puts(&b, "}");
	char e[256] = "";
	CHECK("json-many-distinct-keys", parses(b.s, b.len, e, sizeof e));
	b.len--;
	buf_puts(&b, ", \"k77\": 1}");
	rejects("duplicate-among-100000", b.s, b.len, "duplicate key \"k77\"");
	buf_free(&b);
}

/* cko_try around the accessors: each call is in its own closure. */
typedef struct {
	const cJSON *obj;
	const char *key;
	int64_t i;
	const char *s;
	const char *const *allowed;
} acc;

static void do_jint(void *p)
{
	acc *a = p;
	a->i = cko_jint(a->obj, a->key, "f.json", "top");
}
static void do_jint_opt(void *p)
{
	acc *a = p;
	a->i = cko_jint_opt(a->obj, a->key, -99, "f.json", "");
}
static void do_jstr(void *p)
{
	acc *a = p;
	a->s = cko_jstr(a->obj, a->key, "f.json", "");
}
static void do_jkeys(void *p)
{
	acc *a = p;
	cko_jkeys(a->obj, "f.json", "params[2]", a->allowed);
}
static void do_jnum(void *p)
{
	acc *a = p;
	a->i = (int64_t)cko_jnum(a->obj, a->key, "f.json", "");
}

static void accessors(void)
{
	char err[256];
	static const char text[] = "{\"i\": 42, \"neg\": -7, \"f\": 2.5, \"big\": 1e300, \"s\": \"3\", "
				   "\"b2\": 9007199254740994, \"b1\": 9007199254740992, \"arr\": [1]}";
	cJSON *o = cko_json_parse(text, sizeof text - 1, err, sizeof err);
	CHECK("json-accessor-fixture", o != NULL);
	if (!o) {
		printf("# %s\n", err);
		return;
	}
	acc a = {.obj = o, .key = "i"};
	CHECK("jint-ok", cko_try(do_jint, &a, err, sizeof err) == 0 && a.i == 42);
	a.key = "neg";
	CHECK("jint-negative", cko_try(do_jint, &a, err, sizeof err) == 0 && a.i == -7);
	a.key = "b1";
	CHECK("jint-2^53", cko_try(do_jint, &a, err, sizeof err) == 0 && a.i == 9007199254740992LL);
	static const char *const nonint[] = {"f", "big", "s", "b2", "arr"};
	for (int k = 0; k < 5; k++) {
		char n[64];
		a.key = nonint[k];
		snprintf(n, sizeof n, "jint-rejects-%s", nonint[k]);
		int st = cko_try(do_jint, &a, err, sizeof err);
		char want[64];
		snprintf(want, sizeof want, "f.json: top.%s: expected an integer", nonint[k]);
		CHECK(n, st == CKO_BADINPUT && strstr(err, want));
		if (!strstr(err, want))
			printf("# '%s'\n", err);
	}
	a.key = "missing";
	CHECK("jint-missing", cko_try(do_jint, &a, err, sizeof err) == CKO_BADINPUT &&
				      !strcmp(err, "f.json: top.missing: missing"));
	CHECK("jint-opt-default", cko_try(do_jint_opt, &a, err, sizeof err) == 0 && a.i == -99);
	a.key = "f";
	CHECK("jint-opt-non-integer", cko_try(do_jint_opt, &a, err, sizeof err) == CKO_BADINPUT &&
					      strstr(err, "f.json: f: expected an integer"));
	a.key = "i";
	CHECK("jstr-wrong-type", cko_try(do_jstr, &a, err, sizeof err) == CKO_BADINPUT &&
					 strstr(err, "f.json: i: expected a string"));
	a.key = "s";
	CHECK("jstr-ok", cko_try(do_jstr, &a, err, sizeof err) == 0 && !strcmp(a.s, "3"));
	CHECK("jnum-wrong-type", cko_try(do_jnum, &a, err, sizeof err) == CKO_BADINPUT && strstr(err, "expected a number"));
	CHECK("jstr-opt", !strcmp(cko_jstr_opt(o, "s", "d"), "3") && !strcmp(cko_jstr_opt(o, "i", "d"), "d") &&
				  cko_jnum_opt(o, "f", 0) == 2.5 && cko_jnum_opt(o, "s", 7) == 7);
	CHECK("jget-case-sensitive", cko_jget(o, "I") == NULL && cko_jget(o, "i") != NULL && cko_jget(NULL, "i") == NULL);

	static const char *const allowed[] = {"i", "neg", "f", "big", "s", "b2", "b1", "arr", NULL};
	static const char *const fewer[] = {"i", "neg", "f", "big", "s", "b1", "arr", NULL};
	a.allowed = allowed;
	CHECK("jkeys-all-known", cko_try(do_jkeys, &a, err, sizeof err) == 0);
	a.allowed = fewer;
	CHECK("jkeys-unknown", cko_try(do_jkeys, &a, err, sizeof err) == CKO_BADINPUT &&
				       !strcmp(err, "f.json: params[2].b2: unknown key"));
	a.obj = cko_jget(o, "arr");
	CHECK("jkeys-not-object", cko_try(do_jkeys, &a, err, sizeof err) == CKO_BADINPUT &&
					  strstr(err, "expected an object"));
	cJSON_Delete(o);

	CHECK("field-names", !strcmp(cko_field("a", "b"), "a.b") && !strcmp(cko_field("", "b"), "b") &&
				     !strcmp(cko_field(NULL, "b"), "b") && !strcmp(cko_field_i("sets", 3), "sets[3]") &&
				     !strcmp(cko_field_i(cko_field("x", "shape"), 0), "x.shape[0]"));
}

/* cko_try: status and message, nesting, and recovery. */
static int depth_seen;
static void dies(void *p) { cko_die(*(int *)p, "died with %d", *(int *)p); }
static void fine(void *p) { (*(int *)p)++; }
static void nested(void *p)
{
	char inner[64];
	int st = 3;
	depth_seen = cko_try(dies, &st, inner, sizeof inner);
	/* the inner failure is caught inside; now the outer one */
	cko_die(CKO_BADINPUT, "outer after inner '%s'", inner);
	(void)p;
}
static void json_load(void *p) { cJSON_Delete(cko_json_load(p)); }

static void trying(void)
{
	char err[128];
	int st = CKO_BADINPUT;
	CHECK("try-catches-die", cko_try(dies, &st, err, sizeof err) == 2 && !strcmp(err, "died with 2"));
	st = 0;
	CHECK("try-status-0-becomes-1", cko_try(dies, &st, err, sizeof err) == 1);
	int n = 0;
	CHECK("try-no-die", cko_try(fine, &n, err, sizeof err) == 0 && n == 1);
	CHECK("try-nested", cko_try(nested, NULL, err, sizeof err) == 2 && depth_seen == 3 &&
				    !strcmp(err, "outer after inner 'died with 3'"));
	char small[6];
	st = 7;
	CHECK("try-message-truncated", cko_try(dies, &st, small, sizeof small) == 7 && !strcmp(small, "died "));
	/* many in a row leave nothing behind */
	int all = 1;
	for (int i = 0; i < 1000 && all; i++) {
		st = 1 + i % 5;
		all = cko_try(dies, &st, err, sizeof err) == st;
	}
	CHECK("try-repeated", all);

	const char *tmp = getenv("TEST_TMP");
	char *path = xasprintf("%s/bad.json", tmp && *tmp ? tmp : "/tmp");
	const char *dup = "{\n\"a\": 1,\n\"a\": 2\n}\n", *syn = "{\n\"a\": 1,\n\"b\" 2\n}\n";
	cko_write_file(path, dup, strlen(dup));
	CHECK("json-load-duplicate-names-file",
	      cko_try(json_load, path, err, sizeof err) == CKO_BADINPUT && strstr(err, path) && strstr(err, "duplicate"));
	cko_write_file(path, syn, strlen(syn));
	CHECK("json-load-syntax-names-line",
	      cko_try(json_load, path, err, sizeof err) == CKO_BADINPUT && strstr(err, path) && strstr(err, "line 3"));
	unlink(path);
	CHECK("json-load-missing-file", cko_try(json_load, path, err, sizeof err) == CKO_BADINPUT && strstr(err, path));
	free(path);
}

static void writing(void)
{
	const char *tmp = getenv("TEST_TMP");
	char *path = xasprintf("%s/w/out.json", tmp && *tmp ? tmp : "/tmp");
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", 3);
	cko_json_write(path, o);
	size_t len;
	char *s = cko_read_file(path, 1 << 20, &len);
	CHECK("json-write-newline", len > 0 && s[len - 1] == '\n' && strstr(s, "\"n\""));
	free(s);
	CHECK("json-write-if-changed-same", cko_json_write_if_changed(path, o) == 0);
	cJSON_AddNumberToObject(o, "m", 4);
	CHECK("json-write-if-changed-differs", cko_json_write_if_changed(path, o) == 1);
	cJSON_Delete(o);
	unlink(path);
	free(path);
}

int main(void)
{
	parsing();
	accessors();
	trying();
	writing();
	TEST_END();
}
