// Never finishes: the watchdog must stop it. The flag lives in global
// memory, so the compiler cannot drop the loop.
__device__ volatile int cko_spin = 1;
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
	while (cko_spin)
		;
	C[0] = A[0];
}
