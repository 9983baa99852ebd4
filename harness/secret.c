/* secret.c: what counts as a secret, so that none reaches a child process:
 * the environment children get is built from an allow-list. Model-written
 * code runs in those children and may print anything it can read. */
#include "cko.h"

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

