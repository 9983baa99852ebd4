// Tiled with shared memory but no barriers: threads read tiles before others wrote them.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[16][16], Bs[16][16];
	int tx = threadIdx.x, ty = threadIdx.y, col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
	float acc = 0.0f;
	for (int t = 0; t < K; t += 16) {
		As[ty][tx] = row < M && t + tx < K ? A[(size_t)row * K + t + tx] : 0.0f;
		Bs[ty][tx] = col < N && t + ty < K ? B[(size_t)(t + ty) * N + col] : 0.0f;
		for (int k = 0; k < 16; k++)
			acc += As[ty][(k + 7 * ty) % 16] * Bs[(k + 7 * ty) % 16][tx];
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = acc;
}
