/* cko-request: binds a compiled kernel, the cases and a launch.json into
 * one launch request per case (docs/formats.md "request.json"). */
#include "cko.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-request -s signature.json -l launch.json -b kernel.cubin -c cases-dir\n"
		"                   [-C case]... [--reference] [--outputs dir] [--props props.json]\n"
		"                   [--after record.json] -o requests-dir\n"
		"  -s, --signature signature.json  the kernel's signature\n"
		"  -l, --launch launch.json        the launch rules (see docs/formats.md)\n"
		"  -b, --cubin kernel.cubin        the compiled kernel the requests launch\n"
		"  -c, --cases cases-dir           the case folder written by cko-gen\n"
		"  -C, --case case                 only this case (repeatable)\n"
		"      --reference                 requests for the reference: outputs go to cases-dir/CASE/expected\n"
		"      --outputs dir               where candidate outputs go (default: out/ beside requests-dir)\n"
		"      --props props.json          the GPU's properties: dynamic shared memory checked against its limit\n"
		"  -o, --output requests-dir       the folder of the requests and their index.json\n"
		"      --after record.json         only if the record (compile.json) says ok; else write a\n"
		"                                  skipped record as requests-dir/index.json and exit 0\n"
		"  -h, --help                      print this help and exit\n");
	exit(status);
}

typedef struct {
	const char *sig_path, *launch_path, *cubin, *cases, *outdir, *outputs, *props;
	int reference;
	int64_t max_smem; /* from props.json; 0 when unknown */
	char **only;
	int nonly;
} opts;

static int wanted(const opts *o, const char *name)
{
	if (!o->nonly)
		return 1;
	for (int i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], name))
			return 1;
	return 0;
}

/* Builds the request for one case; returns NULL with err (and *limit, the
 * CUDA limit broken, or NULL) for a launch rule that does not evaluate or
 * exceeds the GPU's limits (a verdict about the candidate). */
static cJSON *make_request(const opts *o, const cko_signature *sig, const cJSON *launch, const char *case_dir,
			   char *err, size_t errlen, const char **limit)
{
	char *cpath = xasprintf("%s/case.json", case_dir);
	cJSON *cs = cko_json_load(cpath);
	const char *name = cko_jstr(cs, "name", cpath, "");
	int hidden = cJSON_IsTrue(cko_jget(cs, "hidden"));
	int64_t nsets = cko_jint_opt(cs, "sets", 1, cpath, "");
	if (nsets < 1 || nsets > 16)
		cko_jfail(cpath, "sets", "expected 1 to 16");
	cko_env env = {0};
	cko_case_env(sig, cko_jget(cs, "scalars"), cpath, "scalars", &env);
	cko_launch_defines_env(launch, &env);
	cko_launch l;
	int bad = cko_launch_eval(launch, name, hidden, &env, &l, err, errlen);
	if (!bad && o->max_smem > 0 && l.smem > o->max_smem) {
		l.limit = "smem_per_block_optin";
		snprintf(err, errlen,
			 "smem is %lld bytes for case %s; this GPU allows at most %lld bytes of shared memory per block "
			 "(smem_per_block_optin in props.json): use less",
			 (long long)l.smem, name, (long long)o->max_smem);
		bad = 1;
	}
	if (bad) {
		*limit = l.limit;
		cko_env_free(&env);
		cJSON_Delete(cs);
		free(cpath);
		return NULL;
	}
	cJSON *rq = cJSON_CreateObject();
	cJSON_AddStringToObject(rq, "case", name);
	cJSON_AddBoolToObject(rq, "hidden", hidden);
	char *rel = cko_path_relative(o->outdir, o->cubin);
	cJSON_AddStringToObject(rq, "cubin", rel);
	free(rel);
	cJSON_AddStringToObject(rq, "entry", sig->entry);
	double g[3] = {(double)l.grid[0], (double)l.grid[1], (double)l.grid[2]};
	double b[3] = {(double)l.block[0], (double)l.block[1], (double)l.block[2]};
	cJSON_AddItemToObject(rq, "grid", cJSON_CreateDoubleArray(g, 3));
	cJSON_AddItemToObject(rq, "block", cJSON_CreateDoubleArray(b, 3));
	cJSON_AddNumberToObject(rq, "smem", (double)l.smem);
	const cJSON *tol = cko_jget(cs, "tolerance");
	cJSON *params = cJSON_AddArrayToObject(rq, "params");
	const cJSON *scalars = cko_jget(cs, "scalars");
	for (int i = 0; i < sig->nparams; i++) {
		const cko_param *p = &sig->params[i];
		cJSON *q = cJSON_CreateObject();
		cJSON_AddStringToObject(q, "name", p->name);
		cJSON_AddStringToObject(q, "kind", p->is_buffer ? "buffer" : "scalar");
		cJSON_AddStringToObject(q, "dtype", cko_dtype_name(p->dtype));
		if (p->is_buffer) {
			int64_t shape[CKO_MAXDIM];
			size_t count;
			char e[256];
			/* Sizes come from the workload, not the candidate: bad ones are bad input. */
			if (cko_param_shape(p, &env, shape, &count, e, sizeof e))
				cko_jfail(cpath, "scalars", "%s", e);
			cJSON_AddStringToObject(q, "role", cko_role_name(p->role));
			cJSON *sh = cJSON_AddArrayToObject(q, "shape");
			for (int d = 0; d < p->ndim; d++)
				cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)shape[d]));
			const cJSON *t = cko_jget(tol, p->name);
			if (p->role != CKO_IN && t) {
				cJSON_AddNumberToObject(q, "rtol", cko_jnum(t, "rtol", cpath, cko_field("tolerance", p->name)));
				cJSON_AddNumberToObject(q, "atol", cko_jnum(t, "atol", cpath, cko_field("tolerance", p->name)));
			}
		} else {
			cJSON_AddNumberToObject(q, "value", cko_jnum(scalars, p->name, cpath, "scalars"));
		}
		cJSON_AddItemToArray(params, q);
	}
	cJSON *sets = cJSON_AddArrayToObject(rq, "sets");
	for (int s = 0; s < nsets; s++) {
		cJSON *set = cJSON_CreateObject();
		char *in = xasprintf("%s/in/%d", case_dir, s);
		char *r = cko_path_relative(o->outdir, in);
		cJSON_AddStringToObject(set, "in", r);
		free(r);
		free(in);
		if (!o->reference) {
			char *ex = xasprintf("%s/expected/%d", case_dir, s);
			r = cko_path_relative(o->outdir, ex);
			cJSON_AddStringToObject(set, "expected", r);
			free(r);
			free(ex);
		}
		cJSON_AddItemToArray(sets, set);
	}
	char *out = o->reference ? xasprintf("%s/expected", case_dir) : xasprintf("%s/%s", o->outputs, name);
	char *r = cko_path_relative(o->outdir, out);
	cJSON_AddStringToObject(rq, "out", r);
	free(r);
	free(out);
	const cJSON *fl = cko_jget(cs, "flops"), *by = cko_jget(cs, "bytes");
	if (cJSON_IsNumber(fl))
		cJSON_AddNumberToObject(rq, "flops", fl->valuedouble);
	if (cJSON_IsNumber(by))
		cJSON_AddNumberToObject(rq, "bytes", by->valuedouble);
	cko_env_free(&env);
	cJSON_Delete(cs);
	free(cpath);
	return rq;
}

/* The most dynamic shared memory a block may ask for (the opt-in maximum,
 * which cko-run sets for more than 48 KiB); 0 when props.json lacks it. */
static int64_t props_smem(const char *path)
{
	cJSON *p = cko_json_load(path);
	int64_t v = cko_jint_opt(p, "smem_per_block_optin", 0, path, "");
	if (v <= 0)
		v = cko_jint_opt(p, "smem_per_block", 0, path, "");
	cJSON_Delete(p);
	return v > 0 ? v : 0;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"signature", required_argument, 0, 's'}, {"launch", required_argument, 0, 'l'},
		{"cubin", required_argument, 0, 'b'},     {"cases", required_argument, 0, 'c'},
		{"case", required_argument, 0, 'C'},      {"reference", no_argument, 0, 'r'},
		{"outputs", required_argument, 0, 'O'},   {"output", required_argument, 0, 'o'},
		{"props", required_argument, 0, 'P'},     {"help", no_argument, 0, 'h'},
		{"after", required_argument, 0, 'A'},
		{0, 0, 0, 0},
	};
	opts o = {0};
	o.only = xcalloc((size_t)argc, sizeof *o.only);
	int c;
	const char *after = NULL;
	while ((c = getopt_long(argc, argv, "s:l:b:c:C:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': o.sig_path = optarg; break;
		case 'l': o.launch_path = optarg; break;
		case 'b': o.cubin = optarg; break;
		case 'c': o.cases = optarg; break;
		case 'C': o.only[o.nonly++] = optarg; break;
		case 'r': o.reference = 1; break;
		case 'O': o.outputs = optarg; break;
		case 'P': o.props = optarg; break;
		case 'o': o.outdir = optarg; break;
		case 'A': after = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || !o.sig_path || !o.launch_path || !o.cubin || !o.cases || !o.outdir)
		usage(2);
	cko_out_check(o.outdir);
	if (after && !cko_step_ok(after, NULL)) {
		cko_mkdir_p(o.outdir);
		char *index = cko_path_join(o.outdir, "index.json");
		cko_step_after(after, index);
		free(index);
		return 0;
	}
	cko_out_check(o.outputs);
	char *dflt_outputs = NULL;
	if (!o.outputs) {
		char *parent = cko_dirname(o.outdir);
		o.outputs = dflt_outputs = cko_path_join(parent, "out");
		free(parent);
	}
	if (o.props)
		o.max_smem = props_smem(o.props);
	cko_signature sig;
	cko_signature_load(o.sig_path, &sig);
	cJSON *launch = cko_json_load(o.launch_path);
	cko_launch_validate(launch, o.launch_path);
	char *ipath = xasprintf("%s/index.json", o.cases);
	cJSON *index = cko_json_load(ipath);
	if (!cJSON_IsArray(index))
		cko_jfail(ipath, "", "expected an array of cases");
	cko_mkdir_p(o.outdir);
	cJSON *summary = cJSON_CreateObject();
	cJSON_AddStringToObject(summary, "tool", "cko-request");
	cJSON *status = cJSON_AddStringToObject(summary, "status", "ok");
	cJSON *list = cJSON_AddArrayToObject(summary, "requests");
	int verdict = CKO_OK, i = 0;
	for (const cJSON *e = index->child; e; e = e->next, i++) {
		const char *name = cko_jstr(e, "name", ipath, cko_field_i("", i));
		if (!cko_is_ident(name) && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
						   strlen(name))
			cko_jfail(ipath, cko_field_i("", i), "case name '%s' is not a plain file name", name);
		if (!wanted(&o, name))
			continue;
		char *cdir = xasprintf("%s/%s", o.cases, name);
		char err[512];
		const char *limit = NULL;
		cJSON *rq = make_request(&o, &sig, launch, cdir, err, sizeof err, &limit);
		free(cdir);
		if (!rq) {
			int hidden = cJSON_IsTrue(cko_jget(e, "hidden"));
			cJSON_SetValuestring(status, "launch_error");
			/* A hidden case's sizes stay hidden: its message says only which rule failed. */
			cJSON_AddStringToObject(summary, "case", name);
			cJSON_AddStringToObject(summary, "message", err);
			cJSON_AddBoolToObject(summary, "hidden", hidden);
			if (limit)
				cJSON_AddStringToObject(summary, "limit", limit);
			cko_warn("%s: launch rule fails for case %s: %s", o.launch_path, name, err);
			verdict = CKO_VERDICT;
			break;
		}
		char *path = xasprintf("%s/%s.json", o.outdir, name);
		cko_json_write(path, rq);
		free(path);
		path = xasprintf("%s.json", name);
		cJSON_AddItemToArray(list, cJSON_CreateString(path));
		free(path);
		cJSON_Delete(rq);
	}
	char *ix = xasprintf("%s/index.json", o.outdir);
	cko_json_write(ix, summary);
	free(ix);
	free(ipath);
	free(dflt_outputs);
	free(o.only);
	cJSON_Delete(summary);
	cJSON_Delete(index);
	cJSON_Delete(launch);
	cko_signature_free(&sig);
	return verdict;
}
