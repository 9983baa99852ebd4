// Spins forever on a flag in global memory (the compiler cannot drop the loop).
__device__ volatile int spin = 1;
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	while (spin)
		;
	C[0] = A[0] + B[0];
}
