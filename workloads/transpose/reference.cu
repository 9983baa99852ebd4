// transpose reference: one thread per element of x, y[c][r] = x[r][c].
// 64-bit indices throughout; a pure copy, so trivially deterministic.
extern "C" __global__ void transpose(const float *x, float *y, int R, int C)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)R * C)
		return;
	size_t r = i / C, c = i % C;
	y[c * R + r] = x[i];
}
