/* cko-tune: the built-in proposer. From a declared space (space.json, or a
 * kernel whose launch.json declares tunables) and the history so far, it
 * writes the next k configurations nobody has tried, as candidate folders
 * the pipeline compiles and times like any other. Needs no model and no GPU. */
#include "memory.h"
#include "tune.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-tune -s space.json [-H history.json] [-i iteration] [-k count] [--seed N]\n"
		"                [--strategy auto|exhaustive|random|local] [--kernel kernel.cu -l launch.json]\n"
		"                [--memory seed.json] -o iter-dir\n"
		"       cko-tune (-s space.json | --kernel kernel.cu -l launch.json) --list\n"
		"  -s, --space space.json      the search space\n"
		"      --kernel kernel.cu      with -l, the space is that kernel's tunables\n"
		"  -l, --launch launch.json    the launch.json declaring the tunables of --kernel\n"
		"  -H, --history history.json  the run's history (cko-rank's history.json)\n"
		"  -i, --iteration iteration   the iteration being proposed (default 1)\n"
		"  -k, --count count           candidates to write, 1 to 1024 (default 1)\n"
		"      --seed N                the run's seed (default 1)\n"
		"      --strategy name         auto (the default), exhaustive, random or local\n"
		"      --memory seed.json      c0 is the remembered best of the seed (cko-docs --memory-seed), the\n"
		"                              others search around it; a seed with none changes nothing\n"
		"  -o, --output iter-dir       the iteration's folder\n"
		"      --list                  write every valid configuration to standard output instead of proposing\n"
		"  -h, --help                  print this help and exit\n");
	exit(status);
}

/* Candidate folder cJ from pick j (J = j + the slots a remembered kernel took). */
static void write_candidate(tune_state *t, const char *dir, int slot, int j)
{
	char *cdir = xasprintf("%s/c%d", dir, slot);
	char *kpath = xasprintf("%s/kernel.cu", cdir), *lpath = xasprintf("%s/launch.json", cdir),
	     *ppath = xasprintf("%s/proposal.json", cdir);
	cko_mkdir_p(cdir);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "proposer", "cko-tune");
	if (j >= t->npicks) {
		cJSON_AddStringToObject(p, "status", "none");
		cJSON_AddStringToObject(p, "note", "space exhausted");
		if (unlink(kpath) && errno != ENOENT)
			cko_die(CKO_ENV, "%s: %s", kpath, strerror(errno));
		if (unlink(lpath) && errno != ENOENT)
			cko_die(CKO_ENV, "%s: %s", lpath, strerror(errno));
	} else {
		const tune_pick *k = &t->picks[j];
		tune_point pt;
		char hash[65];
		tune_point_decode(&t->sp, k->g, &pt);
		tune_point_hash(&t->sp, &pt, hash);
		const tune_variant *v = &t->sp.var[pt.var];
		const tune_entry *par = k->parent >= 0 ? &t->h.e[k->parent] : NULL;
		cko_buf note = {0};
		tune_point_describe(&t->sp, &pt, &note);
		if (k->how && par)
			buf_printf(&note, " (from %s: %s)", par->id ? par->id : "history", k->how);
		else if (k->how)
			buf_printf(&note, " (%s: %s)", k->strategy, k->how);
		cJSON *l = tune_point_launch(&t->sp, &pt);
		cko_write_if_changed(kpath, v->src, v->srclen);
		char *text = cko_json_print(l);
		cko_write_if_changed(lpath, text, strlen(text));
		free(text);
		cJSON_Delete(l);
		cJSON_AddStringToObject(p, "status", "ok");
		cJSON_AddStringToObject(p, "note", note.s);
		if (par && par->id)
			cJSON_AddStringToObject(p, "parent", par->id);
		else
			cJSON_AddNullToObject(p, "parent");
		cJSON_AddStringToObject(p, "variant", v->name);
		cJSON_AddStringToObject(p, "hash", hash);
		buf_free(&note);
	}
	cJSON_AddStringToObject(p, "strategy", j < t->npicks ? t->picks[j].strategy : "none");
	char *text = cko_json_print(p);
	cko_write_if_changed(ppath, text, strlen(text));
	free(text);
	cJSON_Delete(p);
	free(cdir);
	free(kpath);
	free(lpath);
	free(ppath);
}

static void list_space(tune_state *t)
{
	if (t->sp.total > TUNE_COUNT_CAP)
		cko_die(CKO_BADINPUT, "%s: %llu points; --list walks at most %llu", t->sp.file,
			(unsigned long long)t->sp.total, (unsigned long long)TUNE_COUNT_CAP);
	for (uint64_t g = 0; g < t->sp.total; g++) {
		tune_point pt;
		char hash[65];
		tune_point_decode(&t->sp, g, &pt);
		if (!tune_point_valid(&t->sp, &pt))
			continue;
		tune_point_hash(&t->sp, &pt, hash);
		cJSON *o = cJSON_CreateObject(), *l = tune_point_launch(&t->sp, &pt);
		cJSON_AddNumberToObject(o, "index", (double)g);
		cJSON_AddStringToObject(o, "variant", t->sp.var[pt.var].name);
		cJSON_AddStringToObject(o, "hash", hash);
		cJSON_AddItemToObject(o, "defines", cJSON_DetachItemFromObject(l, "defines"));
		char *s = cJSON_PrintUnformatted(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
		cJSON_Delete(l);
	}
	if (fflush(stdout) || ferror(stdout))
		cko_die(CKO_ENV, "stdout: %s", strerror(errno));
}

static int64_t int_arg(const char *opt, const char *s, int64_t lo, int64_t hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		cko_die(CKO_BADINPUT, "%s %s: expected an integer from %lld to %lld", opt, s, (long long)lo,
			(long long)hi);
	return v;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	enum { O_SEED = 256, O_STRATEGY, O_KERNEL, O_LIST, O_MEMORY };
	static const struct option lo[] = {
		{"space", required_argument, 0, 's'},      {"history", required_argument, 0, 'H'},
		{"iteration", required_argument, 0, 'i'},  {"count", required_argument, 0, 'k'},
		{"seed", required_argument, 0, O_SEED},    {"strategy", required_argument, 0, O_STRATEGY},
		{"kernel", required_argument, 0, O_KERNEL}, {"launch", required_argument, 0, 'l'},
		{"output", required_argument, 0, 'o'},     {"list", no_argument, 0, O_LIST},
		{"memory", required_argument, 0, O_MEMORY},
		{"help", no_argument, 0, 'h'},             {0, 0, 0, 0},
	};
	const char *space = NULL, *history = NULL, *kernel = NULL, *launch = NULL, *out = NULL, *strategy = "auto";
	const char *memory = NULL;
	int64_t iteration = 1, k = 1;
	uint64_t seed = 1;
	int list = 0, c;
	while ((c = getopt_long(argc, argv, "s:H:i:k:l:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': space = optarg; break;
		case 'H': history = optarg; break;
		case 'i': iteration = int_arg("-i", optarg, 0, 1000000000); break;
		case 'k': k = int_arg("-k", optarg, 1, 1024); break;
		case O_SEED: seed = (uint64_t)int_arg("--seed", optarg, 0, INT64_MAX); break;
		case O_STRATEGY: strategy = optarg; break;
		case O_KERNEL: kernel = optarg; break;
		case 'l': launch = optarg; break;
		case 'o': out = optarg; break;
		case O_LIST: list = 1; break;
		case O_MEMORY: memory = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || (!space == !kernel) || (!kernel != !launch) || (!out && !list))
		usage(2);
	cko_out_check(out);
	if (strcmp(strategy, "auto") && strcmp(strategy, "exhaustive") && strcmp(strategy, "random") &&
	    strcmp(strategy, "local"))
		cko_die(CKO_BADINPUT, "--strategy %s: expected auto, exhaustive, random or local", strategy);

	tune_state t = {.k = (int)k, .seed = seed};
	if (space)
		tune_space_load(space, &t.sp);
	else
		tune_space_from_kernel(kernel, launch, &t.sp);
	if (list) {
		list_space(&t);
		tune_space_free(&t.sp);
		return CKO_OK;
	}
	tune_history_load(history, iteration, &t.h);
	/* A remembered best: candidate c0, an origin of the search and seen. */
	cJSON *mseed = memory ? cko_json_load(memory) : NULL;
	char *seed_id = NULL, seed_hash[65];
	int reserved = 0;
	if (mseed && !strcmp(cko_jstr_opt(mseed, "status", ""), "ok") && cJSON_IsString(cko_jget(mseed, "kernel")) &&
	    cJSON_IsObject(cko_jget(mseed, "launch"))) {
		const char *src = cko_jget(mseed, "kernel")->valuestring;
		cko_candidate_hash(src, strlen(src), cko_jget(mseed, "launch"), seed_hash);
		seed_id = xasprintf("iter-%03lld/c0", (long long)iteration);
		tune_history_add_memory(&t.h, seed_id, seed_hash, cko_jget(cko_jget(mseed, "launch"), "defines"));
		reserved = 1;
		t.k = (int)k - 1;
	}
	cko_rng_seed(&t.rng, cko_seed_mix(seed, "iter", (uint64_t)iteration));
	t.picks = xcalloc((size_t)k + 1, sizeof *t.picks);

	/* The manifest goes last: while it is missing, the iteration is not done. */
	char *manifest = xasprintf("%s/proposed.json", out);
	if (unlink(manifest) && errno != ENOENT)
		cko_die(CKO_ENV, "%s: %s", manifest, strerror(errno));

	if (reserved) {
		char *c0 = xasprintf("%s/c0", out);
		if (cko_memory_candidate(memory, c0) != CKO_OK)
			cko_die(CKO_BADINPUT, "%s: the remembered kernel could not be written", memory);
		free(c0);
	}
	tune_prepare(&t);
	const char *how = tune_resolve(&t, strategy, iteration);
	if (!strcmp(strategy, "auto"))
		tune_starts(&t);
	int nstart = t.npicks;
	if (!strcmp(how, "exhaustive"))
		tune_exhaustive(&t);
	else if (!strcmp(how, "random"))
		tune_random(&t, NULL);
	else
		tune_local(&t, iteration);
	cko_info("%s: %s over %llu configurations (%llu seen): %d of %d proposed%s", t.sp.file, how,
		 (unsigned long long)t.size, (unsigned long long)t.nseen, t.npicks, t.k,
		 nstart ? " (the space's starts first)" : "");

	cko_mkdir_p(out);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "tool", "cko-tune");
	cJSON_AddNumberToObject(m, "iteration", (double)iteration);
	cJSON *cands = cJSON_AddArrayToObject(m, "candidates");
	for (int j = 0; j < (int)k; j++) {
		if (j >= reserved)
			write_candidate(&t, out, j, j - reserved);
		char name[32];
		snprintf(name, sizeof name, "c%d", j);
		cJSON_AddItemToArray(cands, cJSON_CreateString(name));
	}
	cJSON_AddStringToObject(m, "strategy", how);
	cJSON_AddNumberToObject(m, "space_size", (double)t.size);
	cJSON_AddNumberToObject(m, "seen", (double)t.nseen);
	if (t.sp.nstarts)
		cJSON_AddNumberToObject(m, "starts", nstart);
	if (reserved)
		cJSON_AddStringToObject(m, "memory", cko_jstr_opt(mseed, "entry", "?"));
	cko_json_write(manifest, m);
	cJSON_Delete(m);

	free(manifest);
	tune_state_free(&t);
	cJSON_Delete(mseed);
	free(seed_id);
	return CKO_OK;
}
