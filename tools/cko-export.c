/* cko-export: a run's best verified candidate as code a project can build
 * and call: the kernel with its defines fixed, a runtime-API launcher whose
 * grid, block and shared memory are the launch rules compiled to C
 * (harness/export/export.c), a driver-API launcher for the cubin, a header, the
 * cubin and a README saying what was verified. */
#include "export.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-export [-o dir] [-n name] run\n"
		"  -o, --output dir   the folder to write (made; default: run/export)\n"
		"  -n, --name name    the prefix of the files and functions (default: the kernel's entry)\n"
		"  -h, --help         print this help and exit\n");
	exit(status);
}

typedef struct {
	const char *run, *dir, *name;
	char *best;           /* "iter-003/c1" */
	cJSON *summary, *launch, *cases;
	cko_signature sig;
	char *source;
	const char *stream;   /* the stream parameter's name */
	cko_buf verified;     /* Markdown list of what the run verified */
} ex;

static char *in_run(const ex *x, const char *rel) { return xasprintf("%s/%s", x->run, rel); }

static cJSON *load_req(const ex *x, const char *rel, const char *what)
{
	char *p = in_run(x, rel);
	if (!cko_exists(p))
		cko_die(CKO_BADINPUT, "%s: missing: %s", p, what);
	cJSON *j = cko_json_load(p);
	free(p);
	return j;
}

static const char *ctype(cko_dtype t)
{
	static const char *const n[CKO_NDTYPES] = {"uint16_t", "float",   "double",  "int8_t",   "int16_t", "int32_t",
						   "int64_t",  "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
	return n[t];
}

static int is_int_scalar(const cko_param *p) { return !p->is_buffer && !cko_dtype_is_float(p->dtype); }

/* The launcher's parameter list (signature order, then the stream). */
static void params(cko_buf *b, const ex *x, const char *stream_type, int comments)
{
	for (int i = 0; i < x->sig.nparams; i++) {
		const cko_param *p = &x->sig.params[i];
		if (p->is_buffer)
			buf_printf(b, "%s%s *%s", p->role == CKO_IN ? "const " : "", ctype(p->dtype), p->name);
		else
			buf_printf(b, "%s %s", ctype(p->dtype), p->name);
		if (comments) {
			buf_printf(b, " /* %s %s", p->is_buffer ? cko_role_name(p->role) : "scalar", cko_dtype_name(p->dtype));
			if (p->dtype == CKO_F16)
				buf_puts(b, " (IEEE half bits, as __half)");
			if (p->is_buffer) {
				buf_puts(b, ", shape [");
				for (int d = 0; d < p->ndim; d++)
					buf_printf(b, "%s%s", d ? ", " : "", p->shape[d]);
				buf_puts(b, "]");
			}
			buf_puts(b, " */");
		}
		buf_puts(b, comments ? ",\n\t" : ", ");
	}
	buf_printf(b, "%s %s", stream_type, x->stream);
}

/* The body both launchers share: the scalars, the rules, the guard. */
static void config_call(cko_buf *b, const ex *x, const char *unverified, const char *bad)
{
	int n = 0;
	buf_puts(b, "\tconst int64_t cko_s[] = {");
	for (int i = 0; i < x->sig.nparams; i++)
		if (is_int_scalar(&x->sig.params[i]))
			buf_printf(b, "%s(int64_t)%s", n++ ? ", " : "", x->sig.params[i].name);
	buf_printf(b, "%s};\n", n ? "" : "0");
	buf_printf(b, "\t%s_dims cko_d;\n\n\tswitch (%s_config(cko_s, &cko_d)) {\n\tcase 0:\n\t\tbreak;\n"
		      "\tcase 3: /* scalars the run did not verify: see %s_config.h */\n\t\treturn %s;\n"
		      "\tdefault: /* a rule's error, or beyond CUDA's limits */\n\t\treturn %s;\n\t}\n",
		   x->name, x->name, x->name, unverified, bad);
	buf_puts(b, "\tvoid *cko_args[] = {");
	for (int i = 0; i < x->sig.nparams; i++)
		buf_printf(b, "%s(void *)&%s", i ? ", " : "", x->sig.params[i].name);
	buf_printf(b, "%s};\n\n", x->sig.nparams ? "" : "0");
}

static void write_out(const ex *x, const char *file, const cko_buf *b)
{
	char *p = xasprintf("%s/%s", x->dir, file);
	cko_write_file(p, b->s, b->len);
	free(p);
}

static void write_config(ex *x)
{
	cko_buf b = {0}, body = {0};
	char err[512];
	cko_export_helpers(&body, x->name);
	if (cko_export_config(&body, &x->verified, x->name, x->launch, x->cases, &x->sig, err, sizeof err))
		cko_die(CKO_BADINPUT, "%s/best-launch.json: %s", x->run, err);
	buf_printf(&b,
		   "/* %s_config.h: the launch rules of %s (run %s, candidate %s) compiled to C\n"
		   " * by cko-export, with cko's integer semantics: 64-bit, and overflow,\n"
		   " * division by zero or an unbound name is an error, never undefined.\n"
		   " * s[] holds the integer scalars in signature order:",
		   x->name, x->name, x->run, x->best);
	for (int i = 0, k = 0; i < x->sig.nparams; i++)
		if (is_int_scalar(&x->sig.params[i]))
			buf_printf(&b, " s[%d] = %s", k++, x->sig.params[i].name);
	buf_printf(&b, ".\n *\n * The run verified the kernel for these scalars only (other scalars\n"
		       " * make %s_config return 3 and the launchers an error):\n", x->name);
	for (char *line = x->verified.s, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		buf_printf(&b, " * %.*s\n", (int)(nl - line), line);
		if (!nl)
			break;
	}
	buf_printf(&b, " */\n#ifndef %s_CONFIG_H\n#define %s_CONFIG_H\n\n", x->name, x->name);
	buf_add(&b, body.s, body.len);
	buf_printf(&b, "\n#endif\n");
	char *f = xasprintf("%s_config.h", x->name);
	write_out(x, f, &b);
	free(f);
	buf_free(&b);
	buf_free(&body);
}

static void write_header(const ex *x)
{
	cko_buf b = {0};
	buf_printf(&b,
		   "/* %s.h: the launchers of the kernel %s that cko verified (run %s,\n"
		   " * candidate %s); made by cko-export. Parameters in the kernel's order,\n"
		   " * with their dtypes, roles and shapes (expressions of the scalars). */\n"
		   "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n#include <cuda.h>\n#include <cuda_runtime_api.h>\n\n"
		   "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
		   x->name, x->sig.entry, x->run, x->best, x->name, x->name);
	buf_printf(&b, "/* Launches %s on the stream (%s.cu): cudaSuccess or the launch's\n"
		       " * error; cudaErrorInvalidValue for scalars the run did not verify and\n"
		       " * cudaErrorInvalidConfiguration when the rules fail (see %s_config.h). */\n"
		       "cudaError_t %s_launch(",
		   x->sig.entry, x->name, x->name, x->name);
	params(&b, x, "cudaStream_t", 1);
	buf_printf(&b, ");\n\n/* The driver API (%s_driver.c): loads %s.cubin's %s, and launches it\n"
		       " * as %s_launch does (CUDA_ERROR_INVALID_VALUE for scalars not verified). */\n"
		       "CUresult %s_load(const char *cubin_path, CUmodule *mod, CUfunction *fn);\nCUresult %s_launch_driver(CUfunction fn, ",
		   x->name, x->name, x->sig.entry, x->name, x->name, x->name);
	params(&b, x, "CUstream", 0);
	buf_puts(&b, ");\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
	char *f = xasprintf("%s.h", x->name);
	write_out(x, f, &b);
	free(f);
	buf_free(&b);
}

static void write_cu(const ex *x)
{
	cko_buf b = {0};
	buf_printf(&b,
		   "/* %s.cu: the kernel %s as cko verified it (run %s, candidate %s), its\n"
		   " * defines fixed, and its runtime-API launcher. Made by cko-export;\n"
		   " * build: nvcc -arch=sm_XX -c %s.cu (the GPU of the run: see README.md). */\n\n",
		   x->name, x->sig.entry, x->run, x->best, x->name);
	const cJSON *defs = cko_jget(x->launch, "defines");
	for (const cJSON *d = defs ? defs->child : NULL; d; d = d->next) {
		char v[128];
		if (cko_define_text(d, v, sizeof v))
			buf_printf(&b, "#define %s %s\n", d->string, v);
	}
	buf_puts(&b, "\n/* ---- the kernel (best.cu) ---- */\n");
	buf_puts(&b, x->source);
	buf_puts(&b, "\n/* ---- the launcher ---- */\n");
	for (const cJSON *d = defs ? defs->child : NULL; d; d = d->next)
		buf_printf(&b, "#undef %s\n", d->string);
	buf_printf(&b, "#include \"%s.h\"\n#include \"%s_config.h\"\n\nextern \"C\" cudaError_t %s_launch(", x->name,
		   x->name, x->name);
	params(&b, x, "cudaStream_t", 0);
	buf_puts(&b, ")\n{\n");
	config_call(&b, x, "cudaErrorInvalidValue", "cudaErrorInvalidConfiguration");
	buf_printf(&b,
		   "\t/* more than 48 KiB of dynamic shared memory must be opted into */\n"
		   "\tif (cko_d.smem > 48 * 1024) {\n"
		   "\t\tcudaError_t cko_r = cudaFuncSetAttribute((const void *)%s, cudaFuncAttributeMaxDynamicSharedMemorySize,\n"
		   "\t\t\t\t\t\t\t(int)cko_d.smem);\n\t\tif (cko_r != cudaSuccess)\n\t\t\treturn cko_r;\n\t}\n"
		   "\treturn cudaLaunchKernel((const void *)%s,\n"
		   "\t\t\t\tdim3((unsigned)cko_d.grid[0], (unsigned)cko_d.grid[1], (unsigned)cko_d.grid[2]),\n"
		   "\t\t\t\tdim3((unsigned)cko_d.block[0], (unsigned)cko_d.block[1], (unsigned)cko_d.block[2]),\n"
		   "\t\t\t\tcko_args, (size_t)cko_d.smem, %s);\n}\n",
		   x->sig.entry, x->sig.entry, x->stream);
	char *f = xasprintf("%s.cu", x->name);
	write_out(x, f, &b);
	free(f);
	buf_free(&b);
}

static void write_driver(const ex *x)
{
	cko_buf b = {0};
	buf_printf(&b,
		   "/* %s_driver.c: the driver-API launcher of %s.cubin (for projects that load\n"
		   " * modules themselves). Made by cko-export; build: cc -c %s_driver.c\n"
		   " * -I$CUDA/include, link with -lcuda. */\n"
		   "#include \"%s.h\"\n#include \"%s_config.h\"\n\n"
		   "CUresult %s_load(const char *cubin_path, CUmodule *mod, CUfunction *fn)\n{\n"
		   "\tCUresult r = cuModuleLoad(mod, cubin_path);\n\n"
		   "\tif (r == CUDA_SUCCESS && (r = cuModuleGetFunction(fn, *mod, \"%s\")) != CUDA_SUCCESS)\n"
		   "\t\tcuModuleUnload(*mod);\n\treturn r;\n}\n\n"
		   "CUresult %s_launch_driver(CUfunction fn, ",
		   x->name, x->name, x->name, x->name, x->name, x->name, x->sig.entry, x->name);
	params(&b, x, "CUstream", 0);
	buf_puts(&b, ")\n{\n");
	config_call(&b, x, "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_VALUE");
	buf_printf(&b,
		   "\tif (cko_d.smem > 48 * 1024) {\n"
		   "\t\tCUresult cko_r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)cko_d.smem);\n"
		   "\t\tif (cko_r != CUDA_SUCCESS)\n\t\t\treturn cko_r;\n\t}\n"
		   "\treturn cuLaunchKernel(fn, (unsigned)cko_d.grid[0], (unsigned)cko_d.grid[1], (unsigned)cko_d.grid[2],\n"
		   "\t\t\t      (unsigned)cko_d.block[0], (unsigned)cko_d.block[1], (unsigned)cko_d.block[2],\n"
		   "\t\t\t      (unsigned)cko_d.smem, %s, cko_args, NULL);\n}\n",
		   x->stream);
	char *f = xasprintf("%s_driver.c", x->name);
	write_out(x, f, &b);
	free(f);
	buf_free(&b);
}

/* The example: the first performance case's scalars, zeroed buffers. */
static void example(cko_buf *b, const ex *x)
{
	const cJSON *c = NULL;
	for (const cJSON *k = cko_jget(x->cases, "cases")->child; k; k = k->next)
		if (!c || (!strcmp(cko_jstr_opt(k, "kind", ""), "performance") &&
			   strcmp(cko_jstr_opt(c, "kind", ""), "performance")))
			c = k;
	cko_env env = {0};
	cko_case_env(&x->sig, cko_jget(c, "scalars"), "cases.json", "scalars", &env);
	buf_printf(b, "/* example.cu: nvcc -arch=sm_XX -o example example.cu %s.o */\n"
		      "#include <stdio.h>\n#include <cuda_runtime.h>\n#include \"%s.h\"\n\nint main(void)\n{\n",
		   x->name, x->name);
	buf_printf(b, "\t/* case %s */\n", cko_jstr_opt(c, "name", "?"));
	for (int i = 0; i < x->sig.nparams; i++) {
		const cko_param *p = &x->sig.params[i];
		int64_t shape[CKO_MAXDIM];
		size_t count = 0;
		char err[256];
		int64_t v;
		if (!p->is_buffer && cko_env_get(&env, p->name, &v))
			buf_printf(b, "\t%s %s = %lld;\n", ctype(p->dtype), p->name, (long long)v);
		else if (!p->is_buffer)
			buf_printf(b, "\t%s %s = %.17g;\n", ctype(p->dtype), p->name,
				   cko_jnum_opt(cko_jget(c, "scalars"), p->name, 0));
		else if (!cko_param_shape(p, &env, shape, &count, err, sizeof err))
			buf_printf(b, "\t%s *%s;\n\tcudaMalloc((void **)&%s, %zu * sizeof *%s);\n\tcudaMemset(%s, 0, %zu * sizeof *%s);\n",
				   ctype(p->dtype), p->name, p->name, count, p->name, p->name, count, p->name);
	}
	buf_printf(b, "\tcudaError_t r = %s_launch(", x->name);
	for (int i = 0; i < x->sig.nparams; i++)
		buf_printf(b, "%s, ", x->sig.params[i].name);
	buf_puts(b, "0);\n\tif (r == cudaSuccess)\n\t\tr = cudaDeviceSynchronize();\n");
	buf_printf(b, "\tprintf(\"%s_launch: %%s\\n\", cudaGetErrorString(r));\n", x->name);
	buf_puts(b, "\treturn r != cudaSuccess;\n}\n");
	cko_env_free(&env);
}

static void tolerances(cko_buf *b, const ex *x)
{
	int any = 0;
	for (int i = 0; i < x->sig.nparams; i++) {
		const cko_param *p = &x->sig.params[i];
		if (!p->is_buffer || p->role == CKO_IN)
			continue;
		const cJSON *t = cko_jget(cko_jget(x->cases, "tolerance"), p->name);
		cko_tol d;
		cko_tol_default(p->dtype, &d);
		buf_printf(b, "- %s (%s): rtol %g, atol %g%s\n", p->name, cko_dtype_name(p->dtype),
			   cko_jnum_opt(t, "rtol", d.rtol), cko_jnum_opt(t, "atol", d.atol), t ? "" : " (the dtype's default)");
		any = 1;
	}
	for (const cJSON *c = cko_jget(x->cases, "cases")->child; c; c = c->next)
		if (cko_jget(c, "tolerance")) {
			char *t = cJSON_PrintUnformatted(cko_jget(c, "tolerance"));
			buf_printf(b, "- case %s has its own: `%s`\n", cko_jstr_opt(c, "name", "?"), t);
			free(t);
		}
	if (!any)
		buf_puts(b, "- (no outputs)\n");
}

static void write_readme(const ex *x, const char *arch)
{
	cko_buf b = {0};
	char date[64] = "?";
	struct stat st;
	char *sp = in_run(x, "summary.json");
	if (!stat(sp, &st))
		strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&st.st_mtime));
	free(sp);
	const cJSON *s = x->summary;
	buf_printf(&b, "# %s: the kernel %s, exported by cko-export\n\n", x->name, x->sig.entry);
	buf_printf(&b, "From run `%s`, workload %s, candidate %s, verified on %s (%s) on %s.\n\n", x->run,
		   cko_jstr_opt(s, "workload", "?"), x->best, cko_jstr_opt(s, "gpu", "?"), arch, date);
	buf_printf(&b, "## Files\n\n- `%s.cu`: the kernel with its defines fixed, and `%s_launch` (runtime API)\n"
		       "- `%s.h`: the prototypes, with the parameters' dtypes and shapes\n"
		       "- `%s_config.h`: the launch rules compiled to C (included by both launchers)\n"
		       "- `%s_driver.c`: `%s_load` and `%s_launch_driver` (driver API) for `%s.cubin`\n"
		       "- `%s.cubin`: the module cko measured, for %s\n"
		       "- `example.cu`: the example below\n\n",
		   x->name, x->name, x->name, x->name, x->name, x->name, x->name, x->name, x->name, arch);
	buf_puts(&b, "## What was verified\n\nThe outputs matched the reference's within these tolerances "
		     "(`|actual - expected| <= atol + rtol * |expected|`):\n\n");
	tolerances(&b, x);
	buf_printf(&b, "\nfor these scalars, the only ones the launchers accept (others return "
		       "`cudaErrorInvalidValue`):\n\n%s\n", x->verified.s ? x->verified.s : "");
	buf_printf(&b, "## Speed (median latency, from summary.json)\n\ngeomean %.4g ms", cko_jnum_opt(s, "best_geomean_ms", 0));
	if (cko_jget(s, "speedup_vs_reference"))
		buf_printf(&b, "; %.3gx the reference", cko_jnum_opt(s, "speedup_vs_reference", 0));
	if (cko_jget(s, "speedup_vs_initial"))
		buf_printf(&b, ", %.3gx the initial kernel", cko_jnum_opt(s, "speedup_vs_initial", 0));
	buf_puts(&b, ".\n\n| case | ms | reference ms | speedup |\n| --- | --- | --- | --- |\n");
	for (const cJSON *c = cko_jget(s, "cases") ? cko_jget(s, "cases")->child : NULL; c; c = c->next)
		buf_printf(&b, "| %s | %.4g | %.4g | %.3g |\n", cko_jstr_opt(c, "case", "?"), cko_jnum_opt(c, "best_ms", 0),
			   cko_jnum_opt(c, "reference_ms", 0), cko_jnum_opt(c, "speedup_vs_reference", 0));
	buf_printf(&b, "\n## Build\n\n    nvcc -arch=%s -O3 -c %s.cu\n\nand link `%s.o` (nvcc links the CUDA runtime). "
		       "The driver-API variant: `cc -c %s_driver.c -I$CUDA/include`, link `-lcuda`, load `%s.cubin` "
		       "with `%s_load`. The kernel was measured as NVRTC compiled it (`--std=c++17`); nvcc's build "
		       "of the same source is what the GPU test tests/gpu/export.sh compares.\n\n## Example\n\n",
		   arch, x->name, x->name, x->name, x->name, x->name);
	cko_buf prog = {0};
	example(&prog, x);
	buf_printf(&b, "```c\n%s```\n", prog.s);
	write_out(x, "README.md", &b);
	write_out(x, "example.cu", &prog);
	buf_free(&prog);
	buf_free(&b);
}

/* A request's grid or block dimension k (1 when absent). */
static int64_t dim(const cJSON *rq, const char *key, int k)
{
	const cJSON *v = cJSON_GetArrayItem(cko_jget(rq, key), k);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 1;
}

/* The replay requests' launches are what best-launch.json gives their
 * cases: else the export would not be of the kernel measured. */
static void check_replay(const ex *x)
{
	char *rd = in_run(x, "replay");
	int n = 0;
	char **names = cko_is_dir(rd) ? cko_list_dir(rd, ".json", &n) : NULL;
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", rd, names[i]);
		cJSON *rq = cko_json_load(p);
		const char *cn = cko_jstr(rq, "case", p, "case");
		char *cj = xasprintf("cases/%s/case.json", cn), *cp = in_run(x, cj);
		if (cko_exists(cp)) {
			cJSON *c = cko_json_load(cp);
			cko_env env = {0};
			cko_case_env(&x->sig, cko_jget(c, "scalars"), cp, "scalars", &env);
			cko_launch_defines_env(x->launch, &env);
			cko_launch l;
			char err[512];
			int bad = cko_launch_eval(x->launch, cn, cJSON_IsTrue(cko_jget(c, "hidden")), &env, &l, err, sizeof err);
			for (int k = 0; k < 3 && !bad; k++)
				bad = l.grid[k] != dim(rq, "grid", k) || l.block[k] != dim(rq, "block", k);
			if (!bad && l.smem != cko_jint_opt(rq, "smem", 0, p, "smem"))
				bad = 1;
			if (bad)
				cko_die(CKO_BADINPUT, "%s: its launch is not what %s/best-launch.json gives case %s: "
						      "run make -f run.mk again to remake best-launch.json and replay/",
					p, x->run, cn);
			cko_env_free(&env);
			cJSON_Delete(c);
		}
		free(cj), free(cp), free(p);
		cJSON_Delete(rq);
	}
	cko_free_list(names, n);
	free(rd);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'},
		{"name", required_argument, 0, 'n'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	ex x = {0};
	int c;
	while ((c = getopt_long(argc, argv, "o:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': x.dir = optarg; break;
		case 'n': x.name = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	x.run = argv[optind];
	if (!cko_is_dir(x.run))
		cko_die(CKO_BADINPUT, "%s: not a folder: give a run folder (results/run-NNN)", x.run);
	char *abs_run = realpath(x.run, NULL);
	if (abs_run)
		x.run = abs_run;
	x.summary = load_req(&x, "summary.json", "run make -f run.mk in the run folder first");
	const cJSON *best = cko_jget(x.summary, "best");
	if (!cJSON_IsString(best))
		cko_die(CKO_VERDICT, "%s/summary.json: no candidate was verified: nothing to export", x.run);
	x.best = xstrdup(best->valuestring);
	x.launch = load_req(&x, "best-launch.json", "run make -f run.mk again to remake it");
	char *lp = in_run(&x, "best-launch.json");
	cko_launch_validate(x.launch, lp);
	free(lp);
	x.cases = load_req(&x, "workload/cases.json", "not a run folder made by cko-init");
	char *sp = in_run(&x, "workload/signature.json");
	cko_signature_load(sp, &x.sig);
	free(sp);
	if (!x.name)
		x.name = x.sig.entry;
	if (!cko_is_ident(x.name))
		cko_die(CKO_BADINPUT, "--name %s: not a C identifier", x.name);
	x.stream = "stream";
	for (int i = 0; i < x.sig.nparams; i++)
		if (!strcmp(x.sig.params[i].name, "stream"))
			x.stream = "cko_stream";
	char *bp = in_run(&x, "best.cu");
	x.source = cko_read_file(bp, 16u << 20, NULL);
	free(bp);
	char *cubin = xasprintf("%s/%s/kernel.cubin", x.run, x.best);
	if (!cko_exists(cubin))
		cko_die(CKO_BADINPUT, "%s: missing: the best candidate's cubin (summary.json names %s)", cubin, x.best);
	check_replay(&x);
	cJSON *props = NULL;
	char *pp = in_run(&x, "props.json");
	if (cko_exists(pp))
		props = cko_json_load(pp);
	free(pp);
	const char *arch = cko_jstr_opt(props, "arch", "sm_90");

	char *dflt = in_run(&x, "export");
	if (!x.dir)
		x.dir = dflt;
	cko_out_check(x.dir);
	if (!cko_is_dir(x.dir) && mkdir(x.dir, 0777))
		cko_die(CKO_ENV, "%s: cannot make the folder", x.dir);
	write_config(&x);
	write_header(&x);
	write_cu(&x);
	write_driver(&x);
	char *cb = xasprintf("%s/%s.cubin", x.dir, x.name);
	cko_copy_file(cubin, cb);
	write_readme(&x, arch);
	printf("%s: %s.cu %s.h %s_config.h %s_driver.c %s.cubin README.md example.cu\n", x.dir, x.name, x.name,
	       x.name, x.name, x.name);
	free(abs_run), free(cb), free(cubin), free(dflt), free(x.source), free(x.best);
	buf_free(&x.verified);
	cJSON_Delete(props);
	cJSON_Delete(x.summary), cJSON_Delete(x.launch), cJSON_Delete(x.cases);
	cko_signature_free(&x.sig);
	return 0;
}
