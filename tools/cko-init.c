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

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
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
	part parts[NPARTS] = {
		[SIG] = {"signature.json", "--signature", NULL}, [CASES] = {"cases.json", "--input-cases", NULL},
		[REF] = {"reference.cu", "--reference", NULL}, [REFL] = {"reference-launch.json", "--reference-launch", NULL},
		[INIT] = {"initial.cu", "--initial-kernel", NULL}, [INITL] = {"launch.json", "--launch", NULL},
		[DESC] = {"description.txt", "--description", NULL}, [SPACE] = {"space.json", "--space", NULL},
	};
	const char *workload = NULL, *from = NULL, *desc = NULL, *config_path = NULL, *model = NULL;
	const char *strategy = NULL, *proposals = NULL, *results = "results", *launcher = NULL;
	const char *run_dir = NULL;
	long iters = -1, cands = -1, gpus = 0, seed = -1, hseed = -1;
	double timeout = 0, compile_timeout = 60, compile_memory = 4096, sol_stop = 0.9, min_gain = 0.01;
	long patience = -1; /* by the proposer, below */
	int nsight = 0, research = 0, sanitize = 0, keep = 0, c, supplied_ref = 0, use_memory = 1;
	char *end;
#define NUM(var, lo_, what)                                                                                        \
	do {                                                                                                       \
		var = strtol(optarg, &end, 10);                                                                    \
		if (*end || var < (lo_))                                                                           \
			cko_die(CKO_BADINPUT, "%s %s: expected an integer >= %d", what, optarg, (int)(lo_));        \
	} while (0)
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_WORKLOAD: workload = optarg; break;
		case O_FROM: from = optarg; break;
		case O_DESC: desc = optarg; break;
		case O_SIG: parts[SIG].src = abs_path(optarg); break;
		case O_REF: parts[REF].src = abs_path(optarg); supplied_ref = 1; break;
		case O_REFL: parts[REFL].src = abs_path(optarg); break;
		case O_INIT: parts[INIT].src = abs_path(optarg); break;
		case O_LAUNCH: parts[INITL].src = abs_path(optarg); break;
		case O_CASES: parts[CASES].src = abs_path(optarg); break;
		case O_SPACE: parts[SPACE].src = abs_path(optarg); break;
		case O_CONFIG: config_path = optarg; break;
		case O_MODEL: model = optarg; break;
		case O_ITERS: NUM(iters, 0, "--max-iterations"); break;
		case O_CANDS: NUM(cands, 1, "--candidates"); break;
		case O_STRAT: strategy = optarg; break;
		case O_SEED: NUM(seed, 0, "--seed"); break;
		case O_HSEED: NUM(hseed, 0, "--hidden-seed"); break;
		case O_NSIGHT: nsight = 1; break;
		case O_RESEARCH: research = 1; break;
		case O_SANITIZE: sanitize = 1; break;
		case O_GPUS: NUM(gpus, 1, "--gpus"); break;
		case O_TIMEOUT:
			timeout = strtod(optarg, &end);
			if (*end || !(timeout > 0))
				cko_die(CKO_BADINPUT, "--timeout %s: expected seconds > 0", optarg);
			break;
		case O_CTIMEOUT:
			compile_timeout = strtod(optarg, &end);
			if (*end || !(compile_timeout > 0) || compile_timeout > 86400)
				cko_die(CKO_BADINPUT, "--compile-timeout %s: expected seconds > 0", optarg);
			break;
		case O_CMEMORY:
			compile_memory = strtod(optarg, &end);
			if (*end || !(compile_memory >= 64))
				cko_die(CKO_BADINPUT, "--compile-memory %s: expected megabytes >= 64", optarg);
			break;
		case O_NOSANDBOX: cko_sandbox_disable(); break;
		case O_KEEP: keep = 1; break;
		case O_NOMEMORY: use_memory = 0; break;
		case O_SOLSTOP:
			sol_stop = strtod(optarg, &end);
			if (*end || !(sol_stop >= 0 && sol_stop <= 1))
				cko_die(CKO_BADINPUT, "--sol-stop %s: expected a fraction from 0 (never) to 1", optarg);
			break;
		case O_PATIENCE:
			NUM(patience, 0, "--patience");
			if (patience > CKO_MAX_ITER)
				cko_die(CKO_BADINPUT, "--patience %s: at most %d", optarg, CKO_MAX_ITER);
			break;
		case O_MINGAIN:
			min_gain = strtod(optarg, &end);
			if (*end || !(min_gain >= 0 && min_gain < 10))
				cko_die(CKO_BADINPUT, "--min-gain %s: expected a fraction >= 0 (0.01 is 1%%)", optarg);
			break;
		case O_PROPOSALS: proposals = optarg; break;
		case O_RESULTS: results = optarg; break;
		case O_RUNDIR: run_dir = optarg; break;
		case O_LAUNCHER:
			if (strchr(optarg, '\'') || strchr(optarg, '$') || strchr(optarg, '\n'))
				cko_die(CKO_BADINPUT, "--launcher: no quotes, $ or newlines (it is split on blanks)");
			launcher = optarg;
			break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (run_dir) {
		/* Its parent holds the folder while it is built. */
		if (cko_exists(run_dir))
			cko_die(CKO_BADINPUT, "--run-dir %s: exists; remove it or give another", run_dir);
		results = cko_dirname(run_dir);
	}
	cko_out_check(results);
	cko_sandbox_check(); /* before anything is made: no Landlock needs --no-sandbox */
	char *share = share_dir();

	/* A config file supplies defaults (and the model's settings). */
	cJSON *cfg = config_path ? cko_json_load(config_path) : cJSON_CreateObject();
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
	if (!model)
		model = cko_jstr_opt(cko_jget(cfg, "model_settings"), "model", cko_jstr_opt(cfg, "model", NULL));
	const char *iname = "--max-iterations", *cname = "--candidates";
	if (iters < 0) {
		iters = cko_jint_opt(cfg, "max_iterations", 7, config_path, "");
		iname = config_path ? xasprintf("%s: max_iterations", config_path) : iname;
	}
	if (cands < 0) {
		cands = cko_jint_opt(cfg, "candidates", 1, config_path, "");
		cname = config_path ? xasprintf("%s: candidates", config_path) : cname;
	}
	/* The bounds run.mk checks too: make reads the rules of every
	 * candidate each time it starts (about 1 ms each). */
	if (iters < 0 || iters > CKO_MAX_ITER)
		cko_die(CKO_BADINPUT, "%s %ld: expected 0 to %d (make reads every iteration's rules each time it "
			"starts); for more, continue from a run's best with cko-init --from", iname, iters, CKO_MAX_ITER);
	if (cands < 1 || cands > CKO_MAX_CANDIDATES)
		cko_die(CKO_BADINPUT, "%s %ld: expected 1 to %d an iteration", cname, cands, CKO_MAX_CANDIDATES);
	if (iters * cands > CKO_MAX_CANDIDATES_TOTAL)
		cko_die(CKO_BADINPUT, "%s %ld with %s %ld: at most %d candidates in all (make reads every candidate's "
			"rules each time it starts)", iname, iters, cname, cands, CKO_MAX_CANDIDATES_TOTAL);
	if (!strategy)
		strategy = cko_jstr_opt(cfg, "strategy", "auto");
	if (strcmp(strategy, "auto") && strcmp(strategy, "exhaustive") && strcmp(strategy, "random") &&
	    strcmp(strategy, "local"))
		cko_die(CKO_BADINPUT, "--strategy %s: expected auto, exhaustive, random or local", strategy);

	/* Where each part comes from: an option, --from, or the built-in workload. */
	if (workload) {
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
	if (from) {
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
	/* Check what was given before making anything. */
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
	cko_buf missing = {0};
	static const int needed[] = {SIG, CASES, REF, REFL, INIT, INITL};
	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
		if (!parts[needed[i]].src)
			buf_printf(&missing, "%s%s", missing.len ? ", " : "", parts[needed[i]].name);
	if (missing.len && !model)
		cko_die(CKO_BADINPUT,
			"missing %s: give them (--signature, --input-cases, --reference, --initial-kernel, --launch, "
			"--reference-launch), a built-in --workload, or a model (--model) to generate them",
			missing.s);
	if (missing.len && !desc && !parts[DESC].src)
		cko_die(CKO_BADINPUT, "missing %s: a model can generate them from --description", missing.s);

	char *run = start_run_dir(results);
	char *wdir = xasprintf("%s/workload", run);
	cko_mkdir_p(wdir);
	for (int i = 0; i < NPARTS; i++) {
		if (!parts[i].src || i == SPACE)
			continue;
		char *to = xasprintf("%s/%s", wdir, parts[i].name);
		cko_copy_file(parts[i].src, to);
		free(to);
	}
	if (supplied_ref) {
		char *to = xasprintf("%s/supplied-reference.cu", run);
		cko_copy_file(parts[REF].src, to);
		free(to);
	}
	if (desc) {
		char *to = xasprintf("%s/description.txt", wdir);
		if (desc[0] == '@')
			cko_copy_file(desc + 1, to);
		else
			cko_write_file(to, desc, strlen(desc));
		free(to);
	}
	if (parts[SPACE].src)
		copy_space(parts[SPACE].src, wdir);

	if (hseed < 0)
		hseed = (long)random_seed();
	if (seed < 0)
		seed = 1;
	const char *proposer = model ? "llm" : proposals ? "manual" : "tune";
	/* The tuner's gains come in jumps after flat iterations (a local
	 * search leaves a plateau only once a neighbourhood is used up: on the
	 * H200, make demo's sgemm found nothing in iterations 2-4, then 7% in
	 * 5), so it waits longer than a model, whose every turn is a new idea. */
	if (patience < 0)
		patience = !strcmp(proposer, "tune") ? TUNE_PATIENCE : MODEL_PATIENCE;
	if (!model)
		cko_info("no model configured: proposals come from the built-in tuner (cko-tune)%s",
			 proposals ? " or the proposal folder" : "");

	cJSON *conf = cJSON_CreateObject();
	cJSON_AddStringToObject(conf, "tool", "cko-init");
	cJSON_AddStringToObject(conf, "version", CKO_VERSION);
	time_t now = time(NULL);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cJSON_AddStringToObject(conf, "created", stamp);
	cJSON_AddStringToObject(conf, "workload", workload ? workload : from ? "continued" : "custom");
	cJSON_AddStringToObject(conf, "proposer", proposer);
	if (model)
		cJSON_AddStringToObject(conf, "model", model);
	cJSON_AddNumberToObject(conf, "max_iterations", (double)iters);
	cJSON_AddNumberToObject(conf, "candidates", (double)cands);
	cJSON_AddStringToObject(conf, "strategy", strategy);
	cJSON_AddNumberToObject(conf, "seed", (double)seed);
	cJSON_AddNumberToObject(conf, "hidden_seed", (double)hseed);
	cJSON_AddBoolToObject(conf, "use_nsight", nsight);
	cJSON_AddBoolToObject(conf, "nvidia_research", research);
	cJSON_AddBoolToObject(conf, "sanitize", sanitize);
	cJSON_AddStringToObject(conf, "sandbox", cko_sandbox_describe());
	cJSON_AddNumberToObject(conf, "compile_timeout_s", compile_timeout);
	cJSON_AddNumberToObject(conf, "compile_memory_mb", compile_memory);
	cJSON_AddBoolToObject(conf, "memory", use_memory);
	cJSON *bud = cJSON_AddObjectToObject(conf, "budget");
	cJSON_AddNumberToObject(bud, "sol_stop", sol_stop);
	cJSON_AddNumberToObject(bud, "patience", (double)patience);
	cJSON_AddNumberToObject(bud, "min_gain", min_gain);
	if (missing.len)
		cJSON_AddStringToObject(conf, "generate", missing.s);
	cJSON *srcs = cJSON_AddObjectToObject(conf, "sources");
	for (int i = 0; i < NPARTS; i++)
		if (parts[i].src)
			cJSON_AddStringToObject(srcs, parts[i].name, parts[i].src);
	if (from)
		cJSON_AddStringToObject(conf, "from", from);
	/* Model settings travel, the key never does (it is read at call time). */
	const cJSON *ms = cko_jget(cfg, "model_settings");
	if (ms)
		cJSON_AddItemToObject(conf, "model_settings", cJSON_Duplicate(ms, 1));
	char *cpath = xasprintf("%s/config.json", run);
	cko_json_write(cpath, conf);
	free(cpath);

	char *bin = NULL;
	{
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			exe[n] = 0;
			bin = cko_dirname(exe);
		}
	}
	cko_buf mk = {0};
	buf_printf(&mk, "made by cko-init %s on %s.\n", CKO_VERSION, stamp);
	buf_printf(&mk, "# Run it in this folder:  make -f run.mk [ITER=n] [-j n]\n");
	buf_printf(&mk, "CKO_BIN     := %s\n", bin ? bin : "");
	buf_printf(&mk, "CKO_SHARE   := %s\n", share);
	buf_printf(&mk, "# Every setting with its value; make -f run.mk NAME=value overrides one (mk/run.mk, docs/run.md).\n");
	buf_printf(&mk, "ITER        ?= %ld\n", iters);
	buf_printf(&mk, "CANDIDATES  := %ld\n", cands);
	buf_printf(&mk, "PROPOSER    := %s\n", proposer);
	buf_printf(&mk, "STRATEGY    := %s\n", strategy);
	buf_printf(&mk, "SEED        := %ld\n", seed);
	buf_printf(&mk, "HIDDEN_SEED := %ld\n", hseed);
	buf_printf(&mk, "USE_NSIGHT  := %d\n", nsight);
	buf_printf(&mk, "RESEARCH    := %d\n", research);
	buf_printf(&mk, "SANITIZE    := %d\n", sanitize);
	if (parts[SPACE].src)
		buf_printf(&mk, "SPACE       := workload/space.json\n");
	/* Every knob with its value, so a user sees it and can give another:
	 * make -f run.mk NAME=value. */
	buf_printf(&mk, "GPUS        ?= %ld\n", gpus ? gpus : 1);
	buf_printf(&mk, "LOCK_DIR    ?=\n");
	buf_printf(&mk, "TIMEOUT     := %g\n", timeout > 0 ? timeout : 10);
	buf_printf(&mk, "WARMUP      ?= 10\n");
	buf_printf(&mk, "TIMED       ?= 100\n");
	buf_printf(&mk, "REF_WARMUP  ?= 2\n");
	buf_printf(&mk, "REF_TIMED   ?= 20\n");
	buf_printf(&mk, "COMPILE_TIMEOUT := %g\n", compile_timeout);
	buf_printf(&mk, "COMPILE_MEMORY := %g\n", compile_memory);
	buf_printf(&mk, "SANDBOX     := %s\n", cko_sandbox_enabled() ? "on" : "off");
	buf_printf(&mk, "KEEP_OUTPUTS := %d\n", keep);
	buf_printf(&mk, "SOL_STOP    := %g\n", sol_stop);
	buf_printf(&mk, "PATIENCE    := %ld\n", patience);
	buf_printf(&mk, "MIN_GAIN    := %g\n", min_gain);
	buf_printf(&mk, "STOP        ?= on\n");
	buf_printf(&mk, "MEMORY      := %d\n", use_memory);
	if (proposals)
		buf_printf(&mk, "PROPOSALS   := %s\n", abs_path(proposals));
	buf_printf(&mk, "LAUNCHER    :=%s%s\n", launcher ? " " : "", launcher ? launcher : "");
	if (missing.len) {
		buf_puts(&mk, "GENERATE    :=");
		for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
			if (!parts[needed[i]].src)
				buf_printf(&mk, " %s", parts[needed[i]].name);
		buf_puts(&mk, "\n");
	}
	buf_printf(&mk, "include $(CKO_SHARE)/mk/run.mk\n");
	run = place_run_dir(results, run, &mk, run_dir);
	char *q = cko_shell_quote(run);
	cko_info("created %s: run it with  make -C %s -f run.mk", run, q);
	free(q);
	printf("%s\n", run);
	return 0;
}
