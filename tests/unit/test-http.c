/* test-http: the shared HTTP client (harness/http) against a small server
 * on this machine: the body and the headers it keeps (lower-case names,
 * no cookies), the body limit, redirects refused or followed as the
 * caller says, https-only refusing http, and a refused connection. */
#include "http.h"
#include "test.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int lsock, port;

/* Answers each connection by the request's path, until /quit. */
static void *serve(void *arg)
{
	for (;;) {
		int c = accept(lsock, NULL, NULL);
		if (c < 0)
			return NULL;
		char req[4096];
		size_t n = 0;
		ssize_t k;
		while (n < sizeof req - 1 && (k = read(c, req + n, sizeof req - 1 - n)) > 0) {
			n += (size_t)k;
			req[n] = 0;
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[n] = 0;
		char resp[8192];
		const char *big = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
		if (!strncmp(req, "GET /quit ", 10)) {
			close(c);
			return NULL;
		} else if (!strncmp(req, "GET /moved ", 11)) {
			snprintf(resp, sizeof resp,
				 "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/page\r\nContent-Length: 0\r\n"
				 "Connection: close\r\n\r\n", port);
		} else if (!strncmp(req, "GET /big ", 9)) {
			snprintf(resp, sizeof resp, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
				 strlen(big), big);
		} else {
			const char *body = strncmp(req, "POST ", 5) ? "page" : "posted";
			snprintf(resp, sizeof resp,
				 "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nX-Test: Yes \r\nSet-Cookie: s=1\r\n"
				 "Connection: close\r\n\r\n%s", strlen(body), body);
		}
		if (write(c, resp, strlen(resp)) < 0)
			perror("write");
		close(c);
	}
}

int main(void)
{
	lsock = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (bind(lsock, (struct sockaddr *)&a, sizeof a) || listen(lsock, 8) ||
	    getsockname(lsock, (struct sockaddr *)&a, &al)) {
		printf("skip test-http: no socket on 127.0.0.1\n");
		return 0;
	}
	port = ntohs(a.sin_port);
	pthread_t th;
	pthread_create(&th, NULL, serve, NULL);
	char url[128];
	cko_http r;
	cko_http_opts o = {.direct = 1, .timeout_s = 10, .connect_timeout_s = 5, .max_body = 1024, .agent = "test"};

	snprintf(url, sizeof url, "http://127.0.0.1:%d/page", port);
	int rc = cko_http_fetch(url, &o, &r);
	CHECK("get", rc == 0 && r.status == 200 && !strcmp(r.body, "page") && r.body_len == 4);
	CHECK("header-lowercase", !strcmp(cko_jstr_opt(r.headers, "x-test", ""), "Yes"));
	CHECK("no-cookie", !cko_jget(r.headers, "set-cookie"));
	cko_http_free(&r);

	const char *hdr[] = {"Content-Type: application/json", NULL};
	cko_http_opts post = o;
	post.body = "{}";
	post.headers = hdr;
	rc = cko_http_fetch(url, &post, &r);
	CHECK("post", rc == 0 && r.status == 200 && !strcmp(r.body, "posted"));
	cko_http_free(&r);

	snprintf(url, sizeof url, "http://127.0.0.1:%d/moved", port);
	rc = cko_http_fetch(url, &o, &r);
	CHECK("redirect-not-followed", rc == 0 && r.status == 302 && !strcmp(r.url, url));
	cko_http_free(&r);
	cko_http_opts follow = o;
	follow.max_redirects = 2;
	rc = cko_http_fetch(url, &follow, &r);
	CHECK("redirect-followed", rc == 0 && r.status == 200 && !strcmp(r.body, "page") && strstr(r.url, "/page"));
	cko_http_free(&r);

	snprintf(url, sizeof url, "http://127.0.0.1:%d/big", port);
	cko_http_opts small = o;
	small.max_body = 16;
	rc = cko_http_fetch(url, &small, &r);
	CHECK("body-limit", rc == -1 && r.body_truncated && strstr(r.err, "larger than 16 bytes") && r.body);
	cko_http_free(&r);

	cko_http_opts https = o;
	https.https_only = 1;
	snprintf(url, sizeof url, "http://127.0.0.1:%d/page", port);
	rc = cko_http_fetch(url, &https, &r);
	CHECK("https-only", rc == -1 && r.curl_code == CURLE_UNSUPPORTED_PROTOCOL && r.status == 0);
	cko_http_free(&r);

	snprintf(url, sizeof url, "http://127.0.0.1:%d/quit", port);
	cko_http_fetch(url, &o, &r);
	cko_http_free(&r);
	pthread_join(th, NULL);
	close(lsock);

	/* The server is gone: a refused connection is a transport error. */
	snprintf(url, sizeof url, "http://127.0.0.1:%d/page", port);
	rc = cko_http_fetch(url, &o, &r);
	CHECK("refused", rc == -1 && r.curl_code == CURLE_COULDNT_CONNECT && r.err[0] && r.body && !r.body[0]);
	cko_http_free(&r);
	TEST_END();
}
