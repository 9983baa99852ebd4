// transpose, variant "tiled": y[c][r] = x[r][c], x is R x C, y is C x R.
//
// A block moves one TILE x TILE tile through shared memory: it reads rows
// of the tile from x (coalesced along c), and writes rows of the
// transposed tile to y (coalesced along r). The shared tile has a pitch of
// TILE + 1 floats, so reading a column of it touches 32 different banks.
// NT threads per block; each moves TILE*TILE/NT elements (TILE*TILE/(4*NT)
// float4s) per phase.
//
// With VEC = 4, a full tile of a matrix with R % 4 == 0 and C % 4 == 0 is
// read as float4s (four consecutive c of one row of x) and written as
// float4s (four consecutive r of one row of y), through scalar shared
// stores and loads; rows of x and y then start on 16-byte boundaries
// (buffers are 256-byte aligned). Every other tile (edges, other sizes,
// VEC = 1) takes the scalar path, which checks every index. The choice is
// uniform per block. Values are moved, never computed: exact and the same
// on every launch. Offsets are 64-bit.
//
// Tunables (-D): TILE (32 or 64), NT (threads), VEC (1 or 4). Launch:
//   grid  = (ceil_div(C, TILE), ceil_div(R, TILE), 1)
//   block = NT

#ifndef TILE
#define TILE 32
#endif
#ifndef NT
#define NT 256
#endif
#ifndef VEC
#define VEC 4
#endif

#define PITCH (TILE + 1)
#define TV (TILE / 4) // float4s per tile row

static_assert(TILE == 32 || TILE == 64, "TILE: 32 or 64");
static_assert(VEC == 1 || VEC == 4, "VEC: 1 or 4");
static_assert(NT >= 32 && NT <= 1024 && NT % 32 == 0, "NT: a multiple of 32 up to 1024");
static_assert((TILE * TILE) % NT == 0 && (TILE * TILE / 4) % NT == 0, "NT must divide the tile's float4s");

extern "C" __global__ void __launch_bounds__(NT)
	transpose(const float *__restrict__ x, float *__restrict__ y, int R, int C)
{
	__shared__ float tile[TILE * PITCH];
	const int t = threadIdx.x;
	const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;

	if (VEC == 4 && R % 4 == 0 && C % 4 == 0 && r0 + TILE <= R && c0 + TILE <= C) {
		// Element (i, j) of the tile is x[r0+i][c0+j], kept at tile[i*PITCH+j].
#pragma unroll
		for (int p = 0; p < TILE * TV / NT; p++) {
			const int idx = t + p * NT, i = idx / TV, j = 4 * (idx % TV);
			const float4 q = __ldg((const float4 *)(x + (size_t)(r0 + i) * C + c0 + j));
			float *d = tile + i * PITCH + j;
			d[0] = q.x, d[1] = q.y, d[2] = q.z, d[3] = q.w;
		}
		__syncthreads();
		// Row jj of the transposed tile is y[c0+jj][r0 .. r0+TILE).
#pragma unroll
		for (int p = 0; p < TILE * TV / NT; p++) {
			const int idx = t + p * NT, jj = idx / TV, ii = 4 * (idx % TV);
			const float *s = tile + ii * PITCH + jj;
			*(float4 *)(y + (size_t)(c0 + jj) * R + r0 + ii) = make_float4(s[0], s[PITCH], s[2 * PITCH], s[3 * PITCH]);
		}
		return;
	}

#pragma unroll
	for (int p = 0; p < TILE * TILE / NT; p++) {
		const int idx = t + p * NT, i = idx / TILE, j = idx % TILE;
		if (r0 + i < R && c0 + j < C)
			tile[i * PITCH + j] = __ldg(x + (size_t)(r0 + i) * C + c0 + j);
	}
	__syncthreads();
#pragma unroll
	for (int p = 0; p < TILE * TILE / NT; p++) {
		const int idx = t + p * NT, jj = idx / TILE, ii = idx % TILE;
		if (c0 + jj < C && r0 + ii < R)
			y[(size_t)(c0 + jj) * R + r0 + ii] = tile[ii * PITCH + jj];
	}
}
