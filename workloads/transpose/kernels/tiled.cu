// transpose, variant "tiled": y[c][r] = x[r][c], x is R x C, y is C x R.
//
// A block moves one TILE x TILE tile through shared memory: it reads rows
// of the tile from x (coalesced along c), and writes rows of the
// transposed tile to y (coalesced along r). The shared tile has a pitch of
// TILE + 1 floats, so reading a column of it touches 32 different banks.
// NT threads per block; each moves TILE*TILE/NT elements (TILE*TILE/(4*NT)
// float4s) per phase, all of its loads issued before the first shared
// store, so that many loads are in flight per thread.
//
// The grid is one-dimensional, one block per tile (no grid-y limit on R),
// in grouped order: blocks run down GROUP tile rows before moving one tile
// column right, so the blocks resident at a time read GROUP*TILE rows of x
// over a stretch of columns and write as many rows of y over a stretch of
// columns; with GROUP = 1 they sweep along rows of x (long runs in x, short
// ones scattered over all rows of y). GROUP trades the two sides' DRAM
// page locality.
//
// With VEC = 4, a full tile of a matrix with R % 4 == 0 and C % 4 == 0 is
// read as float4s (four consecutive c of one row of x) and written as
// float4s (four consecutive r of one row of y), through scalar shared
// stores and loads; rows of x and y then start on 16-byte boundaries
// (buffers are 256-byte aligned). Every other tile (edges, other sizes,
// VEC = 1) takes the scalar path, which checks every index. The choice is
// uniform per block. Values are moved, never computed: exact and the same
// on every launch. Element offsets are 64-bit.
//
// Tunables (-D): TILE (32 or 64), NT (threads), GROUP (tile rows per group
// of the block order), VEC (1 or 4). Launch:
//   grid  = (ceil_div(R, TILE) * ceil_div(C, TILE), 1, 1)
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
#ifndef GROUP
#define GROUP 8
#endif

#define PITCH (TILE + 1)
#define TV (TILE / 4)                 // float4s per tile row
#define PV (TILE * TV / NT)           // float4s per thread per phase
#define PS (TILE * TILE / NT)         // elements per thread per phase

static_assert(TILE == 32 || TILE == 64, "TILE: 32 or 64");
static_assert(VEC == 1 || VEC == 4, "VEC: 1 or 4");
static_assert(GROUP >= 1 && GROUP <= 64, "GROUP: 1 to 64");
static_assert(NT >= 32 && NT <= 1024 && NT % 32 == 0, "NT: a multiple of 32 up to 1024");
static_assert((TILE * TILE) % NT == 0 && (TILE * TILE / 4) % NT == 0, "NT must divide the tile's float4s");

extern "C" __global__ void __launch_bounds__(NT)
	transpose(const float *__restrict__ x, float *__restrict__ y, int R, int C)
{
	__shared__ float tile[TILE * PITCH];
	const int t = threadIdx.x;

	// The block's tile (tr, tc) in grouped order. The grid has exactly
	// ntr * ntc blocks, so first < ntr and the group has rows >= 1 tile
	// rows; ntc * GROUP < 2^32 for any int C.
	const unsigned ntr = ((unsigned)R + TILE - 1) / TILE, ntc = ((unsigned)C + TILE - 1) / TILE;
	const unsigned b = blockIdx.x, per = GROUP * ntc, g = b / per, first = g * GROUP;
	const unsigned rows = ntr - first < GROUP ? ntr - first : GROUP, rem = b - g * per;
	const int r0 = (int)((first + rem % rows) * TILE), c0 = (int)((rem / rows) * TILE);

	if (VEC == 4 && R % 4 == 0 && C % 4 == 0 && r0 + TILE <= R && c0 + TILE <= C) {
		// Element (i, j) of the tile is x[r0+i][c0+j], kept at tile[i*PITCH+j].
		float4 v[PV];
#pragma unroll
		for (int p = 0; p < PV; p++) {
			const int idx = t + p * NT, i = idx / TV, j = 4 * (idx % TV);
			v[p] = __ldg((const float4 *)(x + (size_t)(r0 + i) * C + c0 + j));
		}
#pragma unroll
		for (int p = 0; p < PV; p++) {
			const int idx = t + p * NT, i = idx / TV, j = 4 * (idx % TV);
			float *d = tile + i * PITCH + j;
			d[0] = v[p].x, d[1] = v[p].y, d[2] = v[p].z, d[3] = v[p].w;
		}
		__syncthreads();
		// Row jj of the transposed tile is y[c0+jj][r0 .. r0+TILE).
#pragma unroll
		for (int p = 0; p < PV; p++) {
			const int idx = t + p * NT, jj = idx / TV, ii = 4 * (idx % TV);
			const float *s = tile + ii * PITCH + jj;
			*(float4 *)(y + (size_t)(c0 + jj) * R + r0 + ii) = make_float4(s[0], s[PITCH], s[2 * PITCH], s[3 * PITCH]);
		}
		return;
	}

	float v[PS];
#pragma unroll
	for (int p = 0; p < PS; p++) {
		const int idx = t + p * NT, i = idx / TILE, j = idx % TILE;
		if (r0 + i < R && c0 + j < C)
			v[p] = __ldg(x + (size_t)(r0 + i) * C + c0 + j);
	}
#pragma unroll
	for (int p = 0; p < PS; p++) {
		const int idx = t + p * NT, i = idx / TILE, j = idx % TILE;
		if (r0 + i < R && c0 + j < C)
			tile[i * PITCH + j] = v[p];
	}
	__syncthreads();
#pragma unroll
	for (int p = 0; p < PS; p++) {
		const int idx = t + p * NT, jj = idx / TILE, ii = idx % TILE;
		if (c0 + jj < C && r0 + ii < R)
			y[(size_t)(c0 + jj) * R + r0 + ii] = tile[ii * PITCH + jj];
	}
}
