// Faults: writes far outside any allocation.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	C[(size_t)row * N + col + ((size_t)1 << 40)] = 1.0f;
}
