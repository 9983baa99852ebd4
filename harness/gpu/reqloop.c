/* reqloop.c: the request loop of cko-run and cko-bench. Both take the
 * same shared options, skip with --after, check their requests before the
 * GPU is touched, work under a watchdog in the sandbox, give every request
 * one case of their result (the later ones skipped once the context is
 * lost) and exit 0, or 1 for any verdict. The tool says how one request is
 * handled. */
#include "cko_gpu.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cko_reqloop_option(cko_reqloop *L, int c, const char *arg)
{
	char *end;
	switch (c) {
	case 'o': L->out = arg; break;
	case 't':
		L->timeout = strtod(arg, &end);
		if (*end || !(L->timeout > 0))
			cko_die(CKO_BADINPUT, "--timeout %s: expected seconds > 0", arg);
		break;
	case 'A': L->after = arg; break;
	case 'N': cko_sandbox_disable(); break;
	case 'h': L->usage(0); break;
	default: L->usage(2);
	}
}

int cko_reqloop_start(cko_reqloop *L, int n, char **requests, double launches)
{
	if (cko_step_after(L->after, L->out))
		return 1;
	if (n < 1)
		L->usage(2);
	L->n = n;
	L->requests = requests;
	cko_out_check(L->out);
	cko_requests_check(n, requests);
	cko_sandbox_check();
	cko_watchdog(L->timeout * launches * n + 60, cko_watchdog_result, (void *)L->out);
	L->t0 = cko_now();
	double tp = L->t0;
	cko_gpu_open(&L->gpu);
	cko_sandbox_gpu_worker(n, requests, L->out);
	cko_phase_add(CKO_PH_INIT, &tp);
	L->result = cJSON_CreateObject();
	cJSON_AddStringToObject(L->result, "tool", L->tool);
	cJSON_AddStringToObject(L->result, "status", "ok");
	cJSON_AddStringToObject(L->result, "device", L->gpu.name);
	return 0;
}

int cko_reqloop_run(cko_reqloop *L, const char *doing, int (*one)(void *, const char *, cJSON *), void *arg)
{
	cJSON *cases = cJSON_AddArrayToObject(L->result, "cases");
	const char *overall = "ok";
	int lost = 0;
	for (int i = 0; i < L->n; i++) {
		const char *path = L->requests[i];
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, c);
		cJSON_AddStringToObject(c, "request", path);
		cJSON_AddStringToObject(c, "status", "ok");
		if (lost) {
			if (L->skipped_named) {
				cko_request rq;
				cko_request_load(path, &rq);
				cJSON_AddStringToObject(c, "case", rq.case_name);
				cko_request_free(&rq);
			}
			cJSON_ReplaceItemInObject(c, "status", cJSON_CreateString("skipped"));
			cJSON_AddStringToObject(c, "message", "not run: an earlier case faulted or timed out");
			continue;
		}
		cko_info("%s %s", doing, path);
		lost = one(arg, path, c);
		const char *st = cJSON_GetObjectItem(c, "status")->valuestring;
		if (strcmp(st, "ok")) {
			if (!strcmp(overall, "ok"))
				overall = st;
			const cJSON *m = cJSON_GetObjectItem(c, "message");
			cko_warn("%s: %s%s%s", path, st, m ? ": " : "", m ? m->valuestring : "");
		}
	}
	cJSON_ReplaceItemInObject(L->result, "status", cJSON_CreateString(overall));
	cJSON_AddNumberToObject(L->result, "seconds", cko_now() - L->t0);
	cJSON_AddItemToObject(L->result, "phase_seconds", cko_phase_json());
	cko_json_write(L->out, L->result);
	fflush(NULL);
	if (lost)
		_exit(CKO_VERDICT); /* the context is gone or still busy: no orderly teardown */
	int rc = strcmp(overall, "ok") ? CKO_VERDICT : CKO_OK;
	cJSON_Delete(L->result);
	return rc;
}
