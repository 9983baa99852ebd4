// scale2d: Y = 2 X, one thread per element; a comment with a fake
// declaration that must not count: extern "C" __global__ void other(
#include <cuda_fp16.h>

#ifndef BX
#define BX 32
#endif

static __device__ float twice(float x) { return 2.0f * x; }

extern "C" __global__ void __launch_bounds__(1024) scale2d(int M, int N, const float *__restrict__ X,
							    float *__restrict__ Y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < M && j < N)
		Y[(size_t)i * N + j] = twice(X[(size_t)i * N + j]);
}
