/* nvrtc.c: NVRTC with the harness's own options; sources never choose
 * options or include paths (cko-compile also screens #include lines). */
#include "cko_gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nvrtc.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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
	/* CUDA 13 keeps CCCL (cub, cuda/std, cuda/ptx) in include/cccl. */
	char *cccl = xasprintf("--include-path=%s/cccl", cko_cuda_include_dir());
	if (cko_is_dir(cccl + strlen("--include-path=")))
		opt[nopt++] = cccl;
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
	free(cccl);
	r->seconds = cko_now() - t0;
}

void cko_nvrtc_free(cko_nvrtc_result *r)
{
	free(r->log);
	free(r->cubin);
	free(r->lowered);
	memset(r, 0, sizeof *r);
}

/* ---- the confined compile: a child that reads only the toolkit ---- */

struct reply {
	int ok;
	size_t log_len, cubin_len, lowered_len;
	double seconds;
};

static int write_full(int fd, const void *p, size_t n)
{
	for (const char *c = p; n;) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static _Noreturn void compile_child(int fd, const char *src, const char *name, const char *arch,
				    const char *const *defines, int ndef, const char *entry,
				    const cko_compile_limits *lim)
{
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_CORE, &core);
	if (lim->wall_s > 0) {
		/* CPU time as a second bound, for a compiler that spins while
		 * the parent is stopped; the wall clock is the parent's. */
		rlim_t cpu = (rlim_t)lim->wall_s + 2;
		struct rlimit rl = {cpu, cpu + 1};
		setrlimit(RLIMIT_CPU, &rl);
	}
#if !defined(__SANITIZE_ADDRESS__)
	if (lim->memory_mb > 0) {
		rlim_t as = (rlim_t)(lim->memory_mb * 1048576.0);
		struct rlimit rl = {as, as};
		setrlimit(RLIMIT_AS, &rl);
	}
#endif
	cko_sandbox_scrub_environ();
	cko_sandbox sb = {0};
	cko_sandbox_read(&sb, cko_cuda_root());
	/* NVRTC dlopens its builtins by soname at the first compile, through
	 * ld.so.cache and the system's libstdc++: load them now, by path. */
	char *builtins = xasprintf("%s/lib64/libnvrtc-builtins.so", cko_cuda_root());
	if (!dlopen(builtins, RTLD_NOW | RTLD_GLOBAL))
		cko_warn("%s: %s", builtins, dlerror());
	free(builtins);
	cko_sandbox_enter_or_die(&sb);
	cko_nvrtc_result r;
	cko_nvrtc_compile(src, name, arch, defines, ndef, entry, &r);
	struct reply h = {r.ok, strlen(r.log), r.cubin_len, r.lowered ? strlen(r.lowered) : 0, r.seconds};
	if (write_full(fd, &h, sizeof h) || write_full(fd, r.log, h.log_len) ||
	    (h.cubin_len && write_full(fd, r.cubin, h.cubin_len)) ||
	    (h.lowered_len && write_full(fd, r.lowered, h.lowered_len)))
		_exit(CKO_ENV);
	_exit(0);
}

/* Resident memory of a process in MiB, from /proc (0 when unknown). */
static double rss_mb(pid_t pid)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	long size = 0, res = 0;
	int n = fgets(buf, sizeof buf, f) ? sscanf(buf, "%ld %ld", &size, &res) : 0;
	fclose(f);
	return n == 2 ? (double)res * (double)sysconf(_SC_PAGESIZE) / 1048576.0 : 0;
}

void cko_nvrtc_compile_confined(const char *src, const char *name, const char *arch, const char *const *defines,
				int ndef, const char *entry, const cko_compile_limits *lim, cko_nvrtc_result *r)
{
	memset(r, 0, sizeof *r);
	double t0 = cko_now();
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		cko_die(CKO_ENV, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		cko_die(CKO_ENV, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		compile_child(p[1], src, name, arch, defines, ndef, entry, lim);
	}
	close(p[1]);
	cko_buf b = {0};
	const char *stopped = NULL;
	double deadline = lim->wall_s > 0 ? t0 + lim->wall_s : 0;
	for (;;) {
		struct pollfd pf = {p[0], POLLIN, 0};
		int n = poll(&pf, 1, 100);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			char chunk[65536];
			ssize_t k = read(p[0], chunk, sizeof chunk);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			buf_add(&b, chunk, (size_t)k);
			continue;
		}
		if (deadline && cko_now() > deadline)
			stopped = "compile_timeout";
		else if (lim->memory_mb > 0 && rss_mb(pid) > lim->memory_mb)
			stopped = "compile_memory";
		if (stopped) {
			kill(pid, SIGKILL);
			break;
		}
	}
	close(p[0]);
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	r->seconds = cko_now() - t0;
	struct reply h;
	if (!stopped && WIFEXITED(st) && WEXITSTATUS(st) == 0 && b.len >= sizeof h) {
		memcpy(&h, b.s, sizeof h);
		if (b.len == sizeof h + h.log_len + h.cubin_len + h.lowered_len) {
			const char *d = b.s + sizeof h;
			r->ok = h.ok;
			r->log = strndup(d, h.log_len);
			if (h.cubin_len) {
				r->cubin = xmalloc(h.cubin_len);
				memcpy(r->cubin, d + h.log_len, h.cubin_len);
				r->cubin_len = h.cubin_len;
			}
			r->lowered = h.lowered_len || h.ok ? strndup(d + h.log_len + h.cubin_len, h.lowered_len) : NULL;
			/* Out of address space, the front end says so and stops. */
			if (!r->ok && lim->memory_mb > 0 && strstr(r->log, "error: out of memory"))
				r->reason = "compile_memory";
			buf_free(&b);
			return;
		}
	}
	buf_free(&b);
	if (!stopped && WIFEXITED(st) && (WEXITSTATUS(st) == CKO_BADINPUT || WEXITSTATUS(st) == CKO_ENV))
		exit(WEXITSTATUS(st)); /* the child said why on stderr */
	if (!stopped) {
		int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		double peak = (double)ru.ru_maxrss / 1024.0;
		if (sig == SIGXCPU)
			stopped = "compile_timeout";
		else if (lim->memory_mb > 0 && (peak > 0.5 * lim->memory_mb || sig == SIGABRT || sig == SIGKILL ||
						 sig == SIGSEGV))
			stopped = "compile_memory"; /* out of address space: new throws, the compiler aborts */
		else
			stopped = "compile_crash";
	}
	if (!strcmp(stopped, "compile_timeout"))
		r->log = xasprintf("%s: error: the compile did not finish in %.0f s and was stopped (compile_timeout)\n",
				   name, lim->wall_s);
	else if (!strcmp(stopped, "compile_memory"))
		r->log = xasprintf("%s: error: the compile used more than %.0f MB of memory and was stopped "
				   "(compile_memory)\n",
				   name, lim->memory_mb);
	else
		r->log = xasprintf("%s: error: the compiler crashed (status %d)\n", name,
				   WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st));
	r->reason = stopped;
}
