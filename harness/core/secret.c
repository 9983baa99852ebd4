/* secret.c: what counts as a secret, so that none reaches a child process
 * (the environment children get is built from an allow-list) or a config
 * file (a field named like a key is refused). Model-written code runs in
 * those children and may print anything it can read. */
#include "cko.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

int cko_env_name_secret(const char *name)
{
	static const char *const words[] = {"KEY", "TOKEN", "SECRET", "PASS", "CRED", "AUTH", "COOKIE", "JWT",
					    "PRIVATE", NULL};
	size_t n = strcspn(name, "=");
	for (const char *const *w = words; *w; w++) {
		size_t k = strlen(*w);
		for (size_t i = 0; i + k <= n; i++)
			if (!strncasecmp(name + i, *w, k))
				return 1;
	}
	return 0;
}

/* Names a child may see: what tools, compilers, profilers and plotting
 * need to run (paths, locale, CUDA's and cko's own settings, sanitizer
 * options), nothing else. */
static const char *const env_exact[] = {
	"PATH", "HOME", "TMPDIR", "LANG", "TZ", "TERM", "USER", "LOGNAME", "LD_LIBRARY_PATH", "XDG_CACHE_HOME",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "GDFONTPATH", NULL,
};
static const char *const env_prefix[] = {"LC_", "CUDA_", "CKO_", "NVIDIA_", "GNUPLOT_", NULL};

/* 1 if the name (n bytes) is one of the comma- or blank-separated names in list. */
static int in_list(const char *list, const char *name, size_t n)
{
	for (const char *p = list; p && *p;) {
		p += strspn(p, ", \t");
		size_t k = strcspn(p, ", \t");
		if (k && k == n && !strncmp(p, name, n))
			return 1;
		p += k;
	}
	return 0;
}

int cko_env_name_allowed(const char *name)
{
	size_t n = strcspn(name, "=");
	if (!n || cko_env_name_secret(name))
		return 0;
	/* Where the key's .env is: no child needs to know. */
	if (n == 10 && !strncmp(name, "CKO_DOTENV", 10))
		return 0;
	for (const char *const *e = env_exact; *e; e++)
		if (strlen(*e) == n && !strncmp(name, *e, n))
			return 1;
	for (const char *const *p = env_prefix; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return 1;
	return in_list(getenv("CKO_ENV_ALLOW"), name, n);
}

char **cko_env_allowed(void)
{
	size_t n = 0, k = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **v = xcalloc(n + 1, sizeof *v);
	for (char **e = environ; e && *e; e++)
		if (strchr(*e, '=') && cko_env_name_allowed(*e))
			v[k++] = xstrdup(*e);
	v[k] = NULL;
	return v;
}

void cko_envp_free(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}

/* ---- config fields ---- */

/* The words of a field name, lower case: split at anything not a letter
 * or digit and where a lower-case letter meets an upper-case one (apiKey). */
static int split_words(const char *name, char w[][32], int max)
{
	int nw = 0;
	size_t len = 0;
	for (const char *p = name;; p++) {
		int c = (unsigned char)*p;
		int boundary = !isalnum(c) || (len && isupper(c) && islower((unsigned char)p[-1]));
		if (boundary && len) {
			w[nw][len < 31 ? len : 31] = 0;
			if (++nw == max)
				return nw;
			len = 0;
		}
		if (!c)
			return nw;
		if (isalnum(c)) {
			if (len < 31)
				w[nw][len] = (char)tolower(c);
			len++;
		}
	}
}

int cko_field_name_secret(const char *name)
{
	/* Anywhere in the name: words that are secrets whatever follows. */
	static const char *const any[] = {"secret", "secrets", "password", "passwd", "passphrase", "credential",
					  "credentials", "authorization", "bearer", "apikey", "apitoken", "accesstoken",
					  "authtoken", "privatekey", "secretkey", "jwt", NULL};
	/* At the end: api_key, access_token, auth; not max_tokens or stop_token_ids. */
	static const char *const last[] = {"key", "token", "auth", "pass", "cookie", "creds", NULL};
	/* OpenAI's request field routing prompts to a cache: not a secret. */
	if (!strcasecmp(name, "prompt_cache_key"))
		return 0;
	char w[16][32];
	int n = split_words(name, w, 16);
	for (int i = 0; i < n; i++)
		for (const char *const *a = any; *a; a++)
			if (!strcmp(w[i], *a))
				return 1;
	for (const char *const *a = last; n && *a; a++)
		if (!strcmp(w[n - 1], *a))
			return 1;
	return 0;
}

/* The path of the first secret-looking field under j into path; 1 if found. */
static int find_secret(const cJSON *j, char *path, size_t cap, size_t len)
{
	int i = 0;
	for (const cJSON *c = j ? j->child : NULL; c; c = c->next, i++) {
		size_t l = len;
		if (cJSON_IsObject(j))
			l += (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "", c->string);
		else
			l += (size_t)snprintf(path + len, cap - len, "[%d]", i);
		if (l >= cap)
			l = cap - 1;
		if ((cJSON_IsObject(j) && cko_field_name_secret(c->string)) || find_secret(c, path, cap, l))
			return 1;
		path[len] = 0;
	}
	return 0;
}

void cko_jno_secrets(const cJSON *root, const char *file)
{
	char path[512] = "";
	if (find_secret(root, path, sizeof path, 0))
		cko_jfail(file, path, "keys are never stored in a config; set OPENAI_API_KEY or a .env file");
}
