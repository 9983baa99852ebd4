// Correct, plus a write of a few elements past the end of C.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = acc;
	if (row == M - 1 && col < 4)
		C[(size_t)M * N + 8 + col] = acc;
}
