// Correct in practice, racy in principle: thread 0 publishes K through
// shared memory and the other threads read it after a delay instead of a
// barrier. cko-run's two launches agree; compute-sanitizer's racecheck
// reports the hazard (tests/gpu/sanitize.sh).
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ volatile int k_shared;
	if (threadIdx.x == 0 && threadIdx.y == 0)
		k_shared = K;
	long long t0 = clock64();
	while (clock64() - t0 < 20000)
		;
	int kk = k_shared;
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < kk; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc;
}
