/* nvrtc.c: NVRTC with the harness's own options; sources never choose
 * options or include paths (cko-compile also screens #include lines). */
#include "cko.h"

#include <nvrtc.h>
#include <stdlib.h>
#include <string.h>

const char *cko_cuda_include_dir(void)
{
	const char *e = getenv("CUDA_HOME");
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/include", e && *e ? e : "/usr/local/cuda");
	return buf;
}

#define NVRTC_CHECK(call)                                                                                          \
	do {                                                                                                       \
		nvrtcResult rc_ = (call);                                                                          \
		if (rc_ != NVRTC_SUCCESS)                                                                          \
			cko_die(CKO_ENV, "%s:%d: %s: %s", __FILE__, __LINE__, #call, nvrtcGetErrorString(rc_));    \
	} while (0)

void cko_nvrtc_compile(const char *src, const char *name, const char *arch, const char *const *defines, int ndef,
		       const char *entry, cko_nvrtc_result *r)
{
	memset(r, 0, sizeof *r);
	double t0 = cko_now();
	nvrtcProgram prog;
	NVRTC_CHECK(nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL));
	if (entry)
		NVRTC_CHECK(nvrtcAddNameExpression(prog, entry));
	int nopt = 0;
	const char **opt = xcalloc((size_t)ndef + 8, sizeof *opt);
	char *archopt = xasprintf("--gpu-architecture=%s", arch);
	char *inc = xasprintf("--include-path=%s", cko_cuda_include_dir());
	opt[nopt++] = archopt;
	opt[nopt++] = "--std=c++17";
	opt[nopt++] = "--ptxas-options=--verbose";
	opt[nopt++] = "--generate-line-info";
	opt[nopt++] = inc;
	char **dopt = xcalloc((size_t)ndef + 1, sizeof *dopt);
	for (int i = 0; i < ndef; i++)
		opt[nopt++] = dopt[i] = xasprintf("-D%s", defines[i]);
	nvrtcResult rc = nvrtcCompileProgram(prog, nopt, opt);
	size_t loglen = 0;
	NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &loglen));
	r->log = xmalloc(loglen + 1);
	NVRTC_CHECK(nvrtcGetProgramLog(prog, r->log));
	r->log[loglen] = 0;
	if (rc == NVRTC_SUCCESS) {
		NVRTC_CHECK(nvrtcGetCUBINSize(prog, &r->cubin_len));
		r->cubin = xmalloc(r->cubin_len);
		NVRTC_CHECK(nvrtcGetCUBIN(prog, r->cubin));
		if (entry) {
			const char *low = NULL;
			NVRTC_CHECK(nvrtcGetLoweredName(prog, entry, &low));
			r->lowered = xstrdup(low ? low : "");
		}
		r->ok = 1;
	} else if (rc == NVRTC_ERROR_INVALID_OPTION) {
		cko_die(CKO_BADINPUT, "NVRTC rejected the options (is '%s' a valid architecture?): %s", arch, r->log);
	} else if (rc != NVRTC_ERROR_COMPILATION && rc != NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID) {
		cko_die(CKO_ENV, "nvrtcCompileProgram: %s", nvrtcGetErrorString(rc));
	}
	nvrtcDestroyProgram(&prog);
	for (int i = 0; i < ndef; i++)
		free(dopt[i]);
	free(dopt);
	free(opt);
	free(archopt);
	free(inc);
	r->seconds = cko_now() - t0;
}

void cko_nvrtc_free(cko_nvrtc_result *r)
{
	free(r->log);
	free(r->cubin);
	free(r->lowered);
	memset(r, 0, sizeof *r);
}
