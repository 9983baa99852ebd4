/* cko-llm: one model turn over an OpenAI-compatible Chat Completions API.
 *   render   a prompt template and its variables into prompt.json
 *   ask      the call(s), tool rounds included: response, transcript, usage
 *   extract  the answer checked locally, as a candidate folder or one file
 *   context  the run folder's history as the propose/repair prompt's input
 * The API key is read at call time and never written anywhere. */
#include "cko.h"
#include "llm.h"
#include "llm_ask.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *const usage_text =
	"usage: cko-llm render -t template [-a kind] [--schema file | --no-schema] [-v name=file]...\n"
	"                      [-s name=text]... -o prompt.json\n"
	"       cko-llm ask [-c config.json] [--tools manifest.json] [--enable name,...]\n"
	"                   [--allow path]... [--var name=value]... [--transcript transcript.json]\n"
	"                   [--usage usage.json] -o response.json prompt.json\n"
	"       cko-llm extract -s signature.json -C cases-dir [--parent id] -o candidate-dir response.json\n"
	"       cko-llm extract -w signature|cases|reference|initial [-s signature.json] [-C cases-dir]\n"
	"                       [-l launch.json] -o file response.json\n"
	"       cko-llm context -r run-dir -i iteration [-c config.json] [--max-chars n] [-o context.md]\n"
	"                       [--meta meta.json] [--which]\n"
	"       cko-llm --version\n"
	"render options:\n"
	"  -t, --template template           the prompt template: a path, or name for prompts/name.md\n"
	"  -a, --answer kind                 the answer kind: kernel, initial, reference, signature or cases\n"
	"      --schema file                 the answer's JSON schema (default: found beside the template or in the prompts folder)\n"
	"      --no-schema                   no JSON schema: the answer comes as fenced blocks\n"
	"  -v, --var name=file               {{name}} is the file's contents, without its last newline (repeatable)\n"
	"  -s, --set name=text               {{name}} is the text (repeatable)\n"
	"  -o, --output prompt.json          the prompt (written only when its content changed)\n"
	"ask options:\n"
	"  -c, --config config.json          the model settings (default: the built-in ones)\n"
	"      --tools manifest.json         offer the tools of this manifest to the model\n"
	"      --enable name,...             the tools to offer (default: those marked \"default\": true in the manifest)\n"
	"      --allow path                  a value a tool parameter listed under allowed may take (repeatable)\n"
	"      --var name=value              a value for an argv placeholder the model does not choose, e.g. arch=sm_90 (repeatable)\n"
	"      --transcript transcript.json  write every request, response, retry and tool call there\n"
	"      --usage usage.json            write the token counts and cost there\n"
	"  -o, --output response.json        the response (none after giving up)\n"
	"extract options:\n"
	"  -s, --signature signature.json    the kernel's signature\n"
	"  -C, --cases cases-dir             the case folder whose cases the launch rules must evaluate for\n"
	"  -p, --parent id                   the candidate this one derives from, for proposal.json\n"
	"  -w, --what kind                   extract one generated file of this kind: signature, cases, reference or initial\n"
	"  -l, --launch launch.json          with -w reference or initial: where the launch object goes\n"
	"  -o, --output candidate-dir|file   the candidate folder, or with -w the file\n"
	"context options:\n"
	"  -r, --run run-dir                 the run folder\n"
	"  -i, --iter iteration              the iteration the prompt is for\n"
	"  -c, --config config.json          the model settings: their context_max_chars bounds the history\n"
	"      --max-chars n                 at most n characters (at least 1000; 0: no limit), parts left out whole\n"
	"  -o, --output context.md           the history as Markdown (written only when it changed)\n"
	"      --meta meta.json              write {\"template\", \"parent\", \"iteration\"} there (only when it changed)\n"
	"      --which                       print propose or repair\n"
	"general options:\n"
	"      --version                     print the version and exit\n"
	"  -h, --help                        print this help and exit\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* ---- render ---- */

static const char *find_beside(const char *tdir, const char *name, char **out)
{
	char *p = cko_path_join(tdir, name);
	if (cko_exists(p))
		return *out = p;
	free(p);
	const char *d = llm_prompts_dir();
	if (d) {
		p = cko_path_join(d, name);
		if (cko_exists(p))
			return *out = p;
		free(p);
	}
	return *out = NULL;
}

static void add_var(llm_var **v, int *n, const char *name, char *value, const char *opt)
{
	if (!cko_is_ident(name))
		cko_die(CKO_BADINPUT, "%s %s: the name must be a C identifier", opt, name);
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			cko_die(CKO_BADINPUT, "%s %s: given twice", opt, name);
	*v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
	(*v)[*n].name = xstrdup(name);
	(*v)[(*n)++].value = value;
}

static int cmd_render(int argc, char **argv)
{
	enum { O_SCHEMA = 256, O_NOSCHEMA };
	static const struct option lo[] = {
		{"template", required_argument, 0, 't'}, {"answer", required_argument, 0, 'a'},
		{"var", required_argument, 0, 'v'},      {"set", required_argument, 0, 's'},
		{"schema", required_argument, 0, O_SCHEMA}, {"no-schema", no_argument, 0, O_NOSCHEMA},
		{"output", required_argument, 0, 'o'},   {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *tmpl = NULL, *answer = NULL, *schema_path = NULL, *out = NULL;
	int no_schema = 0, c, nvars = 0;
	llm_var *vars = NULL;
	while ((c = getopt_long(argc, argv, "t:a:v:s:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': tmpl = optarg; break;
		case 'a': answer = optarg; break;
		case 'v':
		case 's': {
			const char *opt = c == 'v' ? "-v" : "-s";
			char *eq = strchr(optarg, '=');
			if (!eq)
				cko_die(CKO_BADINPUT, "%s %s: expected name=%s", opt, optarg, c == 'v' ? "file" : "text");
			char *name = strndup(optarg, (size_t)(eq - optarg));
			char *val;
			if (c == 'v') {
				size_t len;
				val = cko_read_file(eq + 1, 1u << 20, &len);
				if (memchr(val, 0, len))
					cko_die(CKO_BADINPUT, "%s: contains a NUL byte", eq + 1);
				/* A file's last newline: the template's line has its own. */
				if (len && val[len - 1] == '\n')
					val[len - 1] = 0;
			} else {
				val = xstrdup(eq + 1);
			}
			add_var(&vars, &nvars, name, val, opt);
			free(name);
			break;
		}
		case O_SCHEMA: schema_path = optarg; break;
		case O_NOSCHEMA: no_schema = 1; break;
		case 'o': out = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!tmpl || !out || optind != argc)
		usage(2);
	cko_out_check(out);
	char *tpath = llm_template_path(tmpl);
	char *tdir = cko_dirname(tpath);
	const char *base = strrchr(tpath, '/') ? strrchr(tpath, '/') + 1 : tpath;
	char *tname = strndup(base, strlen(base) > 3 && !strcmp(base + strlen(base) - 3, ".md") ? strlen(base) - 3
												 : strlen(base));
	llm_kind kind = LLM_KERNEL;
	if (answer) {
		if (!llm_kind_parse(answer, &kind))
			cko_die(CKO_BADINPUT, "-a %s: expected kernel, initial, reference, signature or cases", answer);
	} else if (!strncmp(tname, "generate-", 9) && llm_kind_parse(tname + 9, &kind)) {
		/* generate-signature asks for a signature, and so on */
	}

	char *text = llm_template_expand(tpath, vars, nvars);
	char *sys, *user;
	llm_template_split(text, &sys, &user);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "template", tname);
	cJSON_AddStringToObject(p, "answer", llm_kind_name(kind));
	cJSON *msgs = cJSON_AddArrayToObject(p, "messages");
	if (sys && *sys && strcmp(sys, "\n")) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "system");
		cJSON_AddStringToObject(m, "content", sys);
		cJSON_AddItemToArray(msgs, m);
	}
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", user);
	cJSON_AddItemToArray(msgs, m);

	const char *kn = llm_kind_is_kernel(kind) ? "kernel" : llm_kind_name(kind);
	if (!no_schema) {
		char *sp = NULL;
		if (schema_path) {
			sp = xstrdup(schema_path);
		} else {
			char *name = llm_kind_is_kernel(kind) ? xstrdup("answer.schema.json")
							       : xasprintf("answer-%s.schema.json", kn);
			if (!find_beside(tdir, name, &sp))
				cko_die(CKO_BADINPUT, "no %s beside %s or in the prompts folder (or give --no-schema)", name,
					tpath);
			free(name);
		}
		cJSON *sj = cko_json_load(sp);
		static const char *const sk[] = {"name", "strict", "schema", "description", NULL};
		cko_jkeys(sj, sp, "", sk);
		cko_jstr(sj, "name", sp, "");
		if (!cJSON_IsObject(cko_jreq(sj, "schema", sp, "")))
			cko_jfail(sp, "schema", "expected a JSON schema object");
		cJSON_AddItemToObject(p, "schema", sj);
		free(sp);
	}
	char *fname = xasprintf("fenced-%s.md", kn), *fp;
	if (find_beside(tdir, fname, &fp)) {
		char *ft = llm_template_expand(fp, vars, nvars);
		char *fs, *fu;
		llm_template_split(ft, &fs, &fu);
		cJSON_AddStringToObject(p, "fenced_instructions", fu);
		free(ft);
		free(fs);
		free(fu);
		free(fp);
	}
	free(fname);
	llm_kind k2;
	llm_prompt_validate(p, out, &k2);
	/* Unchanged content keeps the old file, so make sees nothing new. */
	if (!strcmp(out, "-"))
		cko_json_write(out, p);
	else if (cko_json_write_if_changed(out, p))
		cko_info("%s: written", out);
	else
		cko_info("%s: unchanged", out);
	cJSON_Delete(p);
	free(text);
	free(sys);
	free(user);
	free(tname);
	free(tdir);
	free(tpath);
	for (int i = 0; i < nvars; i++) {
		free(vars[i].name);
		free(vars[i].value);
	}
	free(vars);
	return 0;
}

/* ---- ask ---- */

static int cmd_ask(int argc, char **argv)
{
	enum { O_TOOLS = 256, O_ENABLE, O_ALLOW, O_VAR, O_TRANSCRIPT, O_USAGE };
	static const struct option lo[] = {
		{"config", required_argument, 0, 'c'},        {"tools", required_argument, 0, O_TOOLS},
		{"enable", required_argument, 0, O_ENABLE},   {"allow", required_argument, 0, O_ALLOW},
		{"var", required_argument, 0, O_VAR},         {"transcript", required_argument, 0, O_TRANSCRIPT},
		{"usage", required_argument, 0, O_USAGE},     {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},                {0, 0, 0, 0},
	};
	const char *config = NULL, *manifest = NULL, *enable = NULL, *transcript = NULL, *usage_path = NULL,
		   *out = NULL;
	char **allow = xcalloc((size_t)argc + 1, sizeof *allow), **vars = xcalloc((size_t)argc + 1, sizeof *vars);
	int nallow = 0, nvars = 0, c;
	while ((c = getopt_long(argc, argv, "c:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case O_TOOLS: manifest = optarg; break;
		case O_ENABLE: enable = optarg; break;
		case O_ALLOW: allow[nallow++] = optarg; break;
		case O_VAR: vars[nvars++] = optarg; break;
		case O_TRANSCRIPT: transcript = optarg; break;
		case O_USAGE: usage_path = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!out || optind != argc - 1)
		usage(2);
	cko_out_check(out);
	cko_out_check(transcript);
	cko_out_check(usage_path);
	if (enable && !manifest)
		cko_die(CKO_BADINPUT, "--enable needs --tools manifest.json");
	const char *ppath = argv[optind];
	llm_config cfg;
	llm_config_load(config, &cfg);
	cJSON *prompt = cko_json_load(ppath);
	llm_kind kind;
	llm_prompt_validate(prompt, ppath, &kind);
	llm_tools *tools = manifest ? llm_tools_load(manifest, enable, allow, nallow, vars, nvars, cfg.tool_timeout_s,
						      cfg.tool_output_max)
				    : NULL;
	char *key = llm_api_key();
	/* Tool calls run children, which may run model-written code: the key
	 * stays in this process (libcurl's header) only. cko_run_argv gives
	 * them an allow-listed environment; this is a second lock. The value
	 * is wiped where it lies, since /proc/PID/environ shows the memory the
	 * environment started in, not what unsetenv leaves; and a process
	 * that is not dumpable cannot be read (environ, mem, ptrace) by a
	 * child of the same user. */
	char *ev = getenv("OPENAI_API_KEY");
	if (ev)
		memset(ev, 0, strlen(ev));
	unsetenv("OPENAI_API_KEY");
	prctl(PR_SET_DUMPABLE, 0);

	llm_session s = {.cfg = &cfg, .key = key, .tools = tools, .prompt = prompt, .kind = kind,
			 .transcript_path = transcript};
	cko_info("asking %s at %s (%s)", cfg.model, cfg.base_url, llm_kind_name(kind));
	int rc = llm_ask(&s);
	if (usage_path) {
		cJSON *u = llm_usage_json(&s);
		cko_json_write(usage_path, u);
		cJSON_Delete(u);
	}
	if (rc) {
		/* Never a response.json: make must not take the call as made. */
		char msg[1500];
		snprintf(msg, sizeof msg, "%s", s.error);
		llm_scrub(msg);
		cko_die(CKO_ENV, "%s: %s", cfg.base_url, msg);
	}

	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "tool", "cko-llm");
	cJSON_AddStringToObject(r, "status", "ok");
	cJSON_AddStringToObject(r, "model", cko_jstr_opt(s.final, "model", cfg.model));
	cJSON_AddStringToObject(r, "answer_kind", llm_kind_name(kind));
	cJSON_AddStringToObject(r, "mode", s.fenced ? "fenced" : s.json_object ? "json_object" : "json_schema");
	if (s.finish_reason)
		cJSON_AddStringToObject(r, "finish_reason", s.finish_reason);
	else
		cJSON_AddNullToObject(r, "finish_reason");
	cJSON_AddNumberToObject(r, "rounds", s.rounds);
	size_t clen = strlen(s.content ? s.content : "");
	const char *how = NULL;
	char err[512] = "";
	cJSON *answer = NULL;
	if (s.refusal && !clen)
		snprintf(err, sizeof err, "the model refused: %.400s", s.refusal);
	else if (clen > cfg.answer_max)
		snprintf(err, sizeof err, "the reply is longer than %zu bytes", cfg.answer_max);
	else
		answer = llm_answer_extract(kind, s.content, clen, s.fenced, &how, err, sizeof err);
	int cut = s.finish_reason && !strcmp(s.finish_reason, "length");
	if (answer && cut)
		cko_warn("the reply was cut at the token limit (%s)", s.limit_field);
	/* A structured reply that stops early is cut JSON: say so, not that
	 * the fenced reading found no block. */
	if (!answer && cut && !s.fenced && clen && !(s.refusal && !clen))
		snprintf(err, sizeof err, "the JSON answer is incomplete (cut at the token limit, %s)", s.limit_field);
	if (answer) {
		cJSON_AddStringToObject(r, "extracted_from", how);
		cJSON_AddItemToObject(r, "answer", answer);
		cJSON_AddNullToObject(r, "answer_error");
	} else {
		if (cut && !strstr(err, "cut at the token limit")) {
			size_t n = strlen(err);
			snprintf(err + n, sizeof err - n, " (the reply was cut at the token limit, %s)", s.limit_field);
		}
		cJSON_AddNullToObject(r, "extracted_from");
		cJSON_AddNullToObject(r, "answer");
		cJSON_AddStringToObject(r, "answer_error", err);
		cko_warn("%s: no usable answer: %s", out, err);
	}
	cJSON_AddStringToObject(r, "content", s.content ? s.content : "");
	cJSON_AddItemToObject(r, "response", cJSON_Duplicate(s.final, 1));
	llm_scrub_json(r);
	cko_json_write(out, r);
	cJSON_Delete(r);
	llm_session_free(&s);
	llm_tools_free(tools);
	if (key) {
		memset(key, 0, strlen(key));
		free(key);
	}
	cJSON_Delete(prompt);
	llm_config_free(&cfg);
	free(allow);
	free(vars);
	return 0;
}

/* ---- extract ---- */

struct sig_arg {
	const cJSON *j;
	cko_signature *sig;
};

static void sig_fn(void *p)
{
	struct sig_arg *a = p;
	cko_signature_from_json(a->j, "signature", a->sig);
}

/* 1 if the JSON holds a generator reading a file (not allowed from a model). */
static int has_file_dist(const cJSON *j)
{
	for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
		if (c->string && !strcmp(c->string, "dist") && cJSON_IsString(c) && !strcmp(c->valuestring, "file"))
			return 1;
		if (c->string && !strcmp(c->string, "path"))
			return 1;
		if (has_file_dist(c))
			return 1;
	}
	return 0;
}

static void unlink_quiet(const char *dir, const char *name)
{
	char *p = cko_path_join(dir, name);
	unlink(p);
	free(p);
}

/* Writes candidate-dir/{kernel.cu,launch.json,proposal.json}. */
static int extract_candidate(const cJSON *resp, const char *rpath, const char *sigpath, const char *cases,
			     const char *parent, const char *dir)
{
	cko_signature sig;
	cko_signature_load(sigpath, &sig);
	const cJSON *a = cko_jget(resp, "answer");
	char reason[1024] = "";
	const char *kernel = cko_jstr_opt(a, "kernel", NULL);
	const cJSON *launch = cko_jget(a, "launch");
	cJSON *clean = NULL;
	if (!cJSON_IsObject(a))
		snprintf(reason, sizeof reason, "no answer could be read from the reply: %s",
			 cko_jstr_opt(resp, "answer_error", "(no reason recorded)"));
	else if (!kernel || !*kernel)
		snprintf(reason, sizeof reason, "the answer has no kernel source");
	else if (strlen(kernel) > LLM_KERNEL_MAX)
		snprintf(reason, sizeof reason, "the kernel is longer than %u bytes", LLM_KERNEL_MAX);
	else if (llm_check_entry(kernel, strlen(kernel), sig.entry, reason, sizeof reason))
		;
	else if (!cJSON_IsObject(launch))
		snprintf(reason, sizeof reason, "the answer has no launch object (launch.json)");
	else if (!(clean = llm_launch_normalize(launch, reason, sizeof reason)))
		;
	else
		llm_check_launch(clean, &sig, cases, reason, sizeof reason);
	cko_mkdir_p(dir);
	/* What the model sent stays beside an invalid proposal, for the repair prompt. */
	if (kernel && strlen(kernel) <= LLM_KERNEL_MAX) {
		char *kp = cko_path_join(dir, "kernel.cu");
		cko_write_file(kp, kernel, strlen(kernel));
		free(kp);
	} else {
		unlink_quiet(dir, "kernel.cu");
	}
	const cJSON *lj = clean ? clean : cJSON_IsObject(launch) ? launch : NULL;
	if (lj) {
		char *lp = cko_path_join(dir, "launch.json");
		cko_json_write(lp, lj);
		free(lp);
	} else {
		unlink_quiet(dir, "launch.json");
	}
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "proposer", "cko-llm");
	cJSON_AddStringToObject(p, "status", reason[0] ? "invalid" : "ok");
	if (reason[0])
		cJSON_AddStringToObject(p, "reason", reason);
	else
		cJSON_AddNullToObject(p, "reason");
	char *note = cko_text_visible(cko_jstr_opt(a, "note", "")); /* controls shown, not stored raw */
	cJSON_AddStringToObject(p, "note", note);
	free(note);
	if (parent)
		cJSON_AddStringToObject(p, "parent", parent);
	else
		cJSON_AddNullToObject(p, "parent");
	cJSON_AddStringToObject(p, "model", cko_jstr_opt(resp, "model", "?"));
	char *pp = cko_path_join(dir, "proposal.json");
	cko_json_write(pp, p);
	free(pp);
	cJSON_Delete(p);
	cJSON_Delete(clean);
	cko_signature_free(&sig);
	if (reason[0]) {
		cko_warn("%s: invalid proposal: %s", rpath, reason);
		return CKO_VERDICT;
	}
	return 0;
}

/* cko_try callback: p points to the launch object. */
static void validate_launch_fn(void *p) { cko_launch_validate(*(const cJSON **)p, "launch"); }

static int extract_file(const cJSON *resp, const char *rpath, llm_kind what, const char *sigpath, const char *cases,
			const char *launch_out, const char *out)
{
	const cJSON *a = cko_jget(resp, "answer");
	char reason[2048] = "";
	if (!cJSON_IsObject(a)) {
		cko_warn("%s: no answer could be read from the reply: %s", rpath,
			 cko_jstr_opt(resp, "answer_error", "(no reason recorded)"));
		return CKO_VERDICT;
	}
	if (what == LLM_SIGNATURE) {
		const cJSON *j = cko_jget(a, "signature");
		cko_signature sig;
		struct sig_arg sa = {j, &sig};
		char e[1024];
		if (!cJSON_IsObject(j))
			snprintf(reason, sizeof reason, "the answer has no signature object");
		else if (cko_try(sig_fn, &sa, e, sizeof e))
			snprintf(reason, sizeof reason, "%s", e);
		else {
			cko_signature_free(&sig);
			cko_json_write(out, j);
		}
	} else if (what == LLM_CASES) {
		const cJSON *j = cko_jget(a, "cases");
		if (!sigpath)
			cko_die(CKO_BADINPUT, "extract -w cases needs -s signature.json (for the lint)");
		if (!cJSON_IsObject(j) || !cJSON_IsArray(cko_jget(j, "cases")))
			snprintf(reason, sizeof reason, "the answer has no cases.json object with a \"cases\" list");
		else if (has_file_dist(j))
			snprintf(reason, sizeof reason, "generated cases may not read files (\"dist\": \"file\" or \"path\")");
		else {
			/* cko-gen --lint judges it, as it will the real run. */
			char *tmp = xasprintf("%s.lint.%ld.json", out, (long)getpid());
			cko_json_write(tmp, j);
			char *gargv[] = {"cko-gen", "--lint", (char *)sigpath, tmp, NULL};
			cko_proc pr;
			if (cko_run_argv(gargv, NULL, 120, 1 << 16, 1, &pr))
				cko_die(CKO_ENV, "cannot run cko-gen");
			if (pr.status == 127) {
				cko_warn("cko-gen is neither beside cko-llm nor on PATH: cases.json was not linted");
			} else if (pr.status) {
				/* Its messages name the temporary file: name the answer instead. */
				char *o = pr.out;
				snprintf(reason, sizeof reason, "cko-gen --lint: %.1900s", o);
			}
			cko_proc_free(&pr);
			if (!reason[0])
				cko_json_write(out, j);
			unlink(tmp);
			free(tmp);
		}
	} else {
		const char *kernel = cko_jstr_opt(a, "kernel", NULL);
		const cJSON *launch = cko_jget(a, "launch");
		cJSON *clean = NULL;
		cko_signature sig = {0};
		if (!sigpath)
			cko_die(CKO_BADINPUT, "extract -w %s needs -s signature.json (for the entry point)",
				llm_kind_name(what));
		cko_signature_load(sigpath, &sig);
		if (!kernel || !*kernel)
			snprintf(reason, sizeof reason, "the answer has no kernel source");
		else if (llm_check_entry(kernel, strlen(kernel), sig.entry, reason, sizeof reason))
			;
		else if (launch_out && !cJSON_IsObject(launch))
			snprintf(reason, sizeof reason, "the answer has no launch object");
		else if (launch_out && !(clean = llm_launch_normalize(launch, reason, sizeof reason)))
			;
		else if (clean && cases)
			llm_check_launch(clean, &sig, cases, reason, sizeof reason);
		else if (clean) {
			/* No cases yet (they are generated later): the structure alone. */
			const cJSON *l = clean;
			char e[1024];
			if (cko_try(validate_launch_fn, &l, e, sizeof e))
				snprintf(reason, sizeof reason, "%s", e);
		}
		if (!reason[0]) {
			cko_write_file(out, kernel, strlen(kernel));
			if (clean)
				cko_json_write(launch_out, clean);
		}
		cJSON_Delete(clean);
		cko_signature_free(&sig);
	}
	if (reason[0]) {
		cko_warn("%s: the generated %s is invalid: %s", rpath, llm_kind_name(what), reason);
		return CKO_VERDICT;
	}
	return 0;
}

static int cmd_extract(int argc, char **argv)
{
	static const struct option lo[] = {
		{"signature", required_argument, 0, 's'}, {"cases", required_argument, 0, 'C'},
		{"parent", required_argument, 0, 'p'},    {"what", required_argument, 0, 'w'},
		{"launch", required_argument, 0, 'l'},    {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
	};
	const char *sig = NULL, *cases = NULL, *parent = NULL, *what = NULL, *launch = NULL, *out = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "s:C:p:w:l:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': sig = optarg; break;
		case 'C': cases = optarg; break;
		case 'p': parent = *optarg ? optarg : NULL; break;
		case 'w': what = optarg; break;
		case 'l': launch = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!out || optind != argc - 1)
		usage(2);
	cko_out_check(out);
	const char *rpath = argv[optind];
	cJSON *resp = cko_json_load(rpath);
	if (!cJSON_IsObject(resp) || strcmp(cko_jstr_opt(resp, "tool", ""), "cko-llm"))
		cko_jfail(rpath, "tool", "not a response.json of cko-llm ask");
	int rc;
	if (what) {
		llm_kind k;
		if (!llm_kind_parse(what, &k) || k == LLM_KERNEL)
			cko_die(CKO_BADINPUT, "--what %s: expected signature, cases, reference or initial", what);
		rc = extract_file(resp, rpath, k, sig, cases, launch, out);
	} else {
		if (!sig || !cases)
			cko_die(CKO_BADINPUT, "extract needs -s signature.json and -C cases-dir (or --what)");
		rc = extract_candidate(resp, rpath, sig, cases, parent, out);
	}
	cJSON_Delete(resp);
	return rc;
}

/* ---- context ---- */

static int cmd_context(int argc, char **argv)
{
	static const struct option lo[] = {
		{"run", required_argument, 0, 'r'}, {"iter", required_argument, 0, 'i'},
		{"output", required_argument, 0, 'o'}, {"which", no_argument, 0, 'W'},
		{"meta", required_argument, 0, 'm'}, {"config", required_argument, 0, 'c'},
		{"max-chars", required_argument, 0, 'M'},
		{"help", no_argument, 0, 'h'},      {0, 0, 0, 0},
	};
	const char *run = NULL, *out = NULL, *meta = NULL, *config = NULL;
	long iter = -1, max_chars = -1;
	int which = 0, c;
	char *end;
	while ((c = getopt_long(argc, argv, "r:i:o:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'r': run = optarg; break;
		case 'c': config = optarg; break;
		case 'M':
			max_chars = strtol(optarg, &end, 10);
			if (*end || !*optarg || max_chars < 0 || max_chars > (1L << 30) ||
			    (max_chars && max_chars < LLM_CONTEXT_MIN))
				cko_die(CKO_BADINPUT, "--max-chars %s: expected 0 (no limit) or %d to %ld", optarg,
					LLM_CONTEXT_MIN, 1L << 30);
			break;
		case 'i':
			iter = strtol(optarg, &end, 10);
			if (*end || iter < 0 || iter > 99999)
				cko_die(CKO_BADINPUT, "--iter %s: expected an iteration number", optarg);
			break;
		case 'o': out = optarg; break;
		case 'W': which = 1; break;
		case 'm': meta = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!run || iter < 0 || optind != argc || (!out && !which && !meta))
		usage(2);
	cko_out_check(out);
	cko_out_check(meta);
	if (max_chars < 0 && config) {
		llm_config lc;
		llm_config_load(config, &lc);
		max_chars = (long)lc.context_max_chars;
		llm_config_free(&lc);
	}
	llm_context ctx;
	llm_context_build(run, (int)iter, &ctx);
	if (max_chars > 0) {
		char *cut = llm_context_trim(ctx.markdown, (size_t)max_chars);
		free(ctx.markdown);
		ctx.markdown = cut;
	}
	if (out && !strcmp(out, "-"))
		cko_write_file(out, ctx.markdown, strlen(ctx.markdown));
	else if (out && cko_write_if_changed(out, ctx.markdown, strlen(ctx.markdown)))
		cko_info("%s: written", out);
	if (meta) {
		/* For the recipes: which template, and the parent of what comes back. */
		cJSON *m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "template", ctx.mode_repair ? "repair" : "propose");
		if (ctx.parent[0])
			cJSON_AddStringToObject(m, "parent", ctx.parent);
		else
			cJSON_AddNullToObject(m, "parent");
		cJSON_AddNumberToObject(m, "iteration", (double)iter);
		if (!strcmp(meta, "-"))
			cko_json_write(meta, m);
		else
			cko_json_write_if_changed(meta, m);
		cJSON_Delete(m);
	}
	if (which)
		printf("%s\n", ctx.mode_repair ? "repair" : "propose");
	llm_context_free(&ctx);
	return 0;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	if (argc < 2)
		usage(2);
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		usage(0);
	if (!strcmp(cmd, "--version")) {
		printf("cko-llm %s\n", CKO_VERSION);
		return 0;
	}
	/* getopt_long sees the subcommand's arguments, the subcommand as argv[0]. */
	optind = 1;
	if (!strcmp(cmd, "render"))
		return cmd_render(argc - 1, argv + 1);
	if (!strcmp(cmd, "ask"))
		return cmd_ask(argc - 1, argv + 1);
	if (!strcmp(cmd, "extract"))
		return cmd_extract(argc - 1, argv + 1);
	if (!strcmp(cmd, "context"))
		return cmd_context(argc - 1, argv + 1);
	cko_warn("unknown command '%s'", cmd);
	usage(2);
}
