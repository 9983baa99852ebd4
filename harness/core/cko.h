/* cko.h: the host core of the cko harness (libcko-core.a), included by
 * every tool and every other part of harness/.
 *
 * Errors, memory, files, JSON, dtypes and .npy, expressions, hashing,
 * random streams, statistics, the comparison of tensors, workloads and
 * launch requests, the run-folder reader, child processes, the sandbox and
 * secrets. Nothing here
 * needs the CUDA toolkit: the GPU layer has its own header (gpu/cko_gpu.h)
 * and library, and each subsystem of one tool (llm/, tune/, ncu/, search/,
 * gen/, export/) its own too; README's Layout section says what goes where.
 * Brings in <cjson/cJSON.h>. */
#ifndef CKO_H
#define CKO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define CKO_VERSION "0.1.0"

/* Exit statuses, shared by every tool (docs/formats.md). */
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
/* The first executable NAME in a folder of $PATH (/usr/bin:/bin when
 * unset), or NULL. Allocated. */
char *cko_which(const char *name);
/* The folder of this program (/proc/self/exe's), or NULL. Allocated. */
char *cko_exe_dir(void);
/* cko's share folder (mk/, prompts/, workloads/, docs/) from where this
 * program lies (/proc/self/exe's folder BIN): the first of BIN/.. (the
 * source tree), BIN/../share/cko (an installed tree), BIN/../.. and
 * BIN/../../.. (build/san/bin) that holds probe ("mk/run.mk", "prompts"),
 * or NULL. $CKO_SHARE, which comes first, is the caller's to read: tools
 * differ in what they do when it lacks their part. Allocated. */
char *cko_share_dir(const char *probe);

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
/* Binds the integer scalars of a case (a JSON object name -> number). */
void cko_case_env(const cko_signature *sig, const cJSON *scalars, const char *file, const char *field,
		  cko_env *env);
/* Evaluates a buffer's shape; 0 on success or -1 with err. */
int cko_param_shape(const cko_param *p, const cko_env *env, int64_t *shape, size_t *count, char *err,
		    size_t errlen);

/* ---- params.c: a params[] array (signature.json, launch requests) ---- */
#define CKO_MAXPARAMS 64
int cko_is_ident(const char *s);
int cko_role_parse(const char *s, int *role);
const char *cko_role_name(int role);
/* Reads the rest of params[i] (its shape, value...), q holding its head. */
typedef void cko_param_fn(const cJSON *p, const char *file, const char *field, int i, cko_param *q, void *arg);
/* root's "params": min to CKO_MAXPARAMS objects with only the given keys,
 * each with a C identifier "name" given once, a known "dtype", "kind"
 * buffer or scalar and, for a buffer, "role" in, out or inout. Returns the
 * count and *params (allocated) with each entry's name, dtype, is_buffer
 * and role; fn (when not NULL) reads the rest of each entry in turn. Dies
 * with status 2 naming the file and the field. */
int cko_params_parse(const cJSON *root, const char *file, int min, const char *const *keys, cko_param **params,
		     cko_param_fn *fn, void *arg);

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

/* ---- proc.c: a watchdog ---- */
/* Runs a watchdog: forks; the child returns and does the work, the parent
 * waits and kills the child's process group after `seconds`, then calls
 * on_timeout in the parent and exits with its return. 0 disables. */
void cko_watchdog(double seconds, int (*on_timeout)(void *), void *arg);
/* An on_timeout for tools with a JSON result: writes {"tool", "status":
 * "timeout", "message"} to the path arg points to, returns 1. */
int cko_watchdog_result(void *path);

/* ---- runfolder.c: the one reader of a run folder (docs/formats.md) ---- */
/* Whether a record or one of its entries (a case, a set, a tensor) says
 * status "ok". Every reader of a step's status asks this: it is the one
 * place that still takes the legacy "pass" of older run folders
 * (compare.json, cko-bench's sets, out/SET/NAME.json). NULL, or no status,
 * is not ok. */
int cko_status_ok(const cJSON *rec);
/* dir/name parsed if the file exists, else NULL; dies with status 2 naming
 * the file when it is no JSON. */
cJSON *cko_run_record(const char *dir, const char *name);
/* The entry of rec's cases[] whose "case" is name, or NULL. */
const cJSON *cko_record_case(const cJSON *rec, const char *name);
/* A candidate of a run: the folder iter-NNN/cJ (J 1 to 7 digits) that holds
 * a result.json (cko-rank --candidate); one without is not ranked yet and is
 * left out. */
typedef struct {
	char id[48];    /* "iter-002/c1" */
	char *dir;      /* RUN/iter-002/c1 */
	int iter, num;  /* 2, 1 */
	cJSON *result;  /* result.json */
} cko_cand;
typedef struct {
	int n;
	cko_cand *c;    /* by iteration, then by J */
} cko_run;
/* The candidates of iterations from..upto of a run folder. */
void cko_run_read(const char *run, int from, int upto, cko_run *out);
void cko_run_free(cko_run *r);
const cko_cand *cko_run_find(const cko_run *r, const char *id);
/* The sums of prompt_tokens, completion_tokens, reasoning_tokens,
 * cached_tokens and cost_usd over iter-NNN/usage*.json for NNN in
 * from..upto; NULL when there is none. */
cJSON *cko_run_tokens(const char *run, int from, int upto);
/* history.json (cko-rank --run) decides the best: its "best", or NULL when
 * it names none (null, missing: no history, no verified candidate). */
const char *cko_history_best_id(const cJSON *history);
/* 1 if history names the candidate id its best and the candidate's result
 * (status) is ok: a best that is not ok is no best. */
int cko_history_best_of(const cJSON *history, const char *id, const cJSON *result);
/* The reference's median for a case and its geometric mean over the
 * performance cases, from history.json; NAN when it has none. */
double cko_history_ref_ms(const cJSON *history, const char *case_name);
double cko_history_ref_geomean(const cJSON *history);

/* ---- step.c: the steps of a run in a chain (--after) ---- */
/* Whether the record prev (a step's JSON) is ok (cko_status_ok); if
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

/* ---- sandbox.c also: the CUDA toolkit's folder, links resolved
 * ($CUDA_HOME or /usr/local/cuda), which compile steps may read. */
const char *cko_cuda_root(void);

#endif
