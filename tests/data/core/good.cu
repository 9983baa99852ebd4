extern "C" __global__ void scale(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = FACTOR * x[i];
}
