/* fuzz-answer.c: libFuzzer harness for the extraction and local checks of
 * a model's answer (llm_answer.c, llm_check.c), which parse untrusted
 * model output. The first input byte chooses the answer kind (low nibble,
 * modulo LLM_NKINDS) and the fenced flag (bit 0x10): '0'..'4' are the
 * kinds fenced, '@'..'D' the same kinds not fenced; the rest of the input
 * is the reply's content, not NUL-terminated. The content goes through
 * llm_answer_extract the way cko-llm takes it (the kernel then through
 * llm_check_entry, the launch through llm_launch_normalize again and
 * llm_check_launch), and, on its own, through llm_fenced_blocks (with
 * room for 64 blocks, for 1 and for none), llm_check_entry as kernel
 * source, and llm_launch_normalize and llm_check_launch when it parses as
 * JSON. The launch check reads a tiny cases folder that
 * LLVMFuzzerInitialize writes under /tmp once (removed at exit). Nothing
 * here recovers from cko_die, so leaks are checked: every refusal must be
 * a return with a message. */
#include "llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The signature and cases the launch rules are checked against (those of
 * tests/data/llm): two visible cases and a hidden one. */
static const char sig_text[] =
	"{\"entry\": \"scale2d\", \"params\": ["
	"{\"name\": \"M\", \"kind\": \"scalar\", \"dtype\": \"i32\"},"
	"{\"name\": \"N\", \"kind\": \"scalar\", \"dtype\": \"i32\"},"
	"{\"name\": \"X\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"in\", \"shape\": [\"M\", \"N\"]},"
	"{\"name\": \"Y\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"out\", \"shape\": [\"M\", \"N\"]}]}";
static const char *const case_files[][2] = {
	{"index.json", "[{\"name\": \"odd\", \"kind\": \"correctness\", \"hidden\": false, \"sets\": 1},"
		       " {\"name\": \"big\", \"kind\": \"performance\", \"hidden\": false, \"sets\": 2},"
		       " {\"name\": \"hidden-1\", \"kind\": \"correctness\", \"hidden\": true, \"sets\": 1}]"},
	{"odd/case.json", "{\"name\": \"odd\", \"kind\": \"correctness\", \"scalars\": {\"M\": 7, \"N\": 13}}"},
	{"big/case.json", "{\"name\": \"big\", \"kind\": \"performance\", \"scalars\": {\"M\": 4096, \"N\": 4096}}"},
	{"hidden-1/case.json", "{\"name\": \"hidden-1\", \"kind\": \"correctness\", \"hidden\": true,"
			       " \"scalars\": {\"M\": 3, \"N\": 289}}"},
};
#define NFILES (sizeof case_files / sizeof case_files[0])
static cko_signature sig;
static char cases_dir[64];

static void cleanup(void)
{
	char p[160];
	for (size_t i = NFILES; i-- > 0;) {
		snprintf(p, sizeof p, "%s/%s", cases_dir, case_files[i][0]);
		unlink(p);
		char *slash = strrchr(p, '/');
		*slash = 0;
		if (strcmp(p, cases_dir))
			rmdir(p);
	}
	rmdir(cases_dir);
	cko_signature_free(&sig);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	llm_kind k;
	if (llm_kind_parse("nosuch", &k))
		abort();
	char err[256];
	cJSON *s = cko_json_parse(sig_text, sizeof sig_text - 1, err, sizeof err);
	if (!s)
		abort();
	cko_signature_from_json(s, "sig.json", &sig);
	cJSON_Delete(s);
	snprintf(cases_dir, sizeof cases_dir, "/tmp/cko-fuzz-answer.XXXXXX");
	if (!mkdtemp(cases_dir))
		abort();
	for (size_t i = 0; i < NFILES; i++) {
		char p[160];
		snprintf(p, sizeof p, "%s/%s", cases_dir, case_files[i][0]);
		char *slash = strrchr(p, '/');
		*slash = 0;
		mkdir(p, 0700);
		*slash = '/';
		FILE *f = fopen(p, "w");
		if (!f || fputs(case_files[i][1], f) < 0 || fclose(f))
			abort();
	}
	atexit(cleanup);
	return 0;
}

/* The launch rules of a launch object, which must be in launch.json form
 * already: normalizing it again changes nothing. (Compared as printed:
 * cJSON_Compare finds an infinity, 1e999 in the input, unequal to itself.) */
static void check_launch(const cJSON *launch)
{
	char err[512] = "";
	cJSON *again = llm_launch_normalize(launch, err, sizeof err);
	if (!again)
		abort();
	char *p1 = cJSON_PrintUnformatted(launch), *p2 = cJSON_PrintUnformatted(again);
	if (!p1 || !p2 || strcmp(p1, p2))
		abort();
	cJSON_free(p1);
	cJSON_free(p2);
	cJSON_Delete(again);
	if (llm_check_launch(launch, &sig, cases_dir, err, sizeof err) && !err[0])
		abort();
}

/* An extracted answer has the shape llm.h promises. */
static void check_answer(llm_kind kind, const cJSON *a)
{
	const cJSON *note = cko_jget(a, "note");
	if (!cJSON_IsString(note) || strlen(note->valuestring) > LLM_NOTE_MAX)
		abort();
	if (!llm_kind_is_kernel(kind)) {
		if (!cJSON_IsObject(cko_jget(a, kind == LLM_SIGNATURE ? "signature" : "cases")))
			abort();
		return;
	}
	const cJSON *k = cko_jget(a, "kernel");
	if (!cJSON_IsString(k) || !*k->valuestring || strlen(k->valuestring) > LLM_KERNEL_MAX)
		abort();
	char err[512] = "";
	if (llm_check_entry(k->valuestring, strlen(k->valuestring), "scale2d", err, sizeof err) && !err[0])
		abort();
	const cJSON *l = cko_jget(a, "launch");
	if (l) {
		if (!cJSON_IsObject(l))
			abort();
		check_launch(l);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	llm_kind kind = (llm_kind)((data[0] & 0x0f) % LLM_NKINDS);
	int fenced = (data[0] & 0x10) != 0;
	llm_kind k2;
	if (!llm_kind_parse(llm_kind_name(kind), &k2) || k2 != kind)
		abort();
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	/* The answer, as cko-llm takes it. */
	const char *how = NULL;
	char err[512] = "";
	cJSON *a = llm_answer_extract(kind, text, len, fenced, &how, err, sizeof err);
	if (!how || (strcmp(how, "json") && strcmp(how, "fenced")))
		abort();
	if (a)
		check_answer(kind, a);
	else if (!err[0])
		abort();
	cJSON_Delete(a);

	/* The blocks lie within the text; a shorter array holds the first. */
	llm_block b[64], first;
	int n = llm_fenced_blocks(text, len, b, 64);
	if (n < 0 || n > 64)
		abort();
	for (int i = 0; i < n; i++)
		if (b[i].start > len || b[i].len > len - b[i].start || strlen(b[i].lang) >= sizeof b[i].lang ||
		    (i && b[i].start < b[i - 1].start + b[i - 1].len))
			abort();
	int n1 = llm_fenced_blocks(text, len, &first, 1);
	if (n1 != (n > 0) || (n1 && (first.start != b[0].start || first.len != b[0].len ||
				     strcmp(first.lang, b[0].lang))))
		abort();
	if (llm_fenced_blocks(text, len, b, 0) != 0)
		abort();

	/* The whole text as kernel source. */
	err[0] = 0;
	if (llm_check_entry(text, len, "scale2d", err, sizeof err) && !err[0])
		abort();

	/* The whole text as a launch object, either form. */
	cJSON *root = cko_json_parse(text, len, err, sizeof err);
	if (root) {
		err[0] = 0;
		cJSON *l = llm_launch_normalize(root, err, sizeof err);
		if (l)
			check_launch(l);
		else if (!err[0])
			abort();
		cJSON_Delete(l);
		cJSON *copy = cJSON_Duplicate(root, 1);
		llm_drop_nulls(copy);
		cJSON_Delete(copy);
		cJSON_Delete(root);
	}
	return 0;
}
