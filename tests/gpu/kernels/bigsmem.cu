// Correct SGEMM that also uses 100 KB of dynamic shared memory (opt-in above 48 KB).
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	extern __shared__ float pad[];
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	int t = threadIdx.y * blockDim.x + threadIdx.x;
	pad[t] = (float)t;
	pad[25000 + t] = 1.0f;
	__syncthreads();
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc * pad[25000 + t];
}
