// layernorm, simple: one block per row, three passes over the row in fp32:
// the mean, the biased variance as the mean of (x - mean)^2, then the
// outputs. Each reduction is a fixed tree in shared memory, so every launch
// gives the same bits. THREADS must be a power of two.
#ifndef THREADS
#define THREADS 256
#endif

__device__ float block_sum(float v, float *part)
{
	int t = threadIdx.x;
	part[t] = v;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] += part[t + w];
		__syncthreads();
	}
	float s = part[0];
	__syncthreads(); // part is reused by the next call
	return s;
}

extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y, int R, int C,
				     float eps)
{
	__shared__ float part[THREADS];
	const float *in = x + (size_t)blockIdx.x * C;
	float *out = y + (size_t)blockIdx.x * C;
	int t = threadIdx.x;

	float s = 0.0f;
	for (int i = t; i < C; i += THREADS)
		s += in[i];
	float mean = block_sum(s, part) / C;

	float q = 0.0f;
	for (int i = t; i < C; i += THREADS) {
		float d = in[i] - mean;
		q += d * d;
	}
	float var = block_sum(q, part) / C;
	float rstd = 1.0f / sqrtf(var + eps);

	for (int i = t; i < C; i += THREADS)
		out[i] = (in[i] - mean) * rstd * gamma[i] + beta[i];
}
