/* http.h: one HTTP request through libcurl (the model client, cko-llm and
 * cko-init; the documentation fetcher, cko-docs): time limits, a bounded
 * body, the response's headers. Each caller sets its own policy (protocols,
 * redirects, proxy, limits); nothing here logs a request's headers, which
 * may hold a key. */
#ifndef CKO_HTTP_H
#define CKO_HTTP_H

#include "cko.h"

typedef struct {
	const char *body;           /* POSTed as is; NULL: a GET */
	const char *const *headers; /* request header lines, NULL-terminated; may be NULL */
	int https_only;             /* else http and https */
	int max_redirects;          /* followed (same protocols); 0: a redirect is the response */
	int direct;                 /* no proxy (a server on this machine) */
	double timeout_s, connect_timeout_s;
	size_t max_body;            /* a longer body aborts the transfer */
	const char *agent;          /* User-Agent */
} cko_http_opts;

typedef struct cko_http {
	long status;        /* HTTP status; 0 when no response came */
	int curl_code;      /* CURLcode, 0 on success */
	char err[512];      /* libcurl's reason when curl_code != 0 */
	char *body;         /* NUL-terminated; never NULL after cko_http_fetch */
	size_t body_len;
	int body_truncated; /* longer than max_body: cut, and an error */
	cJSON *headers;     /* the last response's headers, lower-case names, minus cookies */
	char *url;          /* the URL the last response came from (after redirects) */
	double time_s;
} cko_http;

/* Sends the request. Returns 0 when a complete response arrived (any
 * status), -1 on a transport error or a body over the limit (r->curl_code,
 * r->err). r is filled either way; cko_http_free releases it. */
int cko_http_fetch(const char *url, const cko_http_opts *o, cko_http *r);
void cko_http_free(cko_http *r);

#endif
