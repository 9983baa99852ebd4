// sgemm reference: C = A * B, row-major, one output element per thread.
// Products of two floats are exact in double and the sum runs in double in
// a fixed order (k = 0, 1, ...), so the result is deterministic and the only
// rounding that matters is the final one to float. Tiles of A and B pass
// through shared memory only to keep the reference quick on large cases.
#define TILE 16

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	double acc = 0.0;
	for (int k0 = 0; k0 < K; k0 += TILE) {
		int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
		As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[(size_t)row * K + ka] : 0.0f;
		Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[(size_t)kb * N + col] : 0.0f;
		__syncthreads();
		int kn = K - k0 < TILE ? K - k0 : TILE;
		for (int k = 0; k < kn; k++)
			acc += (double)As[threadIdx.y][k] * (double)Bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = (float)acc;
}
