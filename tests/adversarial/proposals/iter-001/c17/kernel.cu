// Splits K over blockIdx.z and adds partial sums into C with atomics.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	int per = (K + gridDim.z - 1) / gridDim.z, k0 = blockIdx.z * per, k1 = min(K, k0 + per);
	float acc = 0.0f;
	for (int k = k0; k < k1; k++)
		acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	atomicAdd(&C[(size_t)row * N + col], acc);
}
