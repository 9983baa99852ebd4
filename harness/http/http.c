/* http.c: one request through libcurl with the caller's policy. */
#include "http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	cko_buf body;
	size_t max;
	cko_http *r;
} sink;

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	sink *s = arg;
	size_t n = size * nmemb;
	if (s->body.len + n > s->max) {
		s->r->body_truncated = 1;
		return 0; /* aborts the transfer (CURLE_WRITE_ERROR) */
	}
	buf_add(&s->body, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	sink *s = arg;
	size_t n = size * nmemb;
	/* A new status line (after 100 Continue or a redirect) starts a new header set. */
	if (n > 5 && !memcmp(data, "HTTP/", 5)) {
		cJSON_Delete(s->r->headers);
		s->r->headers = cJSON_CreateObject();
		return n;
	}
	const char *colon = memchr(data, ':', n);
	if (!colon || colon == data)
		return n;
	size_t kl = (size_t)(colon - data);
	if (kl > 64)
		return n;
	char key[65];
	for (size_t i = 0; i < kl; i++)
		key[i] = (char)tolower((unsigned char)data[i]);
	key[kl] = 0;
	const char *v = colon + 1, *e = data + n;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
		e--;
	size_t vl = (size_t)(e - v);
	if (vl > 1024)
		vl = 1024;
	if (!strcmp(key, "set-cookie"))
		return n;
	char *val = strndup(v, vl);
	cJSON_DeleteItemFromObjectCaseSensitive(s->r->headers, key);
	cJSON_AddStringToObject(s->r->headers, key, val);
	free(val);
	return n;
}

static void protocols(CURL *h, int https_only)
{
#if LIBCURL_VERSION_NUM >= 0x075500
	const char *p = https_only ? "https" : "http,https";
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, p);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, p);
#else
	long p = https_only ? CURLPROTO_HTTPS : CURLPROTO_HTTP | CURLPROTO_HTTPS;
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, p);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, p);
#endif
}

static int curl_ready;

int cko_http_fetch(const char *url, const cko_http_opts *o, cko_http *r)
{
	memset(r, 0, sizeof *r);
	r->headers = cJSON_CreateObject();
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			cko_die(CKO_ENV, "libcurl failed to initialize");
		curl_ready = 1;
	}
	CURL *h = curl_easy_init();
	if (!h)
		cko_die(CKO_ENV, "libcurl: cannot create a handle");
	sink s = {.max = o->max_body, .r = r};
	buf_add(&s.body, "", 0);
	struct curl_slist *hdr = NULL;
	for (const char *const *l = o->headers; l && *l; l++)
		hdr = curl_slist_append(hdr, *l);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	if (o->body) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, o->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(o->body));
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->err);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_USERAGENT, o->agent);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (o->direct)
		curl_easy_setopt(h, CURLOPT_PROXY, "");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, o->max_redirects > 0 ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)o->max_redirects);
	protocols(h, o->https_only);
	double t0 = cko_now();
	CURLcode rc = curl_easy_perform(h);
	r->time_s = cko_now() - t0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	char *eff = NULL;
	curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
	r->url = xstrdup(eff ? eff : url);
	r->body = s.body.s;
	r->body_len = s.body.len;
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CURLE_OK) {
		r->curl_code = (int)rc;
		if (r->body_truncated)
			snprintf(r->err, sizeof r->err, "response body larger than %zu bytes", o->max_body);
		else if (!r->err[0])
			snprintf(r->err, sizeof r->err, "%s", curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

void cko_http_free(cko_http *r)
{
	free(r->body);
	free(r->url);
	cJSON_Delete(r->headers);
	memset(r, 0, sizeof *r);
}
