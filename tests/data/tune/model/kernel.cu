// A model's candidate with tunables, for cko-tune's tests (never compiled).
extern "C" __global__ void k(int n, const float *x, float *y)
{
	int i = blockIdx.x * BM + threadIdx.x;
	if (i < n)
		y[i] = x[i] * VEC * BK;
}
