// reduce_sum, simple: one block per row. Each thread sums a strided slice
// of the row in fp32 (reads are coalesced across the block), then a fixed
// tree in shared memory adds the THREADS partial sums, so every launch
// gives the same bits. THREADS must be a power of two.
#ifndef THREADS
#define THREADS 256
#endif

extern "C" __global__ void reduce_sum(const float *x, float *y, int R, int N)
{
	__shared__ float part[THREADS];
	const float *row = x + (size_t)blockIdx.x * N;
	float s = 0.0f;
	for (int i = threadIdx.x; i < N; i += THREADS)
		s += row[i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = part[0];
}
