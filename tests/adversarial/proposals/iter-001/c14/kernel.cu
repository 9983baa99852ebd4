// C += A*B: reads its output before writing it.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = C[(size_t)row * N + col];
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc;
}
