// sgemm, naive: C = A * B, row-major, one thread per element of C, fp32
// accumulation along K. threadIdx.x runs along a row of C so that reads of
// B and writes of C are coalesced; each thread reads its row of A.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc;
}
