// Correct, but with a data race: thread 0 of each block writes a shared
// variable that the other threads read with no barrier between. The output
// does not depend on what they read (the value only matters in a branch no
// input takes), so cko-run's two launches agree and cko-compare passes;
// compute-sanitizer's racecheck reports the hazard (tests/gpu/sanitize.sh).
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ volatile int published;
	if (threadIdx.x == 0 && threadIdx.y == 0)
		published = K;
	int seen = published; /* races with the write above */
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	if (seen == K && seen < 0) /* never: K > 0 */
		acc = 0.0f;
	C[(size_t)row * N + col] = acc;
}
