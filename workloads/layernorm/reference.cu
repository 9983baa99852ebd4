// layernorm reference: one block per row, everything in double. The mean,
// then the biased variance as the mean of (x - mean)^2 (two passes, no
// cancellation), each combined by a fixed tree in shared memory; outputs
// are computed in double and rounded once. Deterministic by construction.
#define THREADS 256

__device__ double block_sum(double v, double *part)
{
	int t = threadIdx.x;
	part[t] = v;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if (t < w)
			part[t] += part[t + w];
		__syncthreads();
	}
	double s = part[0];
	__syncthreads(); // part is reused by the next call
	return s;
}

extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y, int R, int C,
				     float eps)
{
	__shared__ double part[THREADS];
	const float *in = x + (size_t)blockIdx.x * C;
	float *out = y + (size_t)blockIdx.x * C;
	int t = threadIdx.x;

	double s = 0.0;
	for (int i = t; i < C; i += THREADS)
		s += (double)in[i];
	double mean = block_sum(s, part) / C;

	double q = 0.0;
	for (int i = t; i < C; i += THREADS) {
		double d = (double)in[i] - mean;
		q += d * d;
	}
	double var = block_sum(q, part) / C;
	double rstd = 1.0 / sqrt(var + (double)eps);

	for (int i = t; i < C; i += THREADS)
		out[i] = (float)(((double)in[i] - mean) * rstd * (double)gamma[i] + (double)beta[i]);
}
