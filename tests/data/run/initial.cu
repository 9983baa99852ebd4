// FAKE: ok time=5
extern "C" __global__ void copy(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
