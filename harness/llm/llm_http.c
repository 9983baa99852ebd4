/* llm_http.c: the model client's POST (harness/http): JSON both ways, time
 * and size limits, no redirects, no proxy for a server on this machine. The
 * key goes only into the Authorization header; nothing here logs or keeps
 * it. What to do with a failed attempt is llm_retry.c's. */
#include "llm.h"
#include "http.h"

#include <stdlib.h>
#include <string.h>

int llm_http_post(const char *url, const char *key, const char *body, double timeout_s, double connect_timeout_s,
		  size_t max_body, cko_http *r)
{
	char *auth = key ? xasprintf("Authorization: Bearer %s", key) : NULL;
	const char *hdr[] = {"Content-Type: application/json", "Accept: application/json",
			     "Expect:" /* no 100-continue round trip */, auth, NULL};
	cko_http_opts o = {
		.body = body,
		.headers = hdr,
		/* A server on this machine is reached directly: a proxy would
		 * see the key of a plain http request. */
		.direct = llm_url_loopback(url),
		/* Never follow a redirect: it would carry the key elsewhere. */
		.max_redirects = 0,
		.timeout_s = timeout_s,
		.connect_timeout_s = connect_timeout_s,
		.max_body = max_body,
		.agent = "cko-llm/" CKO_VERSION,
	};
	int rc = cko_http_fetch(url, &o, r);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	if (rc)
		llm_scrub(r->err);
	return rc;
}
