// transpose, naive: one thread per element, y[c][r] = x[r][c]. threadIdx.x
// runs along a row of x, so reads are coalesced and writes are strided by R.
extern "C" __global__ void transpose(const float *x, float *y, int R, int C)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < R && c < C)
		y[(size_t)c * R + r] = x[(size_t)r * C + c];
}
