/* test-secret: keeping the API key out of children, configs and saved
 * text. */
#include "llm.h"
#include "test.h"

#include <stdlib.h>

/* Runs env through cko_run_argv; its output after a newline (so every
 * line starts with one), or NULL. */
static char *child_env(void)
{
	char *argv[] = {"env", NULL};
	cko_proc r;
	if (cko_run_argv(argv, NULL, 10, 1 << 20, 0, &r) || r.status)
		return NULL;
	char *s = xasprintf("\n%s", r.out);
	cko_proc_free(&r);
	return s;
}

/* A made-up key, of the shape of a real one: never print it. */
#define KEY "sk-proj-AbCdEf123456_XyZ"

int main(void)
{
	CHECK("env-secret/openai", cko_env_name_secret("OPENAI_API_KEY"));
	CHECK("env-secret/token", cko_env_name_secret("MY_SECRET_TOKEN") && cko_env_name_secret("GITHUB_TOKEN"));
	CHECK("env-secret/case", cko_env_name_secret("hf_token") && cko_env_name_secret("Db_Password"));
	CHECK("env-secret/others", cko_env_name_secret("AWS_SECRET_ACCESS_KEY") && cko_env_name_secret("PGPASSWD") &&
					   cko_env_name_secret("GOOGLE_APPLICATION_CREDENTIALS") &&
					   cko_env_name_secret("NPM_AUTH") && cko_env_name_secret("CKO_API_KEY"));
	CHECK("env-secret/entry", cko_env_name_secret("API_KEY=x") && !cko_env_name_secret("PATH=/key/token"));
	CHECK("env-secret/plain", !cko_env_name_secret("PATH") && !cko_env_name_secret("CUDA_VISIBLE_DEVICES") &&
					  !cko_env_name_secret("LC_ALL") && !cko_env_name_secret("CKO_SHARE"));
	CHECK("env-allowed/list", cko_env_name_allowed("PATH") && cko_env_name_allowed("HOME") &&
					  cko_env_name_allowed("LC_ALL") && cko_env_name_allowed("CUDA_VISIBLE_DEVICES") &&
					  cko_env_name_allowed("CKO_GPU_SLOT") && cko_env_name_allowed("NVIDIA_VISIBLE_DEVICES") &&
					  cko_env_name_allowed("ASAN_OPTIONS") && cko_env_name_allowed("TMPDIR=/tmp"));
	CHECK("env-allowed/not", !cko_env_name_allowed("OPENAI_API_KEY") && !cko_env_name_allowed("CKO_API_KEY") &&
					 !cko_env_name_allowed("CKO_DOTENV") && !cko_env_name_allowed("LD_PRELOAD") &&
					 !cko_env_name_allowed("http_proxy") && !cko_env_name_allowed("PATHX") &&
					 !cko_env_name_allowed("=x") && !cko_env_name_allowed("CUDA_AUTH_TOKEN"));

	/* A child sees the allowed variables and none of the others. */
	setenv("OPENAI_API_KEY", KEY, 1);
	setenv("MY_SECRET_TOKEN", KEY, 1);
	setenv("CKO_DOTENV", "/somewhere/.env", 1);
	setenv("CKO_TEST_VISIBLE", "yes", 1);
	setenv("SOME_OTHER_VAR", "no", 1);
	setenv("EXTRA_ONE", "1", 1);
	unsetenv("CKO_ENV_ALLOW");
	char *out = child_env();
	CHECK("child-env/ran", out && strstr(out, "PATH="));
	CHECK("child-env/kept", out && strstr(out, "\nCKO_TEST_VISIBLE=yes\n"));
	CHECK("child-env/no-key", out && !strstr(out, "\nOPENAI_API_KEY=") && !strstr(out, "\nMY_SECRET_TOKEN=") &&
					  !strstr(out, KEY));
	CHECK("child-env/no-dotenv", out && !strstr(out, "\nCKO_DOTENV="));
	CHECK("child-env/not-listed", out && !strstr(out, "\nSOME_OTHER_VAR=") && !strstr(out, "\nEXTRA_ONE="));
	free(out);
	/* CKO_ENV_ALLOW adds names, but never a secret-looking one. */
	setenv("CKO_ENV_ALLOW", "EXTRA_ONE, MY_SECRET_TOKEN", 1);
	out = child_env();
	CHECK("child-env/extra", out && strstr(out, "\nEXTRA_ONE=1\n") && !strstr(out, "\nMY_SECRET_TOKEN=") &&
					 !strstr(out, KEY));
	free(out);
	unsetenv("CKO_ENV_ALLOW");
	unsetenv("OPENAI_API_KEY");
	unsetenv("MY_SECRET_TOKEN");

	CHECK("field-secret/yes", cko_field_name_secret("api_key") && cko_field_name_secret("apiKey") &&
					  cko_field_name_secret("OPENAI_API_KEY") && cko_field_name_secret("key") &&
					  cko_field_name_secret("access_token") && cko_field_name_secret("token") &&
					  cko_field_name_secret("Authorization") && cko_field_name_secret("password") &&
					  cko_field_name_secret("client_secret_id") && cko_field_name_secret("credentials") &&
					  cko_field_name_secret("apikey") && cko_field_name_secret("auth"));
	CHECK("field-secret/no", !cko_field_name_secret("max_completion_tokens") &&
					 !cko_field_name_secret("max_tokens") && !cko_field_name_secret("stop_token_ids") &&
					 !cko_field_name_secret("base_url") && !cko_field_name_secret("prompt_cache_key") &&
					 !cko_field_name_secret("tool_output_max") && !cko_field_name_secret("author") &&
					 !cko_field_name_secret("keyword") && !cko_field_name_secret(""));

	CHECK("loopback/yes", llm_url_loopback("http://127.0.0.1:8000/v1") && llm_url_loopback("http://localhost/v1") &&
				      llm_url_loopback("http://LOCALHOST:11434") && llm_url_loopback("http://[::1]:8080/v1") &&
				      llm_url_loopback("http://127.255.3.4") && llm_url_loopback("https://127.0.0.1"));
	CHECK("loopback/no", !llm_url_loopback("http://10.0.0.5/v1") && !llm_url_loopback("http://localhost.evil.com/") &&
				     !llm_url_loopback("http://127.0.0.1.evil.com/") && !llm_url_loopback("http://127.0.0.1@evil.com/") &&
				     !llm_url_loopback("http://128.0.0.1/") && !llm_url_loopback("http://127.0.0.256/") &&
				     !llm_url_loopback("http://127.0.0/") && !llm_url_loopback("http://[::2]/") &&
				     !llm_url_loopback("http://localhostx/") && !llm_url_loopback("ftp://localhost/"));

	/* Scrubbing: the whole key, and every piece of 6 or more characters. */
	llm_secret(KEY);
	char a[] = "Bearer sk-proj-AbCdEf123456_XyZ.";
	llm_scrub(a);
	CHECK("scrub/whole", !strcmp(a, "Bearer ************************."));
	/* A compiler quoting the key's identifiers one at a time. */
	char b[] = "error: 'sk' 'proj' 'AbCdEf123456_XyZ' undefined";
	llm_scrub(b);
	CHECK("scrub/separated", !strcmp(b, "error: 'sk' 'proj' '****************' undefined"));
	char c[] = "x AbCdEf y 123456_ z 3456_ w Ef12345";
	llm_scrub(c);
	CHECK("scrub/pieces-of-6", !strcmp(c, "x ****** y ******* z 3456_ w *******"));
	char d[] = "sk-proj AbCdE plain text with no key";
	llm_scrub(d);
	CHECK("scrub/under-6-kept", !strcmp(d, "******* AbCdE plain text with no key"));
	char e[] = "AbCdEf123456_XyZAbCdEf123456_XyZ";
	llm_scrub(e);
	CHECK("scrub/adjacent", strspn(e, "*") == strlen(e));
	/* Megabytes in linear time. */
	size_t n = 8u << 20;
	char *big = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		big[i] = "abcdefghijklmnopqrstuvwxyz0123456789 \n"[i % 38];
	memcpy(big + n / 2, KEY, strlen(KEY));
	big[n] = 0;
	double t0 = cko_now();
	llm_scrub(big);
	double dt = cko_now() - t0;
	CHECK("scrub/big", !memmem(big, n, "AbCdEf", 6) && memmem(big + n / 2, 24, "************************", 24) &&
				   big[n / 2 - 1] == "abcdefghijklmnopqrstuvwxyz0123456789 \n"[(n / 2 - 1) % 38]);
	CHECK("scrub/big-fast", dt < 2);
	free(big);
	/* A short key is masked whole, its pieces are not. */
	llm_secret("abc12");
	char f[] = "abc12 abc1 xabc12x";
	llm_scrub(f);
	CHECK("scrub/short-key", !strcmp(f, "***** abc1 x*****x"));
	llm_secret(NULL);
	char g[] = "sk-proj-AbCdEf123456_XyZ";
	llm_scrub(g);
	CHECK("scrub/forgotten", !strcmp(g, KEY));
	TEST_END();
}
