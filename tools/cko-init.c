/* cko-init: creates results/run-NNN/ (the next free number; concurrent
 * inits never share one) with the workload's files, config.json and run.mk,
 * built in a hidden sibling and renamed into place when complete. Prints
 * the run folder on stdout. */
#include "cko.h"
#include "llm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Kept equal to MAX_ITER, MAX_CANDIDATES and MAX_CANDIDATES_TOTAL in mk/run.mk. */
enum { CKO_MAX_ITER = 1000, CKO_MAX_CANDIDATES = 64, CKO_MAX_CANDIDATES_TOTAL = 8192 };

/* The budget's default patience (iterations in a row without a gain). */
#define MODEL_PATIENCE 3
#define TUNE_PATIENCE 5

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-init [--workload name | --from run-dir] [--description text|@file] [--signature file]\n"
		"                [--reference file] [--reference-launch file] [--initial-kernel file] [--launch file]\n"
		"                [--input-cases file] [--space file] [--config file] [--model name] [--max-iterations n]\n"
		"                [--candidates k] [--strategy s] [--seed n] [--hidden-seed n] [--use-nsight]\n"
		"                [--nvidia-research] [--sanitize] [--gpus n] [--timeout s] [--compile-timeout s]\n"
		"                [--compile-memory MB] [--no-sandbox] [--keep-outputs] [--sol-stop f] [--patience n]\n"
		"                [--min-gain f] [--no-memory] [--proposals dir]\n"
		"                [--launcher command] [--results dir | --run-dir dir]\n"
		"      --workload name           take the parts of a built-in workload: sgemm, reduce_sum, softmax, transpose, layernorm\n"
		"      --from run-dir            take the parts of an earlier run, its best kernel as the initial kernel\n"
		"      --description text|@file  the task in words (from a file with @), for the model\n"
		"      --signature file          the kernel's signature.json\n"
		"      --reference file          the reference kernel, reference.cu (also kept as supplied-reference.cu)\n"
		"      --reference-launch file   the reference's launch.json\n"
		"      --initial-kernel file     the kernel the run starts from, initial.cu\n"
		"      --launch file             the initial kernel's launch.json\n"
		"      --input-cases file        the case spec, cases.json (see cko-gen(1))\n"
		"      --space file              cko-tune's search space, space.json (its kernels are copied too)\n"
		"      --config file             defaults for the options and the model's settings\n"
		"      --model name              the model that proposes kernels (default: the config's; none: cko-tune proposes)\n"
		"      --max-iterations n        the default ITER of run.mk (default 7, at most 1000)\n"
		"      --candidates k            proposals per iteration, 1 to 64 (default 1)\n"
		"      --strategy s              cko-tune's strategy: auto (the default), exhaustive, random, local\n"
		"      --seed n                  the tuner's seed (default 1)\n"
		"      --hidden-seed n           the hidden cases' seed (default random, so the model never learns the hidden cases)\n"
		"      --use-nsight              profile each verified candidate with Nsight Compute\n"
		"      --nvidia-research         a research step whose notes go into the model's prompts\n"
		"      --sanitize                check the fastest candidates with cko-sanitize; a rejected one is never best\n"
		"      --gpus n                  the GPU pool size for make -j (run.mk's GPUS, default 1)\n"
		"      --timeout s               seconds one kernel launch may take (run.mk's TIMEOUT, default 10)\n"
		"      --compile-timeout s       wall-time limit of every compile (run.mk's COMPILE_TIMEOUT, default 60)\n"
		"      --compile-memory MB       memory limit of every compile, at least 64 (run.mk's COMPILE_MEMORY, default 4096)\n"
		"      --no-sandbox              compile and run candidates without Landlock (run.mk's SANDBOX := off)\n"
		"      --keep-outputs            keep every candidate's outputs as .npy (run.mk's KEEP_OUTPUTS := 1)\n"
		"      --sol-stop f              stop once every performance case reaches this fraction of its speed-of-light\n"
		"                                time (run.mk's SOL_STOP, default 0.9; 0: never)\n"
		"      --patience n              stop after n iterations in a row gained less than --min-gain (run.mk's\n"
		"                                PATIENCE, default 3 with a model, 5 with the tuner; 0: never)\n"
		"      --min-gain f              the gain in the best geomean an iteration must bring, a fraction (run.mk's\n"
		"                                MIN_GAIN, default 0.01)\n"
		"      --no-memory               neither remember this run, nor start it from a remembered best, nor show the\n"
		"                                model remembered runs (run.mk's MEMORY := 0)\n"
		"      --proposals dir           without a model, take hand-written proposals from dir (see cko-propose-manual(1))\n"
		"      --launcher command        run every GPU step under this launcher, e.g. \"srun -n1 --gres=gpu:1\"\n"
		"      --results dir             the folder the run folder is made in (default results)\n"
		"      --run-dir dir             make exactly this run folder (it must not exist) instead of the next results/run-NNN\n"
		"  -h, --help                    print this help and exit\n");
	exit(status);
}

/* The folder holding mk/, prompts/ and workloads/: $CKO_SHARE, else the
 * source tree above bin/ or the installed share/cko (cko_share_dir). */
static char *share_dir(void)
{
	const char *e = getenv("CKO_SHARE");
	if (e && *e)
		return xstrdup(e);
	char *d = cko_share_dir("mk/run.mk");
	if (!d)
		cko_die(CKO_ENV, "cannot find cko's share folder (mk/run.mk); set CKO_SHARE");
	return d;
}

static char *abs_path(const char *p)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return xstrdup(buf);
	return xstrdup(p);
}

/* A folder cko-init made: it has run.mk, workload/ or summary.json. */
static int is_run_dir(const char *dir)
{
	static const char *const marks[] = {"run.mk", "workload", "summary.json"};
	int found = 0;
	for (size_t i = 0; i < sizeof marks / sizeof marks[0] && !found; i++) {
		char *p = cko_path_join(dir, marks[i]);
		found = cko_exists(p);
		free(p);
	}
	return found;
}

/* The run folder is built in a hidden sibling, results/.run-new.PID, and
 * renamed to results/run-NNN only when complete: a failure (a full disk)
 * removes it and leaves no half run folder. */
static char *building;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void drop_building(int status)
{
	if (building) {
		remove_tree(building);
		fprintf(stderr, "cko-init: no run folder was made (the unfinished %s is removed)\n", building);
	}
	building = NULL;
}

/* Removes the .run-new.PID folders of inits that died (kill -9). */
static void remove_stale_builds(const char *results)
{
	DIR *d = opendir(results);
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		if (strncmp(e->d_name, ".run-new.", 9))
			continue;
		long pid = strtol(e->d_name + 9, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid() || !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		char *p = xasprintf("%s/%s", results, e->d_name);
		remove_tree(p);
		free(p);
	}
	if (d)
		closedir(d);
}

static char *start_run_dir(const char *results)
{
	cko_mkdir_p(results);
	remove_stale_builds(results);
	char *d = xasprintf("%s/.run-new.%ld", results, (long)getpid());
	if (mkdir(d, 0755))
		cko_die(CKO_ENV, "%s: %s", d, strerror(errno));
	building = d;
	cko_atexit_die(drop_building);
	return d;
}

/* Renames the complete folder tmp to results/run-NNN, the next number
 * after the highest present, never over an existing one (a concurrent
 * cko-init takes the number after); run.mk, which names the folder, is
 * written last. */
static char *place_run_dir(const char *results, const char *tmp, const cko_buf *mk, const char *fixed)
{
	int n, top = 0;
	char **names = cko_list_dir(results, "", &n);
	for (int i = 0; i < n; i++)
		if (!strncmp(names[i], "run-", 4) && atoi(names[i] + 4) > top)
			top = atoi(names[i] + 4);
	cko_free_list(names, n);
	char *mkpath = xasprintf("%s/run.mk", tmp);
	for (int k = top + 1; k < top + 1000; k++) {
		char *d = fixed ? xstrdup(fixed) : xasprintf("%s/run-%03d", results, k);
		cko_buf b = {0};
		buf_printf(&b, "# run.mk for %s, %s", d, mk->s);
		cko_write_file(mkpath, b.s, b.len);
		buf_free(&b);
		int r = renameat2(AT_FDCWD, tmp, AT_FDCWD, d, RENAME_NOREPLACE);
		if (r && (errno == EINVAL || errno == ENOSYS)) {
			/* No RENAME_NOREPLACE here: mkdir takes the number, the
			 * rename replaces that empty folder. */
			r = mkdir(d, 0755);
			if (!r && (r = rename(tmp, d)))
				rmdir(d);
		}
		if (!r) {
			building = NULL;
			free(mkpath);
			return d;
		}
		if (errno != EEXIST && errno != ENOTEMPTY)
			cko_die(CKO_ENV, "%s: %s", d, strerror(errno));
		if (fixed)
			cko_die(CKO_BADINPUT, "--run-dir %s: appeared meanwhile; remove it or give another", fixed);
		free(d);
	}
	cko_die(CKO_ENV, "%s: no free run number", results);
}

static uint64_t random_seed(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &v, sizeof v) != sizeof v)
		v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	return v % 1000000007u;
}

typedef struct {
	const char *name, *opt; /* file in workload/, the option that supplies it */
	char *src;
} part;

enum { SIG, CASES, REF, REFL, INIT, INITL, DESC, SPACE, NPARTS };

/* Copies space.json and every variant source it names, keeping the layout. */
static void copy_space(const char *space, const char *wdir)
{
	cJSON *s = cko_json_load(space);
	char *sdir = cko_dirname(space);
	const cJSON *vars = cko_jreq(s, "variants", space, "");
	int i = 0;
	for (const cJSON *v = cJSON_IsArray(vars) ? vars->child : NULL; v; v = v->next, i++) {
		const char *src = cko_jstr(v, "source", space, cko_field_i("variants", i));
		if (src[0] == '/' || strstr(src, ".."))
			cko_jfail(space, cko_field(cko_field_i("variants", i), "source"), "must be a path inside the folder of space.json");
		char *from = cko_path_join(sdir, src), *to = xasprintf("%s/%s", wdir, src);
		cko_copy_file(from, to);
		free(from);
		free(to);
	}
	char *to = xasprintf("%s/space.json", wdir);
	cko_copy_file(space, to);
	free(to);
	free(sdir);
	cJSON_Delete(s);
}

/* What the options and the config file give. */
typedef struct {
	const char *workload, *from, *desc, *config_path, *model, *strategy, *proposals, *results, *launcher;
	const char *run_dir;
	long iters, cands, gpus, seed, hseed, patience;
	double timeout, compile_timeout, compile_memory, sol_stop, min_gain;
	int nsight, research, sanitize, keep, supplied_ref, use_memory;
	part parts[NPARTS];
	cJSON *cfg;          /* the config file, or an empty object */
	const char *proposer;
	char stamp[32];      /* when the run was made, UTC */
} init_opts;

/* The parts a run cannot start without. */
static const int needed[] = {SIG, CASES, REF, REFL, INIT, INITL};

static void parse_options(int argc, char **argv, init_opts *o)
{
	enum { O_WORKLOAD = 256, O_FROM, O_DESC, O_SIG, O_REF, O_REFL, O_INIT, O_LAUNCH, O_CASES, O_SPACE, O_CONFIG,
	       O_MODEL, O_ITERS, O_CANDS, O_STRAT, O_SEED, O_HSEED, O_NSIGHT, O_RESEARCH, O_SANITIZE, O_GPUS,
	       O_TIMEOUT, O_PROPOSALS, O_RESULTS, O_LAUNCHER, O_CTIMEOUT, O_CMEMORY, O_NOSANDBOX, O_KEEP, O_RUNDIR,
	       O_SOLSTOP, O_PATIENCE, O_MINGAIN, O_NOMEMORY };
	static const struct option lo[] = {
		{"workload", required_argument, 0, O_WORKLOAD}, {"from", required_argument, 0, O_FROM},
		{"description", required_argument, 0, O_DESC}, {"signature", required_argument, 0, O_SIG},
		{"reference", required_argument, 0, O_REF}, {"reference-launch", required_argument, 0, O_REFL},
		{"initial-kernel", required_argument, 0, O_INIT}, {"launch", required_argument, 0, O_LAUNCH},
		{"input-cases", required_argument, 0, O_CASES}, {"space", required_argument, 0, O_SPACE},
		{"config", required_argument, 0, O_CONFIG}, {"model", required_argument, 0, O_MODEL},
		{"max-iterations", required_argument, 0, O_ITERS}, {"candidates", required_argument, 0, O_CANDS},
		{"strategy", required_argument, 0, O_STRAT}, {"seed", required_argument, 0, O_SEED},
		{"hidden-seed", required_argument, 0, O_HSEED}, {"use-nsight", no_argument, 0, O_NSIGHT},
		{"nvidia-research", no_argument, 0, O_RESEARCH}, {"sanitize", no_argument, 0, O_SANITIZE},
		{"gpus", required_argument, 0, O_GPUS}, {"timeout", required_argument, 0, O_TIMEOUT},
		{"proposals", required_argument, 0, O_PROPOSALS}, {"results", required_argument, 0, O_RESULTS},
		{"launcher", required_argument, 0, O_LAUNCHER}, {"compile-timeout", required_argument, 0, O_CTIMEOUT},
		{"compile-memory", required_argument, 0, O_CMEMORY}, {"no-sandbox", no_argument, 0, O_NOSANDBOX},
		{"keep-outputs", no_argument, 0, O_KEEP}, {"run-dir", required_argument, 0, O_RUNDIR},
		{"sol-stop", required_argument, 0, O_SOLSTOP}, {"patience", required_argument, 0, O_PATIENCE},
		{"min-gain", required_argument, 0, O_MINGAIN}, {"no-memory", no_argument, 0, O_NOMEMORY},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	part *parts = o->parts;
	int c;
	char *end;
#define NUM(var, lo_, what)                                                                                        \
	do {                                                                                                       \
		var = strtol(optarg, &end, 10);                                                                    \
		if (*end || var < (lo_))                                                                           \
			cko_die(CKO_BADINPUT, "%s %s: expected an integer >= %d", what, optarg, (int)(lo_));        \
	} while (0)
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_WORKLOAD: o->workload = optarg; break;
		case O_FROM: o->from = optarg; break;
		case O_DESC: o->desc = optarg; break;
		case O_SIG: parts[SIG].src = abs_path(optarg); break;
		case O_REF: parts[REF].src = abs_path(optarg); o->supplied_ref = 1; break;
		case O_REFL: parts[REFL].src = abs_path(optarg); break;
		case O_INIT: parts[INIT].src = abs_path(optarg); break;
		case O_LAUNCH: parts[INITL].src = abs_path(optarg); break;
		case O_CASES: parts[CASES].src = abs_path(optarg); break;
		case O_SPACE: parts[SPACE].src = abs_path(optarg); break;
		case O_CONFIG: o->config_path = optarg; break;
		case O_MODEL: o->model = optarg; break;
		case O_ITERS: NUM(o->iters, 0, "--max-iterations"); break;
		case O_CANDS: NUM(o->cands, 1, "--candidates"); break;
		case O_STRAT: o->strategy = optarg; break;
		case O_SEED: NUM(o->seed, 0, "--seed"); break;
		case O_HSEED: NUM(o->hseed, 0, "--hidden-seed"); break;
		case O_NSIGHT: o->nsight = 1; break;
		case O_RESEARCH: o->research = 1; break;
		case O_SANITIZE: o->sanitize = 1; break;
		case O_GPUS: NUM(o->gpus, 1, "--gpus"); break;
		case O_TIMEOUT:
			o->timeout = strtod(optarg, &end);
			if (*end || !(o->timeout > 0))
				cko_die(CKO_BADINPUT, "--timeout %s: expected seconds > 0", optarg);
			break;
		case O_CTIMEOUT:
			o->compile_timeout = strtod(optarg, &end);
			if (*end || !(o->compile_timeout > 0) || o->compile_timeout > 86400)
				cko_die(CKO_BADINPUT, "--compile-timeout %s: expected seconds > 0", optarg);
			break;
		case O_CMEMORY:
			o->compile_memory = strtod(optarg, &end);
			if (*end || !(o->compile_memory >= 64))
				cko_die(CKO_BADINPUT, "--compile-memory %s: expected megabytes >= 64", optarg);
			break;
		case O_NOSANDBOX: cko_sandbox_disable(); break;
		case O_KEEP: o->keep = 1; break;
		case O_NOMEMORY: o->use_memory = 0; break;
		case O_SOLSTOP:
			o->sol_stop = strtod(optarg, &end);
			if (*end || !(o->sol_stop >= 0 && o->sol_stop <= 1))
				cko_die(CKO_BADINPUT, "--sol-stop %s: expected a fraction from 0 (never) to 1", optarg);
			break;
		case O_PATIENCE:
			NUM(o->patience, 0, "--patience");
			if (o->patience > CKO_MAX_ITER)
				cko_die(CKO_BADINPUT, "--patience %s: at most %d", optarg, CKO_MAX_ITER);
			break;
		case O_MINGAIN:
			o->min_gain = strtod(optarg, &end);
			if (*end || !(o->min_gain >= 0 && o->min_gain < 10))
				cko_die(CKO_BADINPUT, "--min-gain %s: expected a fraction >= 0 (0.01 is 1%%)", optarg);
			break;
		case O_PROPOSALS: o->proposals = optarg; break;
		case O_RESULTS: o->results = optarg; break;
		case O_RUNDIR: o->run_dir = optarg; break;
		case O_LAUNCHER:
			if (strchr(optarg, '\'') || strchr(optarg, '$') || strchr(optarg, '\n'))
				cko_die(CKO_BADINPUT, "--launcher: no quotes, $ or newlines (it is split on blanks)");
			o->launcher = optarg;
			break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
#undef NUM
	if (optind != argc)
		usage(2);
}

/* The config file supplies defaults (and the model's settings); the
 * bounds on iterations and candidates and the strategy are checked here. */
static void read_config(init_opts *o)
{
	const char *config_path = o->config_path;
	o->cfg = config_path ? cko_json_load(config_path) : cJSON_CreateObject();
	cJSON *cfg = o->cfg;
	if (!cJSON_IsObject(cfg))
		cko_jfail(config_path, "", "expected an object");
	/* Anything in model_settings is copied into the run's config.json:
	 * a key never is (it is read at call time). */
	if (config_path)
		cko_jno_secrets(cfg, config_path);
	if (cko_jget(cfg, "model_settings")) {
		/* Checked as cko-llm will read it, before a run folder exists. */
		llm_config lc;
		llm_config_load(config_path, &lc);
		llm_config_free(&lc);
	}
	if (!o->model)
		o->model = cko_jstr_opt(cko_jget(cfg, "model_settings"), "model", cko_jstr_opt(cfg, "model", NULL));
	const char *iname = "--max-iterations", *cname = "--candidates";
	if (o->iters < 0) {
		o->iters = cko_jint_opt(cfg, "max_iterations", 7, config_path, "");
		iname = config_path ? xasprintf("%s: max_iterations", config_path) : iname;
	}
	if (o->cands < 0) {
		o->cands = cko_jint_opt(cfg, "candidates", 1, config_path, "");
		cname = config_path ? xasprintf("%s: candidates", config_path) : cname;
	}
	/* The bounds run.mk checks too: make reads the rules of every
	 * candidate each time it starts (about 1 ms each). */
	if (o->iters < 0 || o->iters > CKO_MAX_ITER)
		cko_die(CKO_BADINPUT, "%s %ld: expected 0 to %d (make reads every iteration's rules each time it "
			"starts); for more, continue from a run's best with cko-init --from", iname, o->iters, CKO_MAX_ITER);
	if (o->cands < 1 || o->cands > CKO_MAX_CANDIDATES)
		cko_die(CKO_BADINPUT, "%s %ld: expected 1 to %d an iteration", cname, o->cands, CKO_MAX_CANDIDATES);
	if (o->iters * o->cands > CKO_MAX_CANDIDATES_TOTAL)
		cko_die(CKO_BADINPUT, "%s %ld with %s %ld: at most %d candidates in all (make reads every candidate's "
			"rules each time it starts)", iname, o->iters, cname, o->cands, CKO_MAX_CANDIDATES_TOTAL);
	if (!o->strategy)
		o->strategy = cko_jstr_opt(cfg, "strategy", "auto");
	if (strcmp(o->strategy, "auto") && strcmp(o->strategy, "exhaustive") && strcmp(o->strategy, "random") &&
	    strcmp(o->strategy, "local"))
		cko_die(CKO_BADINPUT, "--strategy %s: expected auto, exhaustive, random or local", o->strategy);
}

/* The parts not given by an option, from the built-in workload. */
static void parts_from_workload(part *parts, const char *workload, const char *share)
{
	if (!cko_is_ident(workload))
		cko_die(CKO_BADINPUT, "--workload %s: not a workload name", workload);
	char *wd = xasprintf("%s/workloads/%s", share, workload);
	if (!cko_is_dir(wd)) {
		int n;
		char **names = cko_list_dir(xasprintf("%s/workloads", share), "", &n);
		cko_buf b = {0};
		for (int i = 0; i < n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
		cko_die(CKO_BADINPUT, "--workload %s: no such built-in workload (there are: %s)", workload,
			b.s ? b.s : "none");
	}
	for (int i = 0; i < NPARTS; i++) {
		char *p = xasprintf("%s/%s", wd, parts[i].name);
		if (!parts[i].src && cko_exists(p))
			parts[i].src = p;
		else
			free(p);
	}
	free(wd);
}

/* The parts still missing, from the run folder --from names (its best
 * kernel and launch rules before its initial ones). */
static void parts_from_run(part *parts, const char *from)
{
	const char *sub[NPARTS][2] = {
		[SIG] = {"workload/signature.json", NULL}, [CASES] = {"workload/cases.json", NULL},
		[REF] = {"supplied-reference.cu", "workload/reference.cu"},
		[REFL] = {"workload/reference-launch.json", NULL}, [INIT] = {"best.cu", "workload/initial.cu"},
		[INITL] = {"best-launch.json", "workload/launch.json"}, [DESC] = {"workload/description.txt", NULL},
		[SPACE] = {"workload/space.json", NULL},
	};
	if (!cko_is_dir(from))
		cko_die(CKO_BADINPUT, "--from %s: no such run folder", from);
	if (!is_run_dir(from))
		cko_die(CKO_BADINPUT,
			"--from %s: %s is not a run folder (no run.mk, workload/ or summary.json): give a "
			"folder cko-init made, such as results/run-001",
			from, from);
	for (int i = 0; i < NPARTS; i++)
		for (int k = 0; k < 2 && sub[i][k] && !parts[i].src; k++) {
			char *p = xasprintf("%s/%s", from, sub[i][k]);
			if (cko_exists(p))
				parts[i].src = abs_path(p);
			free(p);
		}
}

/* Checks what was given before anything is made; *missing: the needed
 * parts a model must generate ("" when none). */
static void check_parts(const init_opts *o, cko_buf *missing)
{
	const part *parts = o->parts;
	for (int i = 0; i < NPARTS; i++)
		if (parts[i].src && !cko_exists(parts[i].src))
			cko_die(CKO_BADINPUT, "%s %s: no such file", parts[i].opt, parts[i].src);
	if (parts[SIG].src) {
		cko_signature sig;
		cko_signature_load(parts[SIG].src, &sig);
		cko_signature_free(&sig);
	}
	const int launches[] = {REFL, INITL};
	for (int k = 0; k < 2; k++)
		if (parts[launches[k]].src) {
			cJSON *l = cko_json_load(parts[launches[k]].src);
			cko_launch_validate(l, parts[launches[k]].src);
			cJSON_Delete(l);
		}
	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
		if (!parts[needed[i]].src)
			buf_printf(missing, "%s%s", missing->len ? ", " : "", parts[needed[i]].name);
	if (missing->len && !o->model)
		cko_die(CKO_BADINPUT,
			"missing %s: give them (--signature, --input-cases, --reference, --initial-kernel, --launch, "
			"--reference-launch), a built-in --workload, or a model (--model) to generate them",
			missing->s);
	if (missing->len && !o->desc && !parts[DESC].src)
		cko_die(CKO_BADINPUT, "missing %s: a model can generate them from --description", missing->s);
}

/* The workload's files into run/workload/ (and the supplied reference,
 * kept apart, into run/). */
static void copy_parts(const init_opts *o, const char *run)
{
	const part *parts = o->parts;
	char *wdir = xasprintf("%s/workload", run);
	cko_mkdir_p(wdir);
	for (int i = 0; i < NPARTS; i++) {
		if (!parts[i].src || i == SPACE)
			continue;
		char *to = xasprintf("%s/%s", wdir, parts[i].name);
		cko_copy_file(parts[i].src, to);
		free(to);
	}
	if (o->supplied_ref) {
		char *to = xasprintf("%s/supplied-reference.cu", run);
		cko_copy_file(parts[REF].src, to);
		free(to);
	}
	if (o->desc) {
		char *to = xasprintf("%s/description.txt", wdir);
		if (o->desc[0] == '@')
			cko_copy_file(o->desc + 1, to);
		else
			cko_write_file(to, o->desc, strlen(o->desc));
		free(to);
	}
	if (parts[SPACE].src)
		copy_space(parts[SPACE].src, wdir);
	free(wdir);
}

/* The seeds, the proposer and the patience that follows from it. */
static void settle_defaults(init_opts *o)
{
	if (o->hseed < 0)
		o->hseed = (long)random_seed();
	if (o->seed < 0)
		o->seed = 1;
	o->proposer = o->model ? "llm" : o->proposals ? "manual" : "tune";
	/* The tuner's gains come in jumps after flat iterations (a local
	 * search leaves a plateau only once a neighbourhood is used up: on the
	 * H200, make demo's sgemm found nothing in iterations 2-4, then 7% in
	 * 5), so it waits longer than a model, whose every turn is a new idea. */
	if (o->patience < 0)
		o->patience = !strcmp(o->proposer, "tune") ? TUNE_PATIENCE : MODEL_PATIENCE;
	if (!o->model)
		cko_info("no model configured: proposals come from the built-in tuner (cko-tune)%s",
			 o->proposals ? " or the proposal folder" : "");
	time_t now = time(NULL);
	strftime(o->stamp, sizeof o->stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* run/config.json (docs/formats.md). */
static void write_config(const init_opts *o, const char *run, const cko_buf *missing)
{
	cJSON *conf = cJSON_CreateObject();
	cJSON_AddStringToObject(conf, "tool", "cko-init");
	cJSON_AddStringToObject(conf, "version", CKO_VERSION);
	cJSON_AddStringToObject(conf, "created", o->stamp);
	cJSON_AddStringToObject(conf, "workload", o->workload ? o->workload : o->from ? "continued" : "custom");
	cJSON_AddStringToObject(conf, "proposer", o->proposer);
	if (o->model)
		cJSON_AddStringToObject(conf, "model", o->model);
	cJSON_AddNumberToObject(conf, "max_iterations", (double)o->iters);
	cJSON_AddNumberToObject(conf, "candidates", (double)o->cands);
	cJSON_AddStringToObject(conf, "strategy", o->strategy);
	cJSON_AddNumberToObject(conf, "seed", (double)o->seed);
	cJSON_AddNumberToObject(conf, "hidden_seed", (double)o->hseed);
	cJSON_AddBoolToObject(conf, "use_nsight", o->nsight);
	cJSON_AddBoolToObject(conf, "nvidia_research", o->research);
	cJSON_AddBoolToObject(conf, "sanitize", o->sanitize);
	cJSON_AddStringToObject(conf, "sandbox", cko_sandbox_describe());
	cJSON_AddNumberToObject(conf, "compile_timeout_s", o->compile_timeout);
	cJSON_AddNumberToObject(conf, "compile_memory_mb", o->compile_memory);
	cJSON_AddBoolToObject(conf, "memory", o->use_memory);
	cJSON *bud = cJSON_AddObjectToObject(conf, "budget");
	cJSON_AddNumberToObject(bud, "sol_stop", o->sol_stop);
	cJSON_AddNumberToObject(bud, "patience", (double)o->patience);
	cJSON_AddNumberToObject(bud, "min_gain", o->min_gain);
	if (missing->len)
		cJSON_AddStringToObject(conf, "generate", missing->s);
	cJSON *srcs = cJSON_AddObjectToObject(conf, "sources");
	for (int i = 0; i < NPARTS; i++)
		if (o->parts[i].src)
			cJSON_AddStringToObject(srcs, o->parts[i].name, o->parts[i].src);
	if (o->from)
		cJSON_AddStringToObject(conf, "from", o->from);
	/* Model settings travel, the key never does (it is read at call time). */
	const cJSON *ms = cko_jget(o->cfg, "model_settings");
	if (ms)
		cJSON_AddItemToObject(conf, "model_settings", cJSON_Duplicate(ms, 1));
	char *cpath = xasprintf("%s/config.json", run);
	cko_json_write(cpath, conf);
	free(cpath);
	cJSON_Delete(conf);
}

/* run.mk: every setting with its value, then the include of mk/run.mk. */
static void write_run_mk(const init_opts *o, const char *share, int generate, cko_buf *mk)
{
	char *bin = cko_exe_dir();
	buf_printf(mk, "made by cko-init %s on %s.\n", CKO_VERSION, o->stamp);
	buf_printf(mk, "# Run it in this folder:  make -f run.mk [ITER=n] [-j n]\n");
	buf_printf(mk, "CKO_BIN     := %s\n", bin ? bin : "");
	buf_printf(mk, "CKO_SHARE   := %s\n", share);
	buf_printf(mk, "# Every setting with its value; make -f run.mk NAME=value overrides one (mk/run.mk, docs/run.md).\n");
	buf_printf(mk, "ITER        ?= %ld\n", o->iters);
	buf_printf(mk, "CANDIDATES  := %ld\n", o->cands);
	buf_printf(mk, "PROPOSER    := %s\n", o->proposer);
	buf_printf(mk, "STRATEGY    := %s\n", o->strategy);
	buf_printf(mk, "SEED        := %ld\n", o->seed);
	buf_printf(mk, "HIDDEN_SEED := %ld\n", o->hseed);
	buf_printf(mk, "USE_NSIGHT  := %d\n", o->nsight);
	buf_printf(mk, "RESEARCH    := %d\n", o->research);
	buf_printf(mk, "SANITIZE    := %d\n", o->sanitize);
	if (o->parts[SPACE].src)
		buf_printf(mk, "SPACE       := workload/space.json\n");
	/* Every knob with its value, so a user sees it and can give another:
	 * make -f run.mk NAME=value. */
	buf_printf(mk, "GPUS        ?= %ld\n", o->gpus ? o->gpus : 1);
	buf_printf(mk, "LOCK_DIR    ?=\n");
	buf_printf(mk, "TIMEOUT     := %g\n", o->timeout > 0 ? o->timeout : 10);
	buf_printf(mk, "WARMUP      ?= 10\n");
	buf_printf(mk, "TIMED       ?= 100\n");
	buf_printf(mk, "REF_WARMUP  ?= 2\n");
	buf_printf(mk, "REF_TIMED   ?= 20\n");
	buf_printf(mk, "COMPILE_TIMEOUT := %g\n", o->compile_timeout);
	buf_printf(mk, "COMPILE_MEMORY := %g\n", o->compile_memory);
	buf_printf(mk, "SANDBOX     := %s\n", cko_sandbox_enabled() ? "on" : "off");
	buf_printf(mk, "KEEP_OUTPUTS := %d\n", o->keep);
	buf_printf(mk, "SOL_STOP    := %g\n", o->sol_stop);
	buf_printf(mk, "PATIENCE    := %ld\n", o->patience);
	buf_printf(mk, "MIN_GAIN    := %g\n", o->min_gain);
	buf_printf(mk, "STOP        ?= on\n");
	buf_printf(mk, "MEMORY      := %d\n", o->use_memory);
	if (o->proposals)
		buf_printf(mk, "PROPOSALS   := %s\n", abs_path(o->proposals));
	buf_printf(mk, "LAUNCHER    :=%s%s\n", o->launcher ? " " : "", o->launcher ? o->launcher : "");
	if (generate) {
		buf_puts(mk, "GENERATE    :=");
		for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
			if (!o->parts[needed[i]].src)
				buf_printf(mk, " %s", o->parts[needed[i]].name);
		buf_puts(mk, "\n");
	}
	buf_printf(mk, "include $(CKO_SHARE)/mk/run.mk\n");
	free(bin);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	init_opts o = {
		.parts = {
			[SIG] = {"signature.json", "--signature", NULL}, [CASES] = {"cases.json", "--input-cases", NULL},
			[REF] = {"reference.cu", "--reference", NULL},
			[REFL] = {"reference-launch.json", "--reference-launch", NULL},
			[INIT] = {"initial.cu", "--initial-kernel", NULL}, [INITL] = {"launch.json", "--launch", NULL},
			[DESC] = {"description.txt", "--description", NULL}, [SPACE] = {"space.json", "--space", NULL},
		},
		.results = "results",
		.iters = -1, .cands = -1, .seed = -1, .hseed = -1,
		.patience = -1, /* by the proposer, settle_defaults */
		.compile_timeout = 60, .compile_memory = 4096, .sol_stop = 0.9, .min_gain = 0.01,
		.use_memory = 1,
	};
	parse_options(argc, argv, &o);
	if (o.run_dir) {
		/* Its parent holds the folder while it is built. */
		if (cko_exists(o.run_dir))
			cko_die(CKO_BADINPUT, "--run-dir %s: exists; remove it or give another", o.run_dir);
		o.results = cko_dirname(o.run_dir);
	}
	cko_out_check(o.results);
	cko_sandbox_check(); /* before anything is made: no Landlock needs --no-sandbox */
	char *share = share_dir();
	read_config(&o);

	/* Where each part comes from: an option, --from, or the built-in workload. */
	if (o.workload)
		parts_from_workload(o.parts, o.workload, share);
	if (o.from)
		parts_from_run(o.parts, o.from);
	cko_buf missing = {0};
	check_parts(&o, &missing);

	char *run = start_run_dir(o.results);
	copy_parts(&o, run);
	settle_defaults(&o);
	write_config(&o, run, &missing);
	cko_buf mk = {0};
	write_run_mk(&o, share, missing.len > 0, &mk);
	run = place_run_dir(o.results, run, &mk, o.run_dir);
	char *q = cko_shell_quote(run);
	cko_info("created %s: run it with  make -C %s -f run.mk", run, q);
	free(q);
	printf("%s\n", run);
	return 0;
}
