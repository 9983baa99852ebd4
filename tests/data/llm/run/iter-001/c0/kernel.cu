extern "C" __global__ void scale2d(int M, int N, const float *X, float *Y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	Y[j] = 2.0f * X[j]; /* BUGGY: rows ignored */
}
