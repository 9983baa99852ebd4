// Correct, but its launch asks for more shared memory than a block may have.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	extern __shared__ float big[];
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	big[threadIdx.y * 16 + threadIdx.x] = 0.0f;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc + big[threadIdx.y * 16 + threadIdx.x];
}
