// reduce_sum reference: y[r] = sum of row r of x. One block per row; each
// thread adds a strided slice of the row in double, then the block's
// partial sums are combined by a fixed tree in shared memory. The order of
// every addition is fixed, so the result is deterministic.
#define THREADS 256

extern "C" __global__ void reduce_sum(const float *x, float *y, int R, int N)
{
	__shared__ double part[THREADS];
	const float *row = x + (size_t)blockIdx.x * N;
	double s = 0.0;
	for (int i = threadIdx.x; i < N; i += THREADS)
		s += (double)row[i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = (float)part[0];
}
