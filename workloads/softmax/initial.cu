// softmax, simple: one block per row, three passes over the row in fp32:
// the maximum, the sum of expf(x - max), then the outputs. Each reduction
// is a fixed tree in shared memory, so every launch gives the same bits.
// THREADS must be a power of two.
#ifndef THREADS
#define THREADS 256
#endif

extern "C" __global__ void softmax(const float *x, float *y, int R, int C)
{
	__shared__ float part[THREADS];
	const float *in = x + (size_t)blockIdx.x * C;
	float *out = y + (size_t)blockIdx.x * C;
	int t = threadIdx.x;

	float m = in[0]; // C >= 1: every row has an element 0
	for (int i = t; i < C; i += THREADS)
		m = fmaxf(m, in[i]);
	part[t] = m;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] = fmaxf(part[t], part[t + w]);
		__syncthreads();
	}
	m = part[0];
	__syncthreads();

	float s = 0.0f;
	for (int i = t; i < C; i += THREADS)
		s += expf(in[i] - m);
	part[t] = s;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] += part[t + w];
		__syncthreads();
	}
	float inv = 1.0f / part[0];

	for (int i = t; i < C; i += THREADS)
		out[i] = expf(in[i] - m) * inv;
}
