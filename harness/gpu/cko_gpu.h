/* cko_gpu.h: the GPU layer of the harness (libcko-gpu.a): the CUDA driver
 * API loaded at run time, NVRTC, a request's buffers on the device and the
 * comparison there. Only the tools that touch the GPU include it and link
 * the library (and libnvrtc); everything else stays on cko.h. */
#ifndef CKO_GPU_H
#define CKO_GPU_H

#include "cko.h"

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
/* Dies with status 3, naming the call, file and line. */
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

/* ---- reqloop.c: the request loop of cko-run and cko-bench ----
 * The options both take (-o, -t, --no-sandbox, --after, -h) go in each
 * tool's getopt_long tables; its switch hands them, and anything it does
 * not know, to cko_reqloop_option. */
#define CKO_REQLOOP_SHORTOPTS "o:t:h"
#define CKO_REQLOOP_LONGOPTS                                                              \
	{"output", required_argument, 0, 'o'}, {"timeout", required_argument, 0, 't'},   \
	{"no-sandbox", no_argument, 0, 'N'}, {"after", required_argument, 0, 'A'},       \
	{"help", no_argument, 0, 'h'}
typedef struct {
	const char *tool;       /* "cko-run": the result's "tool" */
	void (*usage)(int);     /* prints the help and exits with the status */
	const char *out;        /* -o (default "-", standard output) */
	double timeout;         /* -t: seconds one launch may take (default 10) */
	const char *after;      /* --after RECORD */
	int skipped_named;      /* a skipped case names its "case" (cko-run's do, cko-bench's not) */
	int n;                  /* the requests */
	char **requests;
	cko_gpu gpu;
	cJSON *result;          /* {"tool", "status", "device"}: the tool adds its fields */
	double t0;
} cko_reqloop;
#define CKO_REQLOOP(tool_, usage_) {.tool = (tool_), .usage = (usage_), .out = "-", .timeout = 10}
/* A shared option c (as getopt_long returned it) with its argument; -h
 * prints the help (exit 0), an unknown option the usage (exit 2). */
void cko_reqloop_option(cko_reqloop *L, int c, const char *arg);
/* After the options: with --after and a record that is not ok, writes the
 * skipped record and returns 1 (the tool exits 0). Else checks that there
 * are requests (usage, exit 2), the output's folder, the requests and the
 * sandbox (exit 2 or 3 before the GPU is touched); starts the watchdog
 * (launches per request x -t, + 60 s, for all of them), opens the GPU,
 * confines the worker and makes the result; returns 0. */
int cko_reqloop_start(cko_reqloop *L, int n, char **requests, double launches);
/* Gives each request a case {"request", "status": "ok"} in the result's
 * "cases" and hands it to one(arg, request, case), which fills it (its
 * "case", a status other than ok with a "message", the tool's fields) and
 * returns 1 when the context is lost: every later case is then skipped.
 * Warns for each case not ok; writes the result with the first such status,
 * "seconds" and "phase_seconds"; returns the exit status (0 all ok, 1 a
 * verdict), or exits 1 without teardown once the context is lost. */
int cko_reqloop_run(cko_reqloop *L, const char *doing, int (*one)(void *arg, const char *request, cJSON *c),
		    void *arg);

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

#endif
