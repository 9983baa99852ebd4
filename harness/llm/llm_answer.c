/* llm_answer.c: the answer object from a model's reply. The reply is
 * untrusted text: it is bounded, parsed strictly (cko_json_parse) and only
 * ever treated as data. Two shapes are understood: a JSON object (the
 * structured-output schema, or plain launch.json-style fields) and a
 * markdown reply with fenced blocks. */
#include "llm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[LLM_NKINDS] = {"kernel", "initial", "reference", "signature", "cases"};

int llm_kind_parse(const char *s, llm_kind *k)
{
	for (int i = 0; i < LLM_NKINDS; i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (llm_kind)i;
			return 1;
		}
	return 0;
}

const char *llm_kind_name(llm_kind k) { return kind_names[k]; }

int llm_kind_is_kernel(llm_kind k) { return k == LLM_KERNEL || k == LLM_INITIAL || k == LLM_REFERENCE; }

int llm_fenced_blocks(const char *t, size_t len, llm_block *out, int max)
{
	int n = 0;
	size_t i = 0;
	while (i < len) {
		size_t ls = i, le = i;
		while (le < len && t[le] != '\n')
			le++;
		size_t p = ls, ind = 0;
		while (p < le && t[p] == ' ' && ind < 4)
			p++, ind++;
		char fc = p < le ? t[p] : 0;
		size_t ticks = 0;
		while (p + ticks < le && t[p + ticks] == fc && (fc == '`' || fc == '~'))
			ticks++;
		if (ind < 4 && ticks >= 3) {
			/* An opening fence: its info string's first word is the language. */
			size_t q = p + ticks;
			while (q < le && (t[q] == ' ' || t[q] == '\t'))
				q++;
			llm_block b = {{0}, 0, 0, 0};
			size_t w = 0;
			while (q < le && !isspace((unsigned char)t[q]) && t[q] != '{' && w + 1 < sizeof b.lang)
				b.lang[w++] = (char)tolower((unsigned char)t[q++]);
			b.lang[w] = 0;
			b.start = le < len ? le + 1 : len;
			size_t j = b.start, end = len, next = len;
			while (j < len) {
				size_t cs = j, ce = j;
				while (ce < len && t[ce] != '\n')
					ce++;
				size_t c = cs, ci = 0;
				while (c < ce && t[c] == ' ' && ci < 4)
					c++, ci++;
				size_t k = 0;
				while (c + k < ce && t[c + k] == fc)
					k++;
				size_t r = c + k;
				while (r < ce && (t[r] == ' ' || t[r] == '\t' || t[r] == '\r'))
					r++;
				if (ci < 4 && k >= ticks && r == ce) {
					end = cs;
					next = ce < len ? ce + 1 : len;
					b.closed = 1;
					break;
				}
				j = ce < len ? ce + 1 : len;
			}
			b.len = end > b.start ? end - b.start : 0;
			if (n < max)
				out[n] = b;
			n++;
			i = next;
			continue;
		}
		i = le < len ? le + 1 : len;
	}
	return n < max ? n : max;
}

static int is_kernel_lang(const char *l)
{
	static const char *const langs[] = {"cuda", "cu", "cuh", "c++", "cpp", "cxx", "cc", "c", NULL};
	for (const char *const *p = langs; *p; p++)
		if (!strcmp(l, *p))
			return 1;
	return 0;
}

static char *slice(const char *t, size_t start, size_t len) { return strndup(t + start, len); }

/* The prose: the text minus its fenced blocks, trimmed and bounded. */
static char *prose(const char *t, size_t len, const llm_block *b, int nb)
{
	cko_buf o = {0};
	buf_add(&o, "", 0);
	size_t pos = 0;
	for (int i = 0; i <= nb; i++) {
		size_t stop = len;
		if (i < nb) {
			/* Back up over the opening fence line. */
			stop = b[i].start ? b[i].start - 1 : 0;
			while (stop > 0 && t[stop - 1] != '\n')
				stop--;
		}
		if (stop > pos)
			buf_add(&o, t + pos, stop - pos);
		if (i < nb) {
			pos = b[i].start + b[i].len;
			while (pos < len && t[pos] != '\n')
				pos++; /* the closing fence */
		}
	}
	/* Blank lines where the blocks were: at most one in a row. */
	size_t w = 0;
	for (size_t r = 0; r < o.len; r++)
		if (!(o.s[r] == '\n' && w >= 2 && o.s[w - 1] == '\n' && o.s[w - 2] == '\n'))
			o.s[w++] = o.s[r];
	o.s[w] = 0;
	o.len = w;
	char *s = o.s, *e = o.s + o.len;
	while (*s && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	size_t n = cko_utf8_cut(s, (size_t)(e - s), LLM_NOTE_MAX);
	char *r = strndup(s, n);
	buf_free(&o);
	return r;
}

void llm_drop_nulls(cJSON *j)
{
	for (cJSON *c = j ? j->child : NULL, *next; c; c = next) {
		next = c->next;
		if (cJSON_IsNull(c) && cJSON_IsObject(j))
			cJSON_Delete(cJSON_DetachItemViaPointer(j, c));
		else
			llm_drop_nulls(c);
	}
}

/* A list of {KEYNAME: name, VALKEY: value} pairs to an object. */
static cJSON *pairs(const cJSON *in, const char *what, const char *keyname, const char *valkey, char *err,
		    size_t errlen)
{
	if (cJSON_IsObject(in))
		return cJSON_Duplicate(in, 1);
	if (!cJSON_IsArray(in)) {
		snprintf(err, errlen, "launch.%s: expected an object or a list of {%s, %s}", what, keyname, valkey);
		return NULL;
	}
	cJSON *o = cJSON_CreateObject();
	int i = 0;
	for (const cJSON *e = in->child; e; e = e->next, i++) {
		const char *k = cko_jstr_opt(e, keyname, NULL);
		const cJSON *v = cko_jget(e, valkey);
		if (!k || !*k || strlen(k) > 128 || (!v && strcmp(what, "overrides"))) {
			snprintf(err, errlen, "launch.%s[%d]: expected {\"%s\": ..., \"%s\": ...}", what, i, keyname,
				 valkey);
			cJSON_Delete(o);
			return NULL;
		}
		if (cko_jget(o, k)) {
			snprintf(err, errlen, "launch.%s[%d]: '%s' appears twice", what, i, k);
			cJSON_Delete(o);
			return NULL;
		}
		cJSON *val;
		if (!strcmp(what, "overrides")) {
			val = cJSON_Duplicate(e, 1);
			cJSON_DeleteItemFromObjectCaseSensitive(val, keyname);
			llm_drop_nulls(val);
		} else {
			val = cJSON_Duplicate(v, 1);
		}
		cJSON_AddItemToObject(o, k, val);
	}
	return o;
}

cJSON *llm_launch_normalize(const cJSON *in, char *err, size_t errlen)
{
	if (!cJSON_IsObject(in)) {
		snprintf(err, errlen, "launch: expected an object");
		return NULL;
	}
	cJSON *out = cJSON_CreateObject();
	for (const cJSON *c = in->child; c; c = c->next) {
		if (cJSON_IsNull(c))
			continue;
		cJSON *v = NULL;
		if (!strcmp(c->string, "defines"))
			v = pairs(c, "defines", "name", "value", err, errlen);
		else if (!strcmp(c->string, "tunables"))
			v = pairs(c, "tunables", "name", "values", err, errlen);
		else if (!strcmp(c->string, "overrides"))
			v = pairs(c, "overrides", "case", "grid", err, errlen);
		else
			v = cJSON_Duplicate(c, 1);
		if (!v) {
			cJSON_Delete(out);
			return NULL;
		}
		llm_drop_nulls(v);
		/* Empty optional parts say nothing; leave them out. */
		int empty = (cJSON_IsObject(v) || cJSON_IsArray(v)) && !v->child && strcmp(c->string, "grid") &&
			    strcmp(c->string, "block");
		if (empty || cko_jget(out, c->string))
			cJSON_Delete(v);
		else
			cJSON_AddItemToObject(out, c->string, v);
	}
	return out;
}

/* The kernel-kind answer from a parsed JSON object. */
static cJSON *kernel_from_json(const cJSON *j, char *err, size_t errlen)
{
	const cJSON *k = cko_jget(j, "kernel");
	if (!cJSON_IsString(k) || !*k->valuestring) {
		snprintf(err, errlen, "the answer has no \"kernel\" string");
		return NULL;
	}
	if (strlen(k->valuestring) > LLM_KERNEL_MAX) {
		snprintf(err, errlen, "the kernel is longer than %u bytes", LLM_KERNEL_MAX);
		return NULL;
	}
	cJSON *a = cJSON_CreateObject();
	const char *note = cko_jstr_opt(j, "note", "");
	char *nb = strndup(note, cko_utf8_cut(note, strlen(note), LLM_NOTE_MAX));
	cJSON_AddStringToObject(a, "note", nb);
	free(nb);
	cJSON_AddStringToObject(a, "kernel", k->valuestring);
	const cJSON *l = cko_jget(j, "launch");
	if (l && !cJSON_IsNull(l)) {
		cJSON *n = llm_launch_normalize(l, err, errlen);
		if (!n) {
			cJSON_Delete(a);
			return NULL;
		}
		cJSON_AddItemToObject(a, "launch", n);
	}
	return a;
}

/* The signature or cases answer: {"note", KEY: {...}} or the file itself. */
static cJSON *file_from_json(const cJSON *j, const char *key, char *err, size_t errlen)
{
	const cJSON *f = cko_jget(j, key);
	const cJSON *body = cJSON_IsObject(f) ? f : NULL;
	if (!body) {
		/* The file itself: a signature has "entry", cases.json a "cases" list. */
		int itself = !strcmp(key, "signature") ? cko_jget(j, "entry") != NULL : cJSON_IsArray(f);
		if (!itself) {
			snprintf(err, errlen, "the answer has no \"%s\" object", key);
			return NULL;
		}
		body = j;
	}
	cJSON *a = cJSON_CreateObject();
	const char *note = body == j ? "" : cko_jstr_opt(j, "note", "");
	char *nb = strndup(note, cko_utf8_cut(note, strlen(note), LLM_NOTE_MAX));
	cJSON_AddStringToObject(a, "note", nb);
	free(nb);
	cJSON *copy = cJSON_Duplicate(body, 1);
	llm_drop_nulls(copy);
	cJSON_AddItemToObject(a, key, copy);
	return a;
}

static cJSON *from_json(llm_kind kind, const cJSON *j, char *err, size_t errlen)
{
	if (!cJSON_IsObject(j)) {
		snprintf(err, errlen, "the answer is JSON but not an object");
		return NULL;
	}
	if (llm_kind_is_kernel(kind))
		return kernel_from_json(j, err, errlen);
	return file_from_json(j, kind == LLM_SIGNATURE ? "signature" : "cases", err, errlen);
}

/* Parses text as one JSON object, allowing a ```json fence around it. */
static cJSON *parse_whole(const char *t, size_t len)
{
	while (len && isspace((unsigned char)*t))
		t++, len--;
	while (len && isspace((unsigned char)t[len - 1]))
		len--;
	if (len > 3 && !strncmp(t, "```", 3)) {
		llm_block b;
		if (llm_fenced_blocks(t, len, &b, 1) == 1) {
			size_t after = b.start + b.len;
			while (after < len && t[after] != '\n')
				after++;
			if (after >= len - 1) {
				t += b.start;
				len = b.len;
			}
		}
	}
	if (!len || *t != '{')
		return NULL;
	char e[256];
	return cko_json_parse(t, len, e, sizeof e);
}

#define MAXBLOCKS 64

static cJSON *from_fenced(llm_kind kind, const char *t, size_t len, char *err, size_t errlen)
{
	llm_block b[MAXBLOCKS];
	int nb = llm_fenced_blocks(t, len, b, MAXBLOCKS);
	/* The last ```json block that parses as an object. */
	cJSON *json = NULL;
	for (int i = nb - 1; i >= 0 && !json; i--)
		if (b[i].closed && (!strcmp(b[i].lang, "json") || (!llm_kind_is_kernel(kind) && !b[i].lang[0]))) {
			char e[256];
			json = cko_json_parse(t + b[i].start, b[i].len, e, sizeof e);
			if (json && !cJSON_IsObject(json)) {
				cJSON_Delete(json);
				json = NULL;
			}
		}
	/* A whole answer object inside a fence: take it as such. */
	if (json && llm_kind_is_kernel(kind) && cJSON_IsString(cko_jget(json, "kernel"))) {
		cJSON *a = from_json(kind, json, err, errlen);
		cJSON_Delete(json);
		return a;
	}
	char *note = prose(t, len, b, nb);
	cJSON *a = NULL;
	if (llm_kind_is_kernel(kind)) {
		int best = -1, best_global = 0, unclosed = 0;
		for (int i = 0; i < nb; i++) {
			int code = is_kernel_lang(b[i].lang) || !b[i].lang[0];
			/* An empty block is no kernel (as an empty "kernel" string is
			 * not), and an unclosed one is a reply cut short. */
			if (code && b[i].len && !b[i].closed)
				unclosed = 1;
			if (!code || !b[i].len || !b[i].closed)
				continue;
			char *s = slice(t, b[i].start, b[i].len);
			int global = strstr(s, "__global__") != NULL;
			free(s);
			if (!b[i].lang[0] && !global)
				continue;
			if (best < 0 || (global && !best_global) || (global == best_global && b[i].len > b[best].len)) {
				best = i;
				best_global = global;
			}
		}
		if (best < 0 && unclosed) {
			snprintf(err, errlen, "the reply's ```cuda block is not closed (the reply was cut short)");
		} else if (best < 0) {
			snprintf(err, errlen, "the reply has no ```cuda block with the kernel");
		} else if (b[best].len > LLM_KERNEL_MAX) {
			snprintf(err, errlen, "the kernel is longer than %u bytes", LLM_KERNEL_MAX);
		} else {
			a = cJSON_CreateObject();
			cJSON_AddStringToObject(a, "note", note);
			char *k = slice(t, b[best].start, b[best].len);
			cJSON_AddStringToObject(a, "kernel", k);
			free(k);
			if (json) {
				cJSON *l = llm_launch_normalize(cko_jget(json, "launch") ? cko_jget(json, "launch") : json,
								err, errlen);
				if (!l) {
					cJSON_Delete(a);
					a = NULL;
				} else {
					cJSON_AddItemToObject(a, "launch", l);
				}
			}
		}
	} else if (!json) {
		snprintf(err, errlen, "the reply has no ```json block");
	} else {
		a = file_from_json(json, kind == LLM_SIGNATURE ? "signature" : "cases", err, errlen);
		if (a && !*cko_jstr_opt(a, "note", ""))
			cJSON_SetValuestring(cJSON_GetObjectItem(a, "note"), note);
	}
	free(note);
	cJSON_Delete(json);
	return a;
}

/* The model's note is stored (proposal.json, history.json) and shown with
 * its terminal controls (ESC, other C0 but newline and tab, C1) visible as
 * \xNN or \u00NN, never raw. */
static cJSON *visible_note(cJSON *a)
{
	cJSON *n = cko_jget(a, "note") ? cJSON_GetObjectItem(a, "note") : NULL;
	if (cJSON_IsString(n)) {
		char *v = cko_text_visible(n->valuestring);
		cJSON_SetValuestring(n, v);
		free(v);
	}
	return a;
}

cJSON *llm_answer_extract(llm_kind kind, const char *content, size_t len, int fenced, const char **how, char *err,
			  size_t errlen)
{
	*how = "json";
	if (!content || !len) {
		snprintf(err, errlen, "the reply is empty");
		return NULL;
	}
	if (memchr(content, 0, len)) {
		snprintf(err, errlen, "the reply contains a NUL byte");
		return NULL;
	}
	/* Structured replies are one object; a fenced reply may be one too
	 * when the model ignored the format. Either way try that first. */
	cJSON *j = parse_whole(content, len);
	if (j) {
		cJSON *a = from_json(kind, j, err, errlen);
		cJSON_Delete(j);
		if (a || !fenced)
			return visible_note(a);
	}
	*how = "fenced";
	return visible_note(from_fenced(kind, content, len, err, errlen));
}
