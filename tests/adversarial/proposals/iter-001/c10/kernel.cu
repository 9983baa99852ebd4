// Writes NaN everywhere.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row < M && col < N)
		C[(size_t)row * N + col] = __int_as_float(0x7fc00000);
}
