/* cko.h: the one header of the cko harness library (libcko.a).
 *
 * Host helpers (errors, files, JSON, .npy, expressions, hashing, random
 * streams, comparison, statistics) and the GPU side (driver API loaded at
 * run time, NVRTC, buffers with guards and poison). Every tool includes only
 * this header and <cjson/cJSON.h> through it. */
#ifndef CKO_H
#define CKO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define CKO_VERSION "0.1.0"

/* Exit statuses, shared by every tool (docs/formats.md, DESIGN.md). */
enum {
	CKO_OK = 0,      /* success, positive verdict */
	CKO_VERDICT = 1, /* negative verdict about the candidate */
	CKO_BADINPUT = 2,/* bad usage or bad input */
	CKO_ENV = 3,     /* environment failure: no GPU, driver, network */
};

/* ---- err.c: diagnostics, prefixed with the tool's name, on stderr ---- */
void cko_setprog(const char *argv0);
const char *cko_prog(void);
/* argv[0] as given to cko_setprog (NULL before). */
const char *cko_argv0(void);
_Noreturn void cko_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text as it may be shown on a terminal: C0 controls but newline and tab,
 * DEL and bytes that are no UTF-8 become \xNN, C1 controls \u00NN; out
 * needs 4 * n + 1 bytes. Returns the length written. cko_die, cko_warn
 * and cko_info show their messages so. */
size_t cko_visible(char *out, const char *in, size_t n);
char *cko_text_visible(const char *s); /* allocated */
void cko_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress on stderr unless CKO_QUIET is set in the environment. */
void cko_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs fn(arg); if it calls cko_die, returns that status (>0) with the
 * message in err instead of exiting. For validating untrusted input with
 * the same code that checks trusted files. Memory allocated by fn before
 * the failure is leaked: keep it for small, bounded work. */
int cko_try(void (*fn)(void *), void *arg, char *err, size_t errlen);
/* Called by cko_die before exiting (e.g. to write a partial result). */
void cko_atexit_die(void (*fn)(int status));

/* ---- mem.c: allocation that dies with status 3 on exhaustion ---- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable string buffer. */
typedef struct {
	char *s;
	size_t len, cap;
} cko_buf;
void buf_add(cko_buf *b, const char *s, size_t n);
/* The largest length <= max of s (n bytes) that does not end inside a
 * UTF-8 character: for cutting text that goes on into JSON and prompts. */
size_t cko_utf8_cut(const char *s, size_t n, size_t max);
void buf_puts(cko_buf *b, const char *s);
void buf_printf(cko_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(cko_buf *b);

/* ---- fs.c: files ---- */
/* Reads a whole file (at most max bytes; "-" is stdin). Dies with status 2
 * naming the file when it is missing, unreadable or too large. The result
 * is NUL-terminated. */
char *cko_read_file(const char *path, size_t max, size_t *len);
/* Same, returning NULL and setting errbuf instead of dying. */
char *cko_try_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* Writes atomically: temporary file PATH.tmp.PID.N in the same folder, then
 * rename; such temporaries of PATH left by dead processes are removed first.
 * "-" writes to stdout; a device or FIFO (or a link to one) is written in
 * place, never replaced. Dies with status 3 on an I/O error. */
void cko_write_file(const char *path, const void *data, size_t len);
/* The same for two pieces written one after the other (header + data). */
void cko_write_file2(const char *path, const void *data, size_t len, const void *data2, size_t len2);
/* Writes only if the content differs, so make sees no newer file.
 * Returns 1 if written. */
int cko_write_if_changed(const char *path, const void *data, size_t len);
/* Copies a file (at most 64 MiB) atomically; dies naming it on trouble. */
void cko_copy_file(const char *from, const char *to);
void cko_mkdir_p(const char *path);
/* An output named on the command line (a file, or a folder the tool makes)
 * must be in an existing folder: dies with status 2 naming it otherwise.
 * Tools create only their own output folder and what is inside it. */
void cko_out_check(const char *path);
/* s as one shell word: unchanged when it holds only safe characters, else
 * in single quotes (a ' as '\''); for commands printed as hints. Allocated. */
char *cko_shell_quote(const char *s);
int cko_exists(const char *path);
/* A file's identity for a record made from it: {"bytes", "mtime_ns"};
 * cko_file_stamp_matches: 1 if path still has them. */
cJSON *cko_file_stamp(const char *path);
int cko_file_stamp_matches(const cJSON *stamp, const char *path);
int cko_is_dir(const char *path);
/* Folder part of a path ("." if none); freshly allocated. */
char *cko_dirname(const char *path);
/* rel resolved against base_dir unless rel is absolute; allocated. */
char *cko_path_join(const char *base_dir, const char *rel);
/* Path of target relative to the folder from_dir (both relative to the
 * current folder or both absolute); allocated. */
char *cko_path_relative(const char *from_dir, const char *target);
/* Sorted names of the entries of a folder ending in suffix ("" for all). */
char **cko_list_dir(const char *dir, const char *suffix, int *n);
void cko_free_list(char **v, int n);
double cko_now(void); /* monotonic seconds */
/* The folder this program was started from: argv[0]'s when it holds a
 * slash, else the PATH entry that holds this very program, else that of
 * /proc/self/exe. A folder of links to the tools counts as its own. */
char *cko_self_dir(void);
/* Where to run the cko tool NAME (a "cko-" name without a slash): beside
 * this program (cko_self_dir, then the folder of /proc/self/exe), so that
 * tools find their siblings whatever PATH holds; else NAME itself, for a
 * PATH lookup. Other names come back as they are. Allocated. */
char *cko_tool_path(const char *name);

/* ---- json.c: cJSON with file-and-field errors ---- */
#define CKO_JSON_MAX (64u << 20)
/* Loads and parses a JSON file (bounded size); dies with status 2 naming the
 * file, line and column on a syntax error or duplicate key. */
cJSON *cko_json_load(const char *path);
/* Parses a buffer; NULL with a message in err on failure. */
cJSON *cko_json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Dies with status 2: "FILE: FIELD: message". */
_Noreturn void cko_jfail(const char *file, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Rejects keys of obj not in the NULL-terminated list. */
void cko_jkeys(const cJSON *obj, const char *file, const char *field, const char *const *allowed);
/* Case-sensitive lookups. The "req" variants die naming file and field. */
const cJSON *cko_jget(const cJSON *obj, const char *key);
const cJSON *cko_jreq(const cJSON *obj, const char *key, const char *file, const char *field);
const char *cko_jstr(const cJSON *obj, const char *key, const char *file, const char *field);
const char *cko_jstr_opt(const cJSON *obj, const char *key, const char *dflt);
double cko_jnum(const cJSON *obj, const char *key, const char *file, const char *field);
double cko_jnum_opt(const cJSON *obj, const char *key, double dflt);
/* An integer-valued number (exactly representable). */
int64_t cko_jint(const cJSON *obj, const char *key, const char *file, const char *field);
int64_t cko_jint_opt(const cJSON *obj, const char *key, int64_t dflt, const char *file, const char *field);
/* Serializes with a trailing newline and writes atomically. */
void cko_json_write(const char *path, const cJSON *obj);
int cko_json_write_if_changed(const char *path, const cJSON *obj);
char *cko_json_print(const cJSON *obj); /* allocated, with newline */
/* Whether an array holds the string s. */
int cko_json_array_has(const cJSON *arr, const char *s);
/* Builds "parent.key" / "parent[i]" field names for messages (static ring). */
const char *cko_field(const char *parent, const char *key);
const char *cko_field_i(const char *parent, int i);

/* ---- dtype.c ---- */
typedef enum {
	CKO_F16, CKO_F32, CKO_F64,
	CKO_I8, CKO_I16, CKO_I32, CKO_I64,
	CKO_U8, CKO_U16, CKO_U32, CKO_U64,
	CKO_NDTYPES
} cko_dtype;
int cko_dtype_parse(const char *name, cko_dtype *out); /* "f32" -> CKO_F32; 0 on failure */
const char *cko_dtype_name(cko_dtype t);
size_t cko_dtype_size(cko_dtype t);
const char *cko_dtype_descr(cko_dtype t);             /* "<f4" */
int cko_dtype_from_descr(const char *descr, cko_dtype *out);
int cko_dtype_is_float(cko_dtype t);
int cko_dtype_is_signed(cko_dtype t);
/* Element i as double (f16 converted exactly). */
double cko_elem_get(cko_dtype t, const void *data, size_t i);
/* Stores v at element i, rounding to nearest (integers saturate). */
void cko_elem_set(cko_dtype t, void *data, size_t i, double v);
float cko_half_to_float(uint16_t h);
uint16_t cko_float_to_half(float f);

/* ---- npy.c: NumPy .npy v1/v2/v3, C order, little-endian ---- */
#define CKO_MAXDIM 8
typedef struct {
	cko_dtype dtype;
	int ndim;
	int64_t shape[CKO_MAXDIM];
	size_t count; /* product of shape (1 for ndim 0) */
	void *data;
	void *map;      /* set when data lies in a mapped file (cko_npy_read) */
	size_t map_len;
} cko_tensor;
size_t cko_tensor_bytes(const cko_tensor *t);
/* Parses a .npy image in memory; 0 on success, else -1 with err filled.
 * On success t->data points into a fresh copy. */
int cko_npy_parse(const void *img, size_t len, cko_tensor *t, char *err, size_t errlen);
/* Reads a file; dies with status 2 naming it on any problem. */
void cko_npy_read(const char *path, cko_tensor *t);
int cko_npy_try_read(const char *path, cko_tensor *t, char *err, size_t errlen);
/* As cko_npy_read, but the data may not be written: a regular file is
 * mapped read-only with its pages faulted in (for uploads to the GPU). */
void cko_npy_map(const char *path, cko_tensor *t);
/* Builds the .npy image (header padded to 64 bytes); allocated. */
void *cko_npy_image(const cko_tensor *t, size_t *len);
void cko_npy_write(const char *path, const cko_tensor *t);
void cko_tensor_free(cko_tensor *t);

/* ---- expr.c: integer expressions over named values ---- */
typedef struct {
	const char *name;
	int64_t value;
} cko_binding;
typedef struct {
	cko_binding *v;
	int n, cap;
} cko_env;
void cko_env_set(cko_env *e, const char *name, int64_t value);
int cko_env_get(const cko_env *e, const char *name, int64_t *value);
void cko_env_free(cko_env *e);
/* Evaluates src; 0 on success, else -1 with a message (position included). */
int cko_expr_eval(const char *src, const cko_env *env, int64_t *out, char *err, size_t errlen);
/* A JSON number (integral) or expression string. */
int cko_expr_json(const cJSON *item, const cko_env *env, int64_t *out, char *err, size_t errlen);
/* Checks syntax only (names may be unbound): 0 if well formed. */
int cko_expr_check(const char *src, char *err, size_t errlen);

/* ---- hash.c ---- */
uint64_t cko_fnv1a(const void *data, size_t len, uint64_t h);
#define CKO_FNV_INIT 0xcbf29ce484222325ULL
/* SHA-256 as 64 hex digits + NUL. */
void cko_sha256_hex(const void *data, size_t len, char out[65]);

/* ---- rng.c: xoshiro256** seeded through SplitMix64 ---- */
typedef struct {
	uint64_t s[4];
} cko_rng;
void cko_rng_seed(cko_rng *r, uint64_t seed);
uint64_t cko_rng_next(cko_rng *r);
double cko_rng_uniform(cko_rng *r);        /* [0, 1) with 53 bits */
double cko_rng_normal(cko_rng *r);         /* standard normal */
int64_t cko_rng_range(cko_rng *r, int64_t lo, int64_t hi); /* inclusive, unbiased */
/* Derives a stream seed from a base seed and a label. */
uint64_t cko_seed_mix(uint64_t seed, const char *label, uint64_t index);

/* ---- stats.c ---- */
typedef struct {
	int n;
	double median, mean, min, max, stdev, p10, p90, cv;
} cko_stats;
void cko_stats_compute(const double *x, int n, cko_stats *st);
cJSON *cko_stats_json(const cko_stats *st, const char *unit_suffix);

/* ---- compare.c: expected vs actual tensors ---- */
typedef struct {
	double rtol, atol;
	int nan_equal; /* NaN where NaN is expected passes (default on) */
} cko_tol;
void cko_tol_default(cko_dtype t, cko_tol *tol);
#define CKO_MAX_FIRST 10
typedef struct {
	int ok;               /* 1 pass, 0 fail */
	char problem[256];    /* shape or dtype mismatch: set, and ok = 0 */
	size_t count, mismatches, nan, inf, poison;
	double max_abs, max_rel;
	size_t max_abs_at;
	int nfirst;
	size_t first[CKO_MAX_FIRST];
	double first_expected[CKO_MAX_FIRST], first_actual[CKO_MAX_FIRST];
} cko_cmp;
void cko_compare(const cko_tensor *expected, const cko_tensor *actual, const cko_tol *tol, int max_first,
		 cko_cmp *r);
/* JSON of one tensor's comparison; indices as multi-dimensional lists. */
cJSON *cko_cmp_json(const cko_cmp *r, const cko_tensor *shape_of, const cko_tol *tol);

/* ---- workload.c: signature.json, cases, launch rules ---- */
enum { CKO_IN, CKO_OUT, CKO_INOUT };
typedef struct {
	char *name;
	int is_buffer;
	cko_dtype dtype;
	int role;        /* buffers */
	int ndim;        /* buffers */
	char *shape[CKO_MAXDIM]; /* expressions, buffers */
} cko_param;
typedef struct {
	char *file;
	char *entry;
	int nparams;
	cko_param *params;
} cko_signature;
void cko_signature_load(const char *path, cko_signature *sig);
void cko_signature_from_json(const cJSON *root, const char *file, cko_signature *sig);
void cko_signature_free(cko_signature *sig);
int cko_role_parse(const char *s, int *role);
const char *cko_role_name(int role);
/* Binds the integer scalars of a case (a JSON object name -> number). */
void cko_case_env(const cko_signature *sig, const cJSON *scalars, const char *file, const char *field,
		  cko_env *env);
/* Evaluates a buffer's shape; 0 on success or -1 with err. */
int cko_param_shape(const cko_param *p, const cko_env *env, int64_t *shape, size_t *count, char *err,
		    size_t errlen);
int cko_is_ident(const char *s);

/* Launch rules for one case: the result of evaluating launch.json. */
typedef struct {
	int64_t grid[3], block[3], smem;
	const char *limit; /* the CUDA limit a failed rule breaks (props.json's name), or NULL */
} cko_launch;
/* Validates launch.json's structure (keys, define names and values,
 * expression syntax); dies with status 2 naming the file and field. */
void cko_launch_validate(const cJSON *launch, const char *file);
/* Adds the integer defines to env. */
void cko_launch_defines_env(const cJSON *launch, cko_env *env);
/* Evaluates grid/block/smem for a case (override by case name unless
 * hidden); 0 or -1 with err (a verdict about the candidate). */
int cko_launch_eval(const cJSON *launch, const char *case_name, int hidden, const cko_env *env, cko_launch *out,
		    char *err, size_t errlen);
/* Checks grid, block and smem against CUDA's limits (per dimension and
 * threads per block); 0 or -1 with err and l->limit set. */
int cko_launch_limits(cko_launch *l, const char *case_name, char *err, size_t errlen);
/* The -D text of a define value (an integer or a string) into buf; 0 if it is neither. */
int cko_define_text(const cJSON *v, char *buf, size_t n);
/* Checks a define name and value as accepted on the command line. */
int cko_define_ok(const char *name, const char *value, char *err, size_t errlen);

/* ---- export.c: launch rules compiled to C (cko-export) ----
 * The generated code has cko's expression semantics (overflow, division by
 * zero and unbound names are errors, never undefined behaviour). Integer
 * scalars are s[0..] in signature order (cko_export_scalar_index). */
int cko_export_scalar_index(const cko_signature *sig, const char *name);
/* One expression (JSON number or string) as a C expression of type int64_t
 * that sets the int e in scope on an error; defs are the integer defines
 * (fixed values). Allocated, or NULL with err for a malformed one. */
char *cko_export_expr(const cJSON *item, const char *pre, const cko_env *defs, const cko_signature *sig, char *err,
		      size_t errlen);
/* The helpers every rule uses and the type PRE_dims. */
void cko_export_helpers(cko_buf *b, const char *pre);
/* static int FNAME(const int64_t *s, PRE_dims *d): the rule of launch for
 * case_name's override (NULL: the general rule); 0, 1 on an expression
 * error, 2 beyond CUDA's limits (as cko_launch_eval). 0 or -1 with err. */
int cko_export_rule(cko_buf *b, const char *pre, const char *fname, const cJSON *launch, const char *case_name,
		    const cko_signature *sig, char *err, size_t errlen);
/* Every rule (PRE_rule0 general, PRE_ruleK overrides; PRE_rule_case[K]
 * names the case), PRE_which (the rule for scalars: a case's exact
 * scalars, else the hidden ranges and constraints of cases.json, else -1)
 * and PRE_config (0, 1, 2 as a rule; 3 for scalars the run did not
 * verify). doc gets a Markdown list of what was verified. */
int cko_export_config(cko_buf *b, cko_buf *doc, const char *pre, const cJSON *launch, const cJSON *cases,
		      const cko_signature *sig, char *err, size_t errlen);

/* ---- request.c: launch requests ---- */
typedef struct {
	cko_param p;      /* copied from the signature, shape evaluated */
	int64_t shape[CKO_MAXDIM];
	size_t count;
	int64_t ivalue;   /* scalars */
	double fvalue;
	cko_tol tol;      /* outputs */
} cko_rparam;
typedef struct {
	char *in, *expected; /* resolved paths */
} cko_rset;
typedef struct {
	char *file, *dir;    /* the request file and its folder */
	char *case_name;
	char *cubin;         /* resolved */
	char *entry;
	cko_launch launch;
	int nparams;
	cko_rparam *params;
	int nsets;
	cko_rset *sets;
	char *out;           /* resolved; may be NULL */
	double flops, bytes; /* the case's counts, 0 when not given */
} cko_request;
void cko_request_load(const char *path, cko_request *rq);
void cko_request_free(cko_request *rq);
/* Loads and frees every request, so bad input exits 2 before the GPU is touched. */
void cko_requests_check(int n, char *const *paths);
/* Reads the inputs of set s (dies with 2 on a shape/dtype mismatch). */
void cko_request_read_inputs(const cko_request *rq, int s, cko_tensor *tensors /* nparams, unused zeroed */);
char *cko_request_out_path(const cko_request *rq, int s, const char *name);
/* out/SET/NAME.json: the record of a device comparison, when the output
 * itself was not kept (cko-run). */
char *cko_request_record_path(const cko_request *rq, int s, const char *name);

/* ---- proc.c: child processes with argv (no shell), bounded output ---- */
typedef struct {
	int status;        /* exit status, or 128+signal */
	int timed_out;
	char *out;         /* captured stdout (and stderr if merged), bounded */
	size_t out_len;
	int truncated;
} cko_proc;
/* Runs argv (PATH searched) with the environment of cko_env_allowed. */
int cko_run_argv(char *const argv[], const char *stdin_data, double timeout_s, size_t max_out, int merge_stderr,
		 cko_proc *r);
void cko_proc_free(cko_proc *r);

/* ---- sandbox.c: Landlock confinement of model-written code ---- */
typedef struct cko_sandbox {
	struct cko_sandbox_rule {
		char *path;
		uint64_t access;
	} *rules;
	int n, cap;
	int gpu; /* rules for the driver: network, signals and abstract sockets stay open */
} cko_sandbox;
/* Rules: a file or folder to read; a folder to write results into; the
 * folder of a file to be written (made if missing); the CUDA driver's needs.
 * Paths that do not exist are left out. */
void cko_sandbox_read(cko_sandbox *sb, const char *path);
void cko_sandbox_write(cko_sandbox *sb, const char *path);
void cko_sandbox_write_beside(cko_sandbox *sb, const char *file);
void cko_sandbox_gpu(cko_sandbox *sb);
void cko_sandbox_free(cko_sandbox *sb);
/* Rules for launch requests: read each request, its cubin, inputs and
 * expected outputs; write its out folder (made here). */
void cko_requests_sandbox(int n, char *const *paths, cko_sandbox *sb);
/* Confines this process and its future children to the rules, with no TCP
 * and (compile steps) no signals or abstract sockets outside. Returns 0, or
 * -1 with err set. Irreversible: call it in the child that does the work. */
int cko_sandbox_enter(const cko_sandbox *sb, char *err, size_t errlen);
/* The same, dying with status 3 (naming --no-sandbox) on failure; nothing
 * when --no-sandbox was given. */
void cko_sandbox_enter_or_die(const cko_sandbox *sb);
/* Dies with status 3 unless Landlock is there or --no-sandbox was given:
 * for checking before the work starts. */
void cko_sandbox_check(void);
void cko_sandbox_disable(void); /* --no-sandbox */
int cko_sandbox_enabled(void);
int cko_sandbox_abi(void);      /* Landlock's ABI version, 0 when absent */
const char *cko_sandbox_describe(void); /* "landlock ABI 7", "off (--no-sandbox)", "unavailable" */
/* For cko-run and cko-bench, once the context exists: confines the worker
 * to the driver's files, the requests' files and the result's folder. */
void cko_sandbox_gpu_worker(int n, char *const *requests, const char *json_out);
/* Blanks the values of secret-looking variables in this process's own
 * environment block (and so in /proc/self/environ). */
void cko_sandbox_scrub_environ(void);

/* ---- secret.c: keeping secrets from children and configs ---- */
/* 1 if an environment variable's name (or a NAME=VALUE entry) looks like a
 * secret: it holds KEY, TOKEN, SECRET, PASS, CRED, AUTH, COOKIE, JWT or
 * PRIVATE, in any case. Such a variable never reaches a child. */
int cko_env_name_secret(const char *name);
/* 1 if a child may see the variable: PATH, HOME, TMPDIR, LANG, LC_*, TZ,
 * TERM, USER, LOGNAME, LD_LIBRARY_PATH, XDG_CACHE_HOME, CUDA_*, NVIDIA_*,
 * CKO_* (not CKO_DOTENV), GNUPLOT_*, GDFONTPATH, the sanitizers' *SAN_OPTIONS,
 * and the names listed in $CKO_ENV_ALLOW; never a secret-looking one. */
int cko_env_name_allowed(const char *name);
/* The allowed part of the environment as a fresh NULL-terminated envp
 * (for execve); free it with cko_envp_free. */
char **cko_env_allowed(void);
void cko_envp_free(char **envp);
/* 1 if a config field's name looks like a secret: api_key, apiKey, token,
 * access_token, auth, secret, password, credentials, authorization, ...
 * (not max_completion_tokens or stop_token_ids). */
int cko_field_name_secret(const char *name);
/* Dies with status 2 naming the file and the field when any field of the
 * tree, at any depth, is named like a secret: keys never go in a config. */
void cko_jno_secrets(const cJSON *root, const char *file);

/* ---- lock ---- */
/* Runs a watchdog: forks; the child returns and does the work, the parent
 * waits and kills the child's process group after `seconds`, then calls
 * on_timeout in the parent and exits with its return. 0 disables. */
void cko_watchdog(double seconds, int (*on_timeout)(void *), void *arg);
/* An on_timeout for tools with a JSON result: writes {"tool", "status":
 * "timeout", "message"} to the path arg points to, returns 1. */
int cko_watchdog_result(void *path);

/* ---- step.c: the steps of a run in a chain (--after) ---- */
/* Whether the record prev (a step's JSON) says status "ok" (or "pass"); if
 * not and why is given, *why (allocated) is "STEP: STATUS [REASON]", STEP
 * named by the file: "compile" for compile.json, "launch rules" for
 * requests/index.json. A missing or unreadable record is not ok. */
int cko_step_ok(const char *prev, char **why);
/* --after PREV: when prev is given and not ok, writes {"tool", "status":
 * "skipped", "reason"} to out and returns 1 (the tool then exits 0, making
 * nothing else); else returns 0. */
int cko_step_after(const char *prev, const char *out);
/* Whether the command argv (a cko step) is given --after RECORD (or
 * --after=RECORD) whose record is not ok: it will only write its skipped
 * record (cko-lock then runs it without a GPU). */
int cko_step_skipped(int argc, char **argv);

/* ---- gpu: the CUDA driver API, loaded at run time (cuda.c) ----
 * Tools call the driver API by its usual names; they resolve to pointers
 * filled by cko_cuda_load(), so every tool starts (and says why) on a machine
 * without a driver. */
#include <cuda.h>
#define CKO_CU_FUNCS \
	X(cuInit) \
	X(cuDriverGetVersion) \
	X(cuDeviceGet) \
	X(cuDeviceGetCount) \
	X(cuDeviceGetName) \
	X(cuDeviceGetAttribute) \
	X(cuDeviceTotalMem) \
	X(cuDeviceGetUuid) \
	X(cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxRelease) \
	X(cuCtxSetCurrent) \
	X(cuCtxSynchronize) \
	X(cuCtxGetLimit) \
	X(cuModuleLoadData) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuFuncGetAttribute) \
	X(cuFuncSetAttribute) \
	X(cuMemAlloc) \
	X(cuMemFree) \
	X(cuMemGetInfo) \
	X(cuMemcpyHtoD) \
	X(cuMemHostRegister) \
	X(cuMemHostUnregister) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyDtoD) \
	X(cuMemcpyDtoDAsync) \
	X(cuMemsetD8) \
	X(cuMemsetD8Async) \
	X(cuLaunchKernel) \
	X(cuStreamCreate) \
	X(cuStreamDestroy) \
	X(cuStreamSynchronize) \
	X(cuStreamQuery) \
	X(cuEventCreate) \
	X(cuEventDestroy) \
	X(cuEventRecord) \
	X(cuEventQuery) \
	X(cuEventSynchronize) \
	X(cuEventElapsedTime) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor)
#define X(n) extern __typeof__(n) *cko_p_##n;
CKO_CU_FUNCS
#undef X
#undef cuInit
#define cuInit (*cko_p_cuInit)
#undef cuDriverGetVersion
#define cuDriverGetVersion (*cko_p_cuDriverGetVersion)
#undef cuDeviceGet
#define cuDeviceGet (*cko_p_cuDeviceGet)
#undef cuDeviceGetCount
#define cuDeviceGetCount (*cko_p_cuDeviceGetCount)
#undef cuDeviceGetName
#define cuDeviceGetName (*cko_p_cuDeviceGetName)
#undef cuDeviceGetAttribute
#define cuDeviceGetAttribute (*cko_p_cuDeviceGetAttribute)
#undef cuDeviceTotalMem
#define cuDeviceTotalMem (*cko_p_cuDeviceTotalMem)
#undef cuDeviceGetUuid
#define cuDeviceGetUuid (*cko_p_cuDeviceGetUuid)
#undef cuDevicePrimaryCtxRetain
#define cuDevicePrimaryCtxRetain (*cko_p_cuDevicePrimaryCtxRetain)
#undef cuDevicePrimaryCtxRelease
#define cuDevicePrimaryCtxRelease (*cko_p_cuDevicePrimaryCtxRelease)
#undef cuCtxSetCurrent
#define cuCtxSetCurrent (*cko_p_cuCtxSetCurrent)
#undef cuCtxSynchronize
#define cuCtxSynchronize (*cko_p_cuCtxSynchronize)
#undef cuCtxGetLimit
#define cuCtxGetLimit (*cko_p_cuCtxGetLimit)
#undef cuModuleLoadData
#define cuModuleLoadData (*cko_p_cuModuleLoadData)
#undef cuModuleUnload
#define cuModuleUnload (*cko_p_cuModuleUnload)
#undef cuModuleGetFunction
#define cuModuleGetFunction (*cko_p_cuModuleGetFunction)
#undef cuFuncGetAttribute
#define cuFuncGetAttribute (*cko_p_cuFuncGetAttribute)
#undef cuFuncSetAttribute
#define cuFuncSetAttribute (*cko_p_cuFuncSetAttribute)
#undef cuMemAlloc
#define cuMemAlloc (*cko_p_cuMemAlloc)
#undef cuMemFree
#define cuMemFree (*cko_p_cuMemFree)
#undef cuMemGetInfo
#define cuMemGetInfo (*cko_p_cuMemGetInfo)
#undef cuMemcpyHtoD
#define cuMemcpyHtoD (*cko_p_cuMemcpyHtoD)
#undef cuMemHostRegister
#define cuMemHostRegister (*cko_p_cuMemHostRegister)
#undef cuMemHostUnregister
#define cuMemHostUnregister (*cko_p_cuMemHostUnregister)
#undef cuMemcpyDtoH
#define cuMemcpyDtoH (*cko_p_cuMemcpyDtoH)
#undef cuMemcpyDtoD
#define cuMemcpyDtoD (*cko_p_cuMemcpyDtoD)
#undef cuMemcpyDtoDAsync
#define cuMemcpyDtoDAsync (*cko_p_cuMemcpyDtoDAsync)
#undef cuMemsetD8
#define cuMemsetD8 (*cko_p_cuMemsetD8)
#undef cuMemsetD8Async
#define cuMemsetD8Async (*cko_p_cuMemsetD8Async)
#undef cuLaunchKernel
#define cuLaunchKernel (*cko_p_cuLaunchKernel)
#undef cuStreamCreate
#define cuStreamCreate (*cko_p_cuStreamCreate)
#undef cuStreamDestroy
#define cuStreamDestroy (*cko_p_cuStreamDestroy)
#undef cuStreamSynchronize
#define cuStreamSynchronize (*cko_p_cuStreamSynchronize)
#undef cuStreamQuery
#define cuStreamQuery (*cko_p_cuStreamQuery)
#undef cuEventCreate
#define cuEventCreate (*cko_p_cuEventCreate)
#undef cuEventDestroy
#define cuEventDestroy (*cko_p_cuEventDestroy)
#undef cuEventRecord
#define cuEventRecord (*cko_p_cuEventRecord)
#undef cuEventQuery
#define cuEventQuery (*cko_p_cuEventQuery)
#undef cuEventSynchronize
#define cuEventSynchronize (*cko_p_cuEventSynchronize)
#undef cuEventElapsedTime
#define cuEventElapsedTime (*cko_p_cuEventElapsedTime)
#undef cuGetErrorName
#define cuGetErrorName (*cko_p_cuGetErrorName)
#undef cuGetErrorString
#define cuGetErrorString (*cko_p_cuGetErrorString)
#undef cuOccupancyMaxActiveBlocksPerMultiprocessor
#define cuOccupancyMaxActiveBlocksPerMultiprocessor (*cko_p_cuOccupancyMaxActiveBlocksPerMultiprocessor)

/* Loads libcuda.so.1 and resolves the functions: 0, or -1 with err. */
int cko_cuda_load(char *err, size_t errlen);
const char *cko_cu_name(CUresult r); /* "CUDA_ERROR_ILLEGAL_ADDRESS" */
/* Dies with status 3, naming the call, file and line (llm.c style). */
#define CU_CHECK(call) cko_cu_check((call), #call, __FILE__, __LINE__)
void cko_cu_check(CUresult r, const char *what, const char *file, int line);
/* Errors that are the kernel's doing and leave the context unusable. */
int cko_cu_is_fault(CUresult r);
/* Our own code for "did not finish in time" (no driver code means that). */
#define CKO_CU_TIMEOUT ((CUresult)100000)

typedef struct {
	int ordinal;
	CUdevice dev;
	CUcontext ctx;
	char name[256];
	int cc_major, cc_minor, sms;
} cko_gpu;
/* Loads the driver and makes device CKO_DEVICE (default 0)'s primary
 * context current; dies with status 3 and the reason when there is none. */
void cko_gpu_open(cko_gpu *g);
/* 1 if a usable GPU is present (for tests and --help); never dies. */
int cko_gpu_present(void);
int cko_gpu_attr(const cko_gpu *g, CUdevice_attribute a);
/* Bytes of a buffer whose writing evicts the L2: twice its size, at least 64 MiB. */
size_t cko_flush_bytes(const cko_gpu *g);

/* ---- exec.c: one request's buffers on the device ----
 * Every buffer has CKO_GUARD_BYTES of guard pattern on either side; outputs
 * are poisoned before each launch; inout buffers are restored from a
 * device-side pristine copy. */
#define CKO_POISON_A 0xff
#define CKO_POISON_B 0x7f
#define CKO_GUARD 0xa5
#define CKO_GUARD_BYTES 4096
typedef struct {
	CUdeviceptr base, ptr, pristine;
	size_t bytes;
	uint64_t hash; /* inputs: the keyed device hash of what was uploaded */
} cko_dbuf;
typedef struct {
	const cko_request *rq;
	CUmodule mod;
	CUfunction fn;
	int nsets, np;
	cko_tensor *host; /* [s * np + i]: inputs as read (in, inout) */
	cko_dbuf *dev;    /* [s * np + i] */
	void **args;      /* [s * np + i] */
	uint64_t *vals;   /* [s * np + i]: argument storage */
	char *image;      /* the CUBIN, for reloading */
	CUdeviceptr *shadow; /* [i]: a copy of output i (cko_exec_save) */
	CUdeviceptr scratch; /* expected outputs on the device (cko_exec_compare) */
	size_t scratch_bytes;
} cko_exec;
/* Loads the module and function and uploads the first nsets input sets.
 * 0 on success; 1 with err for a verdict (bad cubin, no such entry,
 * shared memory beyond the device limit). Dies on bad input or driver
 * trouble. */
int cko_exec_open(cko_exec *x, const cko_request *rq, int nsets, char *err, size_t errlen);
void cko_exec_close(cko_exec *x);
/* Unloads and loads the module again: a fresh instance of every __device__
 * variable, so nothing a kernel stashed there survives (0, or 1 with err). */
int cko_exec_reload(cko_exec *x, char *err, size_t errlen);
/* Enqueues on st: outputs of set s filled with byte `poison`; inout
 * buffers restored. */
void cko_exec_reset(cko_exec *x, int s, int poison, CUstream st);
CUresult cko_exec_launch(cko_exec *x, int s, CUstream st);
/* Enqueues on st the keyed device hash of each output (out, inout) buffer
 * of set s into out[0..n-1], n returned: identical outputs, identical
 * hashes, without a copy to the host. */
int cko_exec_hash_outputs(cko_exec *x, int s, CUstream st, CUdeviceptr out);
/* Waits for an event with a deadline: CUDA_SUCCESS, the error, or
 * CKO_CU_TIMEOUT. */
CUresult cko_wait_event(CUevent ev, double timeout_s);
/* Host seconds per phase of a tool's work, summed over its requests and
 * reported as "phase_seconds" in cko-run's and cko-bench's JSON: where the
 * time outside the kernels goes. */
enum {
	CKO_PH_INIT,     /* driver and context */
	CKO_PH_LOAD,     /* input .npy files read */
	CKO_PH_UPLOAD,   /* device buffers allocated, guarded, filled */
	CKO_PH_LAUNCH,   /* poison, launch, wait (timing loop in cko-bench) */
	CKO_PH_CHECK,    /* guards and unchanged inputs */
	CKO_PH_READBACK, /* outputs copied back */
	CKO_PH_COMPARE,  /* outputs compared (two launches, or expected) */
	CKO_PH_WRITE,    /* outputs written as .npy */
	CKO_PH_RELOAD,   /* module loaded again */
	CKO_PH_N
};
extern double cko_phase_s[CKO_PH_N];
extern int cko_input_host_checks; /* inputs compared on the host after a hash mismatch */
/* Adds the seconds since *t0 to phase ph and sets *t0 to now. */
void cko_phase_add(int ph, double *t0);
cJSON *cko_phase_json(void);
/* 0 if set s's guards are intact, else 1 with a message naming the buffer. */
int cko_exec_check_guards(cko_exec *x, int s, char *msg, size_t n);
/* 0 if set s's in buffers still hold their inputs, else 1 with a message. */
int cko_exec_check_inputs(cko_exec *x, int s, char *msg, size_t n);
/* Enqueues a kernel filling every SM's shared memory with a 32-bit pattern. */
void cko_smem_poison(const cko_gpu *g, uint32_t pattern, CUstream st);
#define CKO_SMEM_POISON_A 0x7149f2caU /* 1e30f */
#define CKO_SMEM_POISON_B 0xf149f2caU /* -1e30f */
/* Copies buffer i of set s to a fresh host tensor. */
void cko_exec_read(cko_exec *x, int s, int i, cko_tensor *t);
/* The dtype and shape that parameter q declares, without data. */
cko_tensor cko_rparam_shape(const cko_rparam *q);
/* Enqueues a device copy of set s's outputs (one copy per output, reused);
 * cko_exec_read_saved copies output i's saved copy to the host. */
void cko_exec_save(cko_exec *x, int s, CUstream st);
void cko_exec_read_saved(cko_exec *x, int i, cko_tensor *t);
/* The unkeyed device hash of output i of set s (the keyed hash with key 0):
 * equal outputs, equal digests, across processes and runs. */
uint64_t cko_exec_digest(cko_exec *x, int s, int i);
/* Compares output i of set s as it is on the device with the expected .npy
 * file: the expected tensor is uploaded and compared on the device, and
 * only statistics come back; on a mismatch the outputs are read back into
 * *actual and compared on the host, which names the first mismatches.
 * Returns 0, or -1 when the file's dtype or shape differ from the
 * parameter's (r->problem says how; dies on an unreadable file). */
int cko_exec_compare(cko_exec *x, int s, int i, const char *expected, const cko_tol *tol, int max_first,
		     CUstream st, cko_cmp *r, cko_tensor *actual);

/* ---- gpu_compare.c: expected vs actual on the device ---- */
/* Fills r as cko_compare would for a passing tensor (no first[] entries);
 * r->ok = 0 means: compare on the host for the details. */
void cko_gpu_compare(CUdeviceptr expected, CUdeviceptr actual, cko_dtype t, size_t count, const cko_tol *tol,
		     CUstream st, cko_cmp *r);

/* ---- nvrtc.c ---- */
typedef struct {
	int ok;
	char *log;
	void *cubin;
	size_t cubin_len;
	char *lowered; /* the entry's lowered name */
	double seconds;
	const char *reason; /* a confined compile stopped by a limit, or NULL */
} cko_nvrtc_result;
/* Compiles src for arch ("sm_90") with the harness's fixed options plus
 * the -D defines (already validated); entry may be NULL. Dies with status
 * 3 only when NVRTC itself fails. */
void cko_nvrtc_compile(const char *src, const char *name, const char *arch, const char *const *defines, int ndefines,
		       const char *entry, cko_nvrtc_result *r);
void cko_nvrtc_free(cko_nvrtc_result *r);
/* Limits on one confined compile; 0 means none. */
typedef struct {
	double wall_s;     /* killed after this long: compile_timeout */
	double memory_mb;  /* address space (rlimit) and resident memory: compile_memory */
} cko_compile_limits;
/* The same compile in a child confined by the sandbox (it reads only the
 * CUDA toolkit; the source is already in memory) and bounded by lim. On a
 * limit, r->ok is 0 and r->reason is "compile_timeout" or "compile_memory";
 * a crashed compiler gives "compile_crash". */
void cko_nvrtc_compile_confined(const char *src, const char *name, const char *arch, const char *const *defines,
				int ndefines, const char *entry, const cko_compile_limits *lim, cko_nvrtc_result *r);
const char *cko_cuda_include_dir(void);
/* The CUDA toolkit's folder, links resolved ($CUDA_HOME or /usr/local/cuda). */
const char *cko_cuda_root(void);

#endif
