/* fuzz-json.c: libFuzzer harness for the JSON loaders. The input is parsed
 * with cko_json_parse; a document is then printed and parsed again (it must
 * come back), and fed to the signature, launch-rule, case-scalar and
 * launch-request loaders under cko_try, so that every refusal is a message
 * and never a crash. The request loader reads a file: the input is written
 * to a temporary one. Allocations made before a refusal are leaked by
 * design (cko_try), so run with -detect_leaks=0. */
#include "cko.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A signature whose scalars the case loader binds. */
static const char sig_text[] =
	"{\"entry\": \"k\", \"params\": ["
	"{\"name\": \"M\", \"kind\": \"scalar\", \"dtype\": \"i32\"},"
	"{\"name\": \"N\", \"kind\": \"scalar\", \"dtype\": \"u64\"},"
	"{\"name\": \"alpha\", \"kind\": \"scalar\", \"dtype\": \"f32\"},"
	"{\"name\": \"A\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"in\", \"shape\": [\"M\", \"ceil_div(N, 3)\"]},"
	"{\"name\": \"C\", \"kind\": \"buffer\", \"dtype\": \"f16\", \"role\": \"out\", \"shape\": [\"M*N\"]}]}";
static cko_signature fixed_sig;
static char tmp_path[64];

typedef struct {
	const cJSON *root;
	cko_signature sig;
	cko_request rq;
	cko_env env;
} job;

static void load_sig(void *p)
{
	job *j = p;
	cko_signature_from_json(j->root, "fuzz.json", &j->sig);
}

static void load_launch(void *p)
{
	job *j = p;
	cko_launch_validate(j->root, "fuzz.json");
}

static void load_case(void *p)
{
	job *j = p;
	cko_case_env(&fixed_sig, j->root, "fuzz.json", "cases[0].scalars", &j->env);
}

static void load_request(void *p)
{
	job *j = p;
	cko_request_load(tmp_path, &j->rq);
}

static void setup(void)
{
	char err[256];
	cJSON *s = cko_json_parse(sig_text, sizeof sig_text - 1, err, sizeof err);
	if (!s)
		abort();
	cko_signature_from_json(s, "sig.json", &fixed_sig);
	cJSON_Delete(s);
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(tmp_path, sizeof tmp_path, "%s/cko-fuzz-json.%d.json", dir, (int)getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!tmp_path[0])
		setup();
	char err[512] = "";
	cJSON *root = cko_json_parse((const char *)data, size, err, sizeof err);
	if (!root) {
		if (!err[0])
			abort();
		return 0;
	}
	/* Printed and parsed again, a document survives. */
	char *text = cko_json_print(root);
	cJSON *again = cko_json_parse(text, strlen(text), err, sizeof err);
	if (!again)
		abort();
	cJSON_Delete(again);
	free(text);

	job j = {.root = root};
	if (cko_try(load_sig, &j, err, sizeof err) == 0) {
		/* every buffer's shape evaluates or says why */
		cko_env env = {0};
		cko_env_set(&env, "M", 3);
		cko_env_set(&env, "N", 5);
		for (int i = 0; i < j.sig.nparams; i++) {
			int64_t shape[CKO_MAXDIM];
			size_t count;
			if (j.sig.params[i].is_buffer && cko_param_shape(&j.sig.params[i], &env, shape, &count, err, sizeof err) &&
			    !err[0])
				abort();
		}
		cko_env_free(&env);
		cko_signature_free(&j.sig);
	} else if (!err[0]) {
		abort();
	}
	err[0] = 0;
	if (cko_try(load_launch, &j, err, sizeof err) == 0) {
		cko_env env = {0};
		cko_env_set(&env, "M", 100);
		cko_env_set(&env, "N", 7);
		cko_launch_defines_env(root, &env);
		cko_launch l;
		if (cko_launch_eval(root, "odd", 0, &env, &l, err, sizeof err) && !err[0])
			abort();
		cko_launch_eval(root, "odd", 1, &env, &l, err, sizeof err);
		cko_env_free(&env);
	} else if (!err[0]) {
		abort();
	}
	err[0] = 0;
	if (cko_try(load_case, &j, err, sizeof err) == 0) {
		for (int i = 0; i < fixed_sig.nparams; i++) {
			int64_t shape[CKO_MAXDIM];
			size_t count;
			if (fixed_sig.params[i].is_buffer &&
			    cko_param_shape(&fixed_sig.params[i], &j.env, shape, &count, err, sizeof err) && !err[0])
				abort();
		}
	} else if (!err[0]) {
		abort();
	}
	cko_env_free(&j.env);

	FILE *f = fopen(tmp_path, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
		err[0] = 0;
		if (cko_try(load_request, &j, err, sizeof err) == 0) {
			for (int s = 0; s < j.rq.nsets; s++)
				free(cko_request_out_path(&j.rq, s, "C"));
			cko_request_free(&j.rq);
		} else if (!err[0]) {
			abort();
		}
		unlink(tmp_path);
	}
	cJSON_Delete(root);
	return 0;
}
