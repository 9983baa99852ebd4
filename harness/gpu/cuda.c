/* cuda.c: the driver API through dlopen + cuGetProcAddress, so the tools
 * load everywhere and say plainly when there is no driver or no GPU. */
#include "cko_gpu.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define X(n) __typeof__(n) *cko_p_##n;
CKO_CU_FUNCS
#undef X

int cko_cuda_load(char *err, size_t errlen)
{
	static int loaded;
	if (loaded)
		return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "no CUDA driver (libcuda.so.1: %s)", dlerror());
		return -1;
	}
	typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
	gpa_fn gpa = (gpa_fn)dlsym(h, "cuGetProcAddress_v2");
	if (!gpa) {
		snprintf(err, errlen, "the CUDA driver is too old (no cuGetProcAddress_v2); need CUDA 12 or later");
		return -1;
	}
	CUdriverProcAddressQueryResult q;
#define X(n)                                                                                                       \
	if (gpa(#n, (void **)&cko_p_##n, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) || !cko_p_##n) {           \
		snprintf(err, errlen, "the CUDA driver lacks %s for CUDA %d (driver too old?)", #n, CUDA_VERSION); \
		return -1;                                                                                         \
	}
	CKO_CU_FUNCS
#undef X
	loaded = 1;
	return 0;
}

const char *cko_cu_name(CUresult r)
{
	if (r == CKO_CU_TIMEOUT)
		return "timeout";
	const char *s = NULL;
	if (cko_p_cuGetErrorName && cuGetErrorName(r, &s) == CUDA_SUCCESS && s)
		return s;
	static char buf[32];
	snprintf(buf, sizeof buf, "CUDA error %d", (int)r);
	return buf;
}

void cko_cu_check(CUresult r, const char *what, const char *file, int line)
{
	if (r == CUDA_SUCCESS)
		return;
	const char *desc = NULL;
	if (cko_p_cuGetErrorString)
		cuGetErrorString(r, &desc);
	cko_die(CKO_ENV, "%s:%d: %s: %s (%s)", file, line, what, cko_cu_name(r), desc ? desc : "");
}

int cko_cu_is_fault(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
		return 1;
	default:
		return 0;
	}
}

static int device_ordinal(void)
{
	const char *s = getenv("CKO_DEVICE");
	return s && *s ? atoi(s) : 0;
}

int cko_gpu_present(void)
{
	char err[256];
	int n = 0;
	return cko_cuda_load(err, sizeof err) == 0 && cuInit(0) == CUDA_SUCCESS &&
	       cuDeviceGetCount(&n) == CUDA_SUCCESS && n > 0;
}

void cko_gpu_open(cko_gpu *g)
{
	char err[512];
	memset(g, 0, sizeof *g);
	/* Load whole modules at cuModuleLoadData, never lazily at a launch,
	 * so loading never falls inside a timed interval. */
	setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	if (cko_cuda_load(err, sizeof err))
		cko_die(CKO_ENV, "%s", err);
	CUresult r = cuInit(0);
	if (r != CUDA_SUCCESS)
		cko_die(CKO_ENV, "no usable GPU: cuInit: %s", cko_cu_name(r));
	int n = 0;
	CU_CHECK(cuDeviceGetCount(&n));
	g->ordinal = device_ordinal();
	if (g->ordinal < 0 || g->ordinal >= n)
		cko_die(CKO_ENV, "no GPU %d (%d visible; see CKO_DEVICE and CUDA_VISIBLE_DEVICES)", g->ordinal, n);
	CU_CHECK(cuDeviceGet(&g->dev, g->ordinal));
	CU_CHECK(cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
	CU_CHECK(cuCtxSetCurrent(g->ctx));
	CU_CHECK(cuDeviceGetName(g->name, sizeof g->name, g->dev));
	g->cc_major = cko_gpu_attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	g->cc_minor = cko_gpu_attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	g->sms = cko_gpu_attr(g, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

size_t cko_flush_bytes(const cko_gpu *g)
{
	size_t l2 = (size_t)cko_gpu_attr(g, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), min = (size_t)64 << 20;
	return 2 * l2 > min ? 2 * l2 : min;
}

int cko_gpu_attr(const cko_gpu *g, CUdevice_attribute a)
{
	int v = 0;
	CU_CHECK(cuDeviceGetAttribute(&v, a, g->dev));
	return v;
}
