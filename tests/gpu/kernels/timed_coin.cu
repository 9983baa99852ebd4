// Correct on some launches only: a launch-wide coin from %globaltimer
// (its ~1 ms bit, read by thread 0 of block 0) spoils one element on about
// half the launches. A check of one timed launch passes half the time; the
// hashes of all timed launches catch it.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	if (row == 0 && col == 0 && ((t >> 20) & 1))
		acc += 1.0f;
	C[(size_t)row * N + col] = acc;
}
