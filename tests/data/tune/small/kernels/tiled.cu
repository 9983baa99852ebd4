// A second variant for cko-tune's tests (never compiled by them).
extern "C" __global__ void scale(int n, const float *x, float *y)
{
	int i = (blockIdx.x * TILE * TILE + threadIdx.x) * VEC;
	for (int u = 0; u < VEC; u++)
		if (i + u < n)
			y[i + u] = 2.0f * x[i + u];
}
