/* cko-compile: NVRTC, a kernel source (+ -D defines) to a CUBIN, with the
 * compile log and ptxas resource usage as JSON. */
#include "cko_gpu.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-compile [-a arch] [-D name=value]... [-l launch.json] [-e entry | -s signature.json]\n"
		"                   [--timeout seconds] [--memory MB] [--no-sandbox]\n"
		"                   [--after record.json] -o kernel.cubin [-j compile.json] kernel.cu\n"
		"  -a, --arch arch                 target architecture, e.g. sm_90 (default: the GPU's)\n"
		"  -D, --define name=value         a macro for the kernel\n"
		"  -l, --launch launch.json        launch.json whose defines are passed as -D\n"
		"  -e, --entry entry               the kernel that must exist, extern \"C\" __global__\n"
		"  -s, --signature signature.json  take the entry from signature.json\n"
		"  -t, --timeout seconds           wall-time limit of the compile (default 60)\n"
		"  -m, --memory MB                 memory limit of the compile (default 4096)\n"
		"      --no-sandbox                compile without Landlock (when the kernel has none)\n"
		"  -o, --output kernel.cubin       the CUBIN, written only on success\n"
		"  -j, --json compile.json         the JSON record (default: standard output)\n"
		"      --after record.json         compile only if the record (proposal.json) says ok; else write\n"
		"                                  a skipped record as compile.json and exit 0\n"
		"  -h, --help                      print this help and exit\n");
	exit(status);
}

/* Headers a kernel may include: the CUDA toolkit's device headers. */
static const char *const allowed_headers[] = {
	"cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_runtime.h", "stdint.h", "cstdint", "climits", "cfloat",
	"mma.h", "cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h",
	"cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cuda/pipeline", "cuda/barrier",
	"cuda/std/cstdint", "cuda/std/limits", "cuda/std/type_traits", "cuda/std/utility", "cuda/std/cmath",
	"cuda/ptx", "cuda/annotated_ptr", "cub/cub.cuh", "cuda/std/array", NULL,
};

/* Screens preprocessor includes, after joining continued lines. Returns 0,
 * or 1 with a compiler-style message naming the line. */
static int screen_includes(const char *src, const char *name, cko_buf *msg)
{
	int line = 1, bad = 0;
	for (const char *p = src; *p;) {
		int start_line = line;
		cko_buf l = {0};
		buf_add(&l, "", 0);
		while (*p && *p != '\n') {
			if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
				p += p[1] == '\n' ? 2 : 3;
				line++;
				continue;
			}
			buf_add(&l, p++, 1);
		}
		if (*p == '\n')
			p++, line++;
		const char *s = l.s;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '#') {
			s++;
			while (isspace((unsigned char)*s))
				s++;
			if (!strncmp(s, "include", 7) || !strncmp(s, "import", 6) || !strncmp(s, "embed", 5)) {
				const char *h = s + strcspn(s, "<\"");
				int ok = 0;
				if (*h) {
					char close = *h == '<' ? '>' : '"';
					const char *e = strchr(h + 1, close);
					if (e)
						for (const char *const *a = allowed_headers; *a && !ok; a++)
							ok = strlen(*a) == (size_t)(e - h - 1) && !strncmp(h + 1, *a, e - h - 1);
				}
				if (!ok) {
					buf_printf(msg, "%s(%d): error: this #include is not allowed; kernels may include only "
							"CUDA device headers such as <cuda_fp16.h>\n",
						   name, start_line);
					bad = 1;
				}
			}
		}
		buf_free(&l);
	}
	return bad;
}

/* The compiler says "Permission denied" for a file the sandbox hides and
 * nothing for one that is missing: one message for both, so the log does
 * not tell which host files exist. */
static void hide_denials(char *log)
{
	static const char denied[] = ": Permission denied";
	for (char *p = log; (p = strstr(p, "cannot open source file \""));) {
		char *q = strchr(p + 25, '"');
		if (!q)
			break;
		if (!strncmp(q + 1, denied, sizeof denied - 1))
			memmove(q + 1, q + sizeof denied, strlen(q + sizeof denied) + 1);
		p = q + 1;
	}
}

/* Reads a number after `key` in s (e.g. "Used 32 registers": key "Used "). */
static long num_before(const char *line, const char *word)
{
	const char *w = strstr(line, word);
	if (!w)
		return -1;
	const char *d = w;
	while (d > line && d[-1] == ' ')
		d--;
	while (d > line && isdigit((unsigned char)d[-1]))
		d--;
	return isdigit((unsigned char)*d) ? strtol(d, NULL, 10) : -1;
}

/* ptxas --verbose lines in the NVRTC log, per function. */
static cJSON *parse_ptxas(const char *log, const char *entry, cJSON *out)
{
	cJSON *fns = cJSON_CreateArray(), *cur = NULL;
	for (const char *p = log; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);
		const char *q;
		if ((q = strstr(line, "Compiling entry function '")) || (q = strstr(line, "Function properties for "))) {
			const char *nm = strchr(q, '\'') ? strchr(q, '\'') + 1 : q + strlen("Function properties for ");
			size_t len = strcspn(nm, "'\n ");
			char *name = strndup(nm, len);
			cur = NULL;
			for (cJSON *f = fns->child; f && !cur; f = f->next)
				if (!strcmp(cJSON_GetObjectItem(f, "name")->valuestring, name))
					cur = f;
			if (!cur) {
				cur = cJSON_CreateObject();
				cJSON_AddStringToObject(cur, "name", name);
				cJSON_AddItemToArray(fns, cur);
			}
			free(name);
		} else if (cur) {
			long v;
			if (strstr(line, "stack frame")) {
				if ((v = num_before(line, "bytes stack frame")) >= 0)
					cJSON_AddNumberToObject(cur, "stack_bytes", (double)v);
				if ((v = num_before(line, "bytes spill stores")) >= 0)
					cJSON_AddNumberToObject(cur, "spill_stores", (double)v);
				if ((v = num_before(line, "bytes spill loads")) >= 0)
					cJSON_AddNumberToObject(cur, "spill_loads", (double)v);
			}
			if ((v = num_before(line, "registers")) >= 0 && strstr(line, "Used"))
				cJSON_AddNumberToObject(cur, "registers", (double)v);
			if ((v = num_before(line, "barriers")) >= 0)
				cJSON_AddNumberToObject(cur, "barriers", (double)v);
			if ((v = num_before(line, "bytes smem")) >= 0)
				cJSON_AddNumberToObject(cur, "smem_static", (double)v);
		}
		free(line);
		p = nl ? nl + 1 : NULL;
	}
	/* The entry's figures at the top level, for jq and the prompts. */
	for (cJSON *f = fns->child; f; f = f->next) {
		if (entry && strcmp(cJSON_GetObjectItem(f, "name")->valuestring, entry))
			continue;
		static const char *keys[] = {"registers", "barriers", "smem_static", "stack_bytes", "spill_stores",
					     "spill_loads"};
		for (int i = 0; i < 6; i++) {
			cJSON *v = cJSON_GetObjectItem(f, keys[i]);
			if (v)
				cJSON_AddNumberToObject(out, keys[i], v->valuedouble);
		}
		break;
	}
	return fns;
}

static char *default_arch(void)
{
	char err[256];
	if (cko_cuda_load(err, sizeof err))
		cko_die(CKO_ENV, "%s: give the architecture with --arch (e.g. --arch sm_90)", err);
	cko_gpu g;
	cko_gpu_open(&g);
	return xasprintf("sm_%d%d", g.cc_major, g.cc_minor);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"arch", required_argument, 0, 'a'}, {"define", required_argument, 0, 'D'},
		{"launch", required_argument, 0, 'l'}, {"entry", required_argument, 0, 'e'},
		{"signature", required_argument, 0, 's'}, {"output", required_argument, 0, 'o'},
		{"json", required_argument, 0, 'j'}, {"timeout", required_argument, 0, 't'},
		{"memory", required_argument, 0, 'm'}, {"no-sandbox", no_argument, 0, 'N'},
		{"after", required_argument, 0, 'A'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	cko_compile_limits lim = {.wall_s = 60, .memory_mb = 4096};
	char *end;
	char *arch = NULL, *entry = NULL, *cubin = NULL, *json = "-", *after = NULL;
	char **defs = xcalloc((size_t)argc + 1, sizeof *defs);
	int ndefs = 0, c;
	char err[512];
	cJSON *launch = NULL;
	/* --after first: a skipped step reads none of its inputs. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "a:D:l:e:s:o:j:t:m:h", lo, NULL)) != -1)
		if (c == 'A')
			after = optarg;
		else if (c == 'j')
			json = optarg;
	if (after && optind == argc - 1 && cko_step_after(after, json))
		return 0;
	opterr = 1;
	optind = 0;
	while ((c = getopt_long(argc, argv, "a:D:l:e:s:o:j:t:m:h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': arch = optarg; break;
		case 'D': {
			char *eq = strchr(optarg, '=');
			char *name = eq ? strndup(optarg, (size_t)(eq - optarg)) : xstrdup(optarg);
			if (!cko_define_ok(name, eq ? eq + 1 : "1", err, sizeof err))
				cko_die(CKO_BADINPUT, "-D %s: %s", optarg, err);
			defs[ndefs++] = eq ? xstrdup(optarg) : xasprintf("%s=1", optarg);
			free(name);
			break;
		}
		case 'l': {
			launch = cko_json_load(optarg);
			cko_launch_validate(launch, optarg);
			const cJSON *d = cko_jget(launch, "defines");
			int n = cJSON_GetArraySize(d);
			defs = xrealloc(defs, ((size_t)argc + (size_t)n + 1) * sizeof *defs);
			for (const cJSON *x = d ? d->child : NULL; x; x = x->next) {
				char v[128];
				cko_define_text(x, v, sizeof v); /* validated above */
				defs[ndefs++] = xasprintf("%s=%s", x->string, v);
			}
			break;
		}
		case 'e': entry = optarg; break;
		case 's': {
			cko_signature sig;
			cko_signature_load(optarg, &sig);
			entry = xstrdup(sig.entry);
			cko_signature_free(&sig);
			break;
		}
		case 'o': cubin = optarg; break;
		case 'j': json = optarg; break;
		case 'A': break;
		case 't':
			lim.wall_s = strtod(optarg, &end);
			if (*end || !(lim.wall_s > 0) || lim.wall_s > 86400)
				cko_die(CKO_BADINPUT, "--timeout %s: expected seconds > 0", optarg);
			break;
		case 'm':
			lim.memory_mb = strtod(optarg, &end);
			if (*end || !(lim.memory_mb >= 64))
				cko_die(CKO_BADINPUT, "--memory %s: expected megabytes >= 64", optarg);
			break;
		case 'N': cko_sandbox_disable(); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1 || !cubin)
		usage(2);
	cko_out_check(cubin);
	cko_out_check(json);
	const char *srcpath = argv[optind];
	if (entry && !cko_is_ident(entry))
		cko_die(CKO_BADINPUT, "entry '%s' is not a C identifier", entry);
	if (arch) {
		size_t n = strlen(arch);
		if (n < 4 || n > 8 || strncmp(arch, "sm_", 3) || strspn(arch + 3, "0123456789") < 2 ||
		    strspn(arch + 3, "0123456789af") != n - 3)
			cko_die(CKO_BADINPUT, "--arch %s: expected sm_NN (e.g. sm_90)", arch);
	} else {
		arch = default_arch();
	}
	cko_sandbox_check();
	size_t srclen;
	char *src = cko_read_file(srcpath, 4u << 20, &srclen);
	if (memchr(src, 0, srclen))
		cko_die(CKO_BADINPUT, "%s: contains a NUL byte", srcpath);

	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "tool", "cko-compile");
	cJSON *status = cJSON_AddStringToObject(out, "status", "ok");
	cJSON_AddStringToObject(out, "arch", arch);
	cJSON_AddStringToObject(out, "source", srcpath);
	char sha[65];
	cko_sha256_hex(src, srclen, sha);
	cJSON_AddStringToObject(out, "source_sha256", sha);
	if (entry)
		cJSON_AddStringToObject(out, "entry", entry);
	cJSON_AddStringToObject(out, "sandbox", cko_sandbox_describe());
	cJSON *jd = cJSON_AddArrayToObject(out, "defines");
	for (int i = 0; i < ndefs; i++)
		cJSON_AddItemToArray(jd, cJSON_CreateString(defs[i]));

	cko_buf screen = {0};
	int ok;
	if (screen_includes(src, srcpath, &screen)) {
		cJSON_AddStringToObject(out, "log", screen.s);
		cJSON_AddNumberToObject(out, "time_s", 0);
		ok = 0;
	} else {
		cko_nvrtc_result r;
		cko_nvrtc_compile_confined(src, srcpath, arch, (const char *const *)defs, ndefs, entry, &lim, &r);
		ok = r.ok;
		if (r.reason)
			cJSON_AddStringToObject(out, "reason", r.reason);
		cko_buf log = {0};
		hide_denials(r.log);
		buf_puts(&log, r.log);
		if (ok && entry && strcmp(r.lowered, entry)) {
			buf_printf(&log, "%s: error: kernel '%s' must be declared extern \"C\" __global__\n", srcpath,
				   entry);
			ok = 0;
		}
		cJSON_AddStringToObject(out, "log", log.s ? log.s : "");
		cJSON_AddNumberToObject(out, "time_s", r.seconds);
		if (ok) {
			cko_write_file(cubin, r.cubin, r.cubin_len);
			cJSON_AddStringToObject(out, "cubin", cubin);
			cJSON_AddNumberToObject(out, "cubin_bytes", (double)r.cubin_len);
			cJSON_AddItemToObject(out, "functions", parse_ptxas(r.log, entry, out));
		}
		buf_free(&log);
		cko_nvrtc_free(&r);
	}
	if (!ok) {
		cJSON_SetValuestring(status, "error");
		struct stat st; /* never leave a stale binary beside a failed compile (but never unlink a device) */
		if (!lstat(cubin, &st) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			unlink(cubin);
		fprintf(stderr, "%s", cJSON_GetObjectItem(out, "log")->valuestring);
		cko_warn("%s: compile error", srcpath);
	}
	cko_json_write(json, out);
	cJSON_Delete(out);
	cJSON_Delete(launch);
	free(src);
	buf_free(&screen);
	return ok ? CKO_OK : CKO_VERDICT;
}
