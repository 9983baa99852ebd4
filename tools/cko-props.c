/* cko-props: the GPU's properties as JSON, and with --measure the measured
 * ceilings (copy bandwidth, FP32 FMA rate) that the speed-of-light floor
 * and roofline fractions use. */
#include "cko_gpu.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-props [--measure] [-o props.json]\n"
		"  -m, --measure            also measure a copy's bandwidth and an FMA kernel's FP32 rate\n"
		"  -o, --output props.json  the properties (default: standard output)\n"
		"  -h, --help               print this help and exit\n");
	exit(status);
}

/* FP32 lanes per SM by compute capability (the CUDA programming guide's table). */
static int fp32_per_sm(int major, int minor)
{
	if (major == 6)
		return minor == 0 ? 64 : 128;
	if (major == 7)
		return 64;
	if (major == 8)
		return minor == 0 ? 64 : 128;
	return 128;
}

static const char *measure_src =
	"extern \"C\" __global__ void cko_fma(float *out, int iters, float a, float b)\n"
	"{\n"
	"	float x[8];\n"
	"	for (int j = 0; j < 8; j++) x[j] = threadIdx.x + j;\n"
	"	for (int i = 0; i < iters; i++)\n"
	"#pragma unroll\n"
	"		for (int k = 0; k < 16; k++)\n"
	"#pragma unroll\n"
	"			for (int j = 0; j < 8; j++) x[j] = fmaf(x[j], a, b);\n"
	"	float s = 0;\n"
	"	for (int j = 0; j < 8; j++) s += x[j];\n"
	"	if (s == 12345.0f) out[blockIdx.x] = s; /* keeps the work alive */\n"
	"}\n"
	"extern \"C\" __global__ void cko_copy(const float4 *in, float4 *out, size_t n)\n"
	"{\n"
	"	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)\n"
	"		out[i] = in[i];\n"
	"}\n";

static double time_launches(CUfunction f, unsigned grid, unsigned block, void **args, int reps)
{
	CUevent a, b;
	CU_CHECK(cuEventCreate(&a, 0));
	CU_CHECK(cuEventCreate(&b, 0));
	double best = 1e30;
	for (int r = 0; r < reps + 1; r++) {
		CU_CHECK(cuEventRecord(a, NULL));
		CU_CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL));
		CU_CHECK(cuEventRecord(b, NULL));
		CU_CHECK(cuEventSynchronize(b));
		float ms;
		CU_CHECK(cuEventElapsedTime(&ms, a, b));
		if (r > 0 && ms < best) /* the first launch warms up */
			best = ms;
	}
	cuEventDestroy(a);
	cuEventDestroy(b);
	return best * 1e-3;
}

static void measure(const cko_gpu *g, cJSON *out)
{
	char arch[16];
	snprintf(arch, sizeof arch, "sm_%d%d", g->cc_major, g->cc_minor);
	cko_nvrtc_result r;
	cko_nvrtc_compile(measure_src, "cko-props-measure.cu", arch, NULL, 0, NULL, &r);
	if (!r.ok)
		cko_die(CKO_ENV, "measurement kernels failed to compile: %s", r.log);
	CUmodule mod;
	CUfunction fma, copy;
	CU_CHECK(cuModuleLoadData(&mod, r.cubin));
	CU_CHECK(cuModuleGetFunction(&fma, mod, "cko_fma"));
	CU_CHECK(cuModuleGetFunction(&copy, mod, "cko_copy"));
	cJSON *m = cJSON_AddObjectToObject(out, "measured");

	cko_info("measuring FP32 FMA rate");
	CUdeviceptr sink;
	CU_CHECK(cuMemAlloc(&sink, 1 << 20));
	int iters = 4096;
	float a = 0.999f, b = 0.001f;
	void *fargs[] = {&sink, &iters, &a, &b};
	unsigned blocks = (unsigned)g->sms * 8, threads = 256;
	double s = time_launches(fma, blocks, threads, fargs, 5);
	double flops = 2.0 * 8 * 16 * iters * (double)blocks * threads;
	cJSON_AddNumberToObject(m, "fp32_tflops", flops / s * 1e-12);

	cko_info("measuring copy bandwidth");
	size_t bytes = (size_t)1 << 30, n = bytes / 16;
	CUdeviceptr src, dst;
	CU_CHECK(cuMemAlloc(&src, bytes));
	CU_CHECK(cuMemAlloc(&dst, bytes));
	CU_CHECK(cuMemsetD8(src, 1, bytes));
	void *cargs[] = {&src, &dst, &n};
	s = time_launches(copy, (unsigned)g->sms * 16, 512, cargs, 10);
	cJSON_AddNumberToObject(m, "copy_gbps", 2.0 * (double)bytes / s * 1e-9);
	cJSON_AddStringToObject(m, "method", "copy: 1 GiB float4 grid-stride kernel, bytes read + written, best of 10; "
					     "fp32: 8 independent FMA chains per thread, best of 5");
	cuMemFree(src);
	cuMemFree(dst);
	cuMemFree(sink);
	cuModuleUnload(mod);
	cko_nvrtc_free(&r);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"measure", no_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},    {0, 0, 0, 0},
	};
	int do_measure = 0, c;
	const char *path = "-";
	while ((c = getopt_long(argc, argv, "mo:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': do_measure = 1; break;
		case 'o': path = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	cko_out_check(path);
	cko_gpu g;
	cko_gpu_open(&g);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "tool", "cko-props");
	cJSON_AddStringToObject(o, "name", g.name);
	CUuuid u;
	if (cuDeviceGetUuid(&u, g.dev) == CUDA_SUCCESS) {
		char hex[40];
		for (int i = 0; i < 16; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)u.bytes[i]);
		cJSON_AddStringToObject(o, "uuid", hex);
	}
	cJSON_AddNumberToObject(o, "ordinal", g.ordinal);
	char s[32];
	snprintf(s, sizeof s, "%d.%d", g.cc_major, g.cc_minor);
	cJSON_AddStringToObject(o, "compute_capability", s);
	snprintf(s, sizeof s, "sm_%d%d", g.cc_major, g.cc_minor);
	cJSON_AddStringToObject(o, "arch", s);
	int drv = 0;
	cuDriverGetVersion(&drv);
	cJSON_AddNumberToObject(o, "driver_cuda_version", drv);
	size_t mem = 0;
	CU_CHECK(cuDeviceTotalMem(&mem, g.dev));
	cJSON_AddNumberToObject(o, "memory_bytes", (double)mem);
	static const struct {
		const char *key;
		CUdevice_attribute a;
	} attrs[] = {
		{"sms", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
		{"clock_khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
		{"memory_clock_khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
		{"memory_bus_bits", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
		{"l2_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
		{"smem_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
		{"smem_per_block_optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
		{"smem_per_sm", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
		{"regs_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
		{"regs_per_sm", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
		{"max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
		{"max_threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
		{"max_blocks_per_sm", CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
		{"warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
		{"max_grid_x", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X},
		{"max_grid_y", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y},
		{"max_grid_z", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
	};
	int v[sizeof attrs / sizeof attrs[0]];
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		v[i] = 0;
		cuDeviceGetAttribute(&v[i], attrs[i].a, g.dev); /* a retired attribute reads as 0 */
		cJSON_AddNumberToObject(o, attrs[i].key, v[i]);
	}
	double clock_hz = v[1] * 1e3;
	cJSON *peak = cJSON_AddObjectToObject(o, "peak");
	cJSON_AddNumberToObject(peak, "fp32_tflops", g.sms * fp32_per_sm(g.cc_major, g.cc_minor) * 2.0 * clock_hz * 1e-12);
	cJSON_AddNumberToObject(peak, "dram_gbps", 2.0 * v[2] * 1e3 * v[3] / 8 * 1e-9);
	cJSON_AddStringToObject(peak, "note", "from the boost clock and bus width; measured figures are under measured");
	if (do_measure)
		measure(&g, o);
	cko_json_write(path, o);
	cJSON_Delete(o);
	return 0;
}
