/* llm_http.c: one JSON POST through libcurl with time limits, a bounded
 * body and the response headers the retry logic reads. The key goes only
 * into the Authorization header; nothing here logs or keeps it. */
#include "llm.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	cko_buf body;
	size_t max;
	int truncated;
	llm_http *r;
} sink;

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	sink *s = arg;
	size_t n = size * nmemb;
	if (s->body.len + n > s->max) {
		s->truncated = 1;
		return 0; /* aborts the transfer (CURLE_WRITE_ERROR) */
	}
	buf_add(&s->body, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	sink *s = arg;
	size_t n = size * nmemb;
	/* A new status line (after 100 Continue) starts a new header set. */
	if (n > 5 && !memcmp(data, "HTTP/", 5)) {
		cJSON_Delete(s->r->headers);
		s->r->headers = cJSON_CreateObject();
		s->r->has_retry_after = 0;
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
	if (!strcmp(key, "retry-after")) {
		s->r->has_retry_after = 1;
		snprintf(s->r->retry_after, sizeof s->r->retry_after, "%s", val);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(s->r->headers, key);
	cJSON_AddStringToObject(s->r->headers, key, val);
	free(val);
	return n;
}

static int curl_ready;

int llm_http_post(const char *url, const char *key, const char *body, double timeout_s, double connect_timeout_s,
		  size_t max_body, llm_http *r)
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
	sink s = {.max = max_body, .r = r};
	buf_add(&s.body, "", 0);
	struct curl_slist *hdr = NULL;
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Accept: application/json");
	hdr = curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip */
	char *auth = NULL;
	if (key) {
		auth = xasprintf("Authorization: Bearer %s", key);
		hdr = curl_slist_append(hdr, auth);
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->err);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_USERAGENT, "cko-llm/" CKO_VERSION);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	/* A server on this machine is reached directly: a proxy would see
	 * the key of a plain http request. */
	if (llm_url_loopback(url))
		curl_easy_setopt(h, CURLOPT_PROXY, "");
	/* Never follow a redirect: it would carry the key elsewhere. */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	double t0 = cko_now();
	CURLcode rc = curl_easy_perform(h);
	r->time_s = cko_now() - t0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	r->body = s.body.s;
	r->body_len = s.body.len;
	r->body_truncated = s.truncated;
	curl_slist_free_all(hdr);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	curl_easy_cleanup(h);
	if (rc != CURLE_OK) {
		r->curl_code = (int)rc;
		if (s.truncated)
			snprintf(r->err, sizeof r->err, "response body larger than %zu bytes", max_body);
		else if (!r->err[0])
			snprintf(r->err, sizeof r->err, "%s", curl_easy_strerror(rc));
		llm_scrub(r->err);
		return -1;
	}
	return 0;
}

void llm_http_free(llm_http *r)
{
	free(r->body);
	cJSON_Delete(r->headers);
	memset(r, 0, sizeof *r);
}
