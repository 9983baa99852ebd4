// Rounds the inputs to half precision and accumulates in half.
#include <cuda_fp16.h>
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	__half acc = __float2half(0.0f);
	for (int k = 0; k < K; k++)
		acc = __hfma(__float2half(A[(size_t)row * K + k]), __float2half(B[(size_t)k * N + col]), acc);
	C[(size_t)row * N + col] = __half2float(acc);
}
