// softmax reference: one block per row. The row's maximum, then the sum of
// exp(x - max) in double, each combined by a fixed tree in shared memory;
// every output is exp(x - max) / sum computed in double and rounded once.
// Fixed order throughout, so the result is deterministic.
#define THREADS 256

extern "C" __global__ void softmax(const float *x, float *y, int R, int C)
{
	__shared__ double part[THREADS];
	const float *in = x + (size_t)blockIdx.x * C;
	float *out = y + (size_t)blockIdx.x * C;
	int t = threadIdx.x;

	double m = in[0]; // C >= 1: every row has an element 0
	for (int i = t; i < C; i += THREADS)
		m = fmax(m, (double)in[i]);
	part[t] = m;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] = fmax(part[t], part[t + w]);
		__syncthreads();
	}
	m = part[0];
	__syncthreads();

	double s = 0.0;
	for (int i = t; i < C; i += THREADS)
		s += exp((double)in[i] - m);
	part[t] = s;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] += part[t + w];
		__syncthreads();
	}
	s = part[0];

	for (int i = t; i < C; i += THREADS)
		out[i] = (float)(exp((double)in[i] - m) / s);
}
