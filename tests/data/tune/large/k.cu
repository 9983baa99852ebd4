// cko-tune test kernel (never compiled by the tests).
extern "C" __global__ void k(float *y) { y[threadIdx.x] = A + B + C + D + E + F; }
