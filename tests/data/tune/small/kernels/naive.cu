// A tiny kernel for cko-tune's tests: the tuner copies it, never compiles it.
extern "C" __global__ void scale(int n, const float *x, float *y)
{
	int i = (blockIdx.x * BS + threadIdx.x) * UNROLL;
	for (int u = 0; u < UNROLL; u++)
		if (i + u < n)
			y[i + u] = 2.0f * x[i + u];
}
