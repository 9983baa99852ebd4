# cko-export on the GPU: for each built-in workload, a run with
# no iterations (the initial kernel is the best), exported; the exported
# NAME.cu built with nvcc and called through NAME_launch from a program
# made from each performance case's replay request (inputs of set 0 read
# from the .npy files) gives bit for bit the outputs cko-run kept in
# replay/out/, and its median time (L2 flushed before each launch, as
# cko-bench does) is within 2% of cko-bench's on the same request cut to
# the same inputs (set 0). Every
# visible case's outputs are compared; times only for performance cases.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/export "no GPU"; finish; fi
CUDA=${CUDA:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
[ -x "$NVCC" ] || { skip gpu/export "no nvcc at $NVCC"; finish; }

# driver REQUEST NAME: C++ source calling NAME_launch on set 0 of the
# request, writing each output's raw bytes to out-NAME.bin and the median
# milliseconds of 50 flushed launches to stdout.
driver() {
	jq -r --arg n "$2" '
	def ctype: {"f16": "uint16_t", "f32": "float", "f64": "double", "i8": "int8_t", "i16": "int16_t",
		"i32": "int32_t", "i64": "int64_t", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t",
		"u64": "uint64_t"}[.dtype];
	def count: reduce .shape[] as $d (1; . * $d);
	"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <algorithm>\n#include <vector>\n#include \"\($n).h\"",
	"static void *npy(const char *path, size_t bytes)\n{\n\tFILE *f = fopen(path, \"rb\");\n\tunsigned char h[12];\n\tif (!f || fread(h, 1, 10, f) != 10) { perror(path); exit(3); }\n\tsize_t off = h[6] == 1 ? 10 + (h[8] | h[9] << 8) : (fread(h + 10, 1, 2, f), 12 + (h[8] | h[9] << 8 | h[10] << 16 | (size_t)h[11] << 24));\n\tvoid *p = malloc(bytes);\n\tif (fseek(f, (long)off, SEEK_SET) || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, \"%s: short\\n\", path); exit(3); }\n\tfclose(f);\n\treturn p;\n}",
	"#define CK(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { fprintf(stderr, \"%s: %s\\n\", #x, cudaGetErrorString(r_)); exit(3); } } while (0)",
	"int main(int argc, char **argv)\n{\n\tconst char *in = argv[1];\n\tchar path[4096];\n\t(void)argc;\n\tsize_t offset = getenv(\"CKO_DRIVER_OFFSET\") ? (size_t)atol(getenv(\"CKO_DRIVER_OFFSET\")) : 0;\n\tsize_t gap = getenv(\"CKO_DRIVER_GAP\") ? (size_t)atol(getenv(\"CKO_DRIVER_GAP\")) : 0;",
	(.params[] | select(.kind == "buffer") |
		"\t\(ctype) *\(.name);\n\tsize_t \(.name)_bytes = (size_t)\(count) * sizeof(\(ctype));\n\tCK(cudaMalloc((void **)&\(.name), \(.name)_bytes + offset));\n\t\(.name) = (\(ctype) *)((char *)\(.name) + offset);\n\tif (gap) { void *pad; CK(cudaMalloc(&pad, gap)); }" +
		(if .role != "out" then
			"\n\tsnprintf(path, sizeof path, \"%s/\(.name).npy\", in);\n\t{ void *h = npy(path, \(.name)_bytes); CK(cudaMemcpy(\(.name), h, \(.name)_bytes, cudaMemcpyHostToDevice)); free(h); }"
		 else "" end)),
	(.params[] | select(.kind == "scalar") | "\t\(ctype) \(.name) = (\(ctype))\(.value);"),
	"\tint l2 = 0;\n\tCK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));\n\tsize_t fb = std::max((size_t)2 * l2, (size_t)64 << 20);\n\tvoid *flush;\n\tCK(cudaMalloc(&flush, fb));",
	"\tcudaEvent_t a, b;\n\tCK(cudaEventCreate(&a));\n\tCK(cudaEventCreate(&b));\n\tstd::vector<float> ms;",
	"\tint poison = getenv(\"CKO_DRIVER_POISON\") != NULL;",
	"\tfor (int it = 0; it < 60; it++) {",
	(.params[] | select(.kind == "buffer" and .role == "out") |
		"\t\tif (poison)\n\t\t\tCK(cudaMemset(\(.name), 0xff, \(.name)_bytes));"),
	"\t\tCK(cudaMemset(flush, it & 0xff, fb));",
	(.params[] | select(.kind == "buffer" and .role == "inout") |
		"\t\t{ snprintf(path, sizeof path, \"%s/\(.name).npy\", in); void *h = npy(path, \(.name)_bytes); CK(cudaMemcpy(\(.name), h, \(.name)_bytes, cudaMemcpyHostToDevice)); free(h); }"),
	"\t\tCK(cudaEventRecord(a, 0));\n\t\tCK(\($n)_launch(" + ([.params[].name] | join(", ")) + ", 0));\n\t\tCK(cudaEventRecord(b, 0));\n\t\tCK(cudaEventSynchronize(b));\n\t\tfloat t;\n\t\tCK(cudaEventElapsedTime(&t, a, b));\n\t\tif (it >= 10)\n\t\t\tms.push_back(t);\n\t}",
	(.params[] | select(.kind == "buffer" and .role != "in") |
		"\t{ void *h = malloc(\(.name)_bytes); CK(cudaMemcpy(h, \(.name), \(.name)_bytes, cudaMemcpyDeviceToHost)); FILE *f = fopen(\"out-\(.name).bin\", \"wb\"); fwrite(h, 1, \(.name)_bytes, f); fclose(f); free(h); }"),
	"\tstd::sort(ms.begin(), ms.end());\n\tprintf(\"%.6f\\n\", ms[ms.size() / 2]);\n\treturn 0;\n}"' "$1"
}

# npy_offset FILE: where an .npy file's data starts (reads the header only).
npy_offset() {
	python3 - "$1" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read(12)
print(10 + int.from_bytes(b[8:10], 'little') if b[6] == 1 else 12 + int.from_bytes(b[8:12], 'little'))
EOF
}

for w in ${CKO_WORKLOADS:-sgemm reduce_sum softmax transpose layernorm}; do
	run=$(cko-init --workload "$w" --max-iterations 0 --results "$T/$w") || { fail "gpu/export-$w" "cko-init failed"; continue; }
	if ! timeout "${CKO_WORKLOAD_TIMEOUT:-90}" make -C "$run" -f run.mk >"$T/$w.log" 2>&1; then
		fail "gpu/export-$w" "the run: $(tail -5 "$T/$w.log")"
		rm -rf "$run"
		continue
	fi
	if ! make -C "$run" -f run.mk export >"$T/$w-export.log" 2>&1; then
		fail "gpu/export-$w" "make export: $(tail -5 "$T/$w-export.log")"
		rm -rf "$run"
		continue
	fi
	e=$run/export
	entry=$(jq -r .entry "$run/workload/signature.json")
	arch=$(jq -r .arch "$run/props.json")
	if ! "$NVCC" -arch="$arch" -O3 -c -o "$T/$w.o" "$e/$entry.cu" >"$T/$w-nvcc.log" 2>&1; then
		fail "gpu/export-$w-nvcc" "$(head -c 600 "$T/$w-nvcc.log")"
		rm -rf "$run"
		continue
	fi
	"$NVCC" -arch="$arch" -I"$e" -o "$T/$w-example" "$e/example.cu" "$T/$w.o" &&
		expect_status "gpu/export-$w-example" 0 "$T/$w-example"
	same=1 fast=1
	cs=$(jq -r '.[] | select(.hidden | not) | .name' "$run/cases/index.json")
	# The drivers are built side by side (one nvcc each, seconds apiece).
	for c in $cs; do
		[ -f "$run/replay/$c.json" ] && driver "$run/replay/$c.json" "$entry" >"$T/$w-$c.cu"
	done
	for c in $cs; do
		[ -f "$T/$w-$c.cu" ] && echo "$c"
	done | xargs -P "${CKO_JOBS:-8}" -I{} sh -c \
		'"$0" -arch="$1" -O2 -I"$2" -o "$3-{}" "$3-{}.cu" "$4" >"$3-{}.log" 2>&1' "$NVCC" "$arch" "$e" "$T/$w" "$T/$w.o"
	for c in $cs; do
		r=$run/replay/$c.json
		[ -f "$r" ] || { fail "gpu/export-$w-$c" "no replay request"; same=0; continue; }
		if [ ! -x "$T/$w-$c" ]; then
			fail "gpu/export-$w-$c-driver" "$(head -c 600 "$T/$w-$c.log")"
			same=0
			continue
		fi
		in=$(cd "$run/replay" && cd "$(jq -r '.sets[0].in' "$r")" && pwd)
		mkdir -p "$T/$w-$c.out"
		ms=$(cd "$T/$w-$c.out" && "$T/$w-$c" "$in") || { fail "gpu/export-$w-$c" "the driver failed"; same=0; continue; }
		for o in $(jq -r '.params[] | select(.kind == "buffer" and .role != "in") | .name' "$r"); do
			want=$run/replay/out/$c/0/$o.npy
			cmp -s -i "$(npy_offset "$want"):0" "$want" "$T/$w-$c.out/out-$o.bin" ||
				{ same=0; fail "gpu/export-$w-$c-bits" "output $o differs from cko-run's (replay/out/$c/0/$o.npy)"; }
		done
		if [ "$(jq -r .kind "$run/cases/$c/case.json")" = performance ]; then
			# The driver times set 0's buffers alone, so cko-bench times the
			# same request cut to set 0 (its protocol otherwise the same).
			# With both sets it rotates them, and where the sets' buffers
			# lie moves an L2-bound kernel's time (layernorm's initial kernel
			# on long rows: set 0 1.087 ms, set 1 1.267 ms in one process).
			jq '.sets |= .[:1]' "$r" >"$run/replay/$c-set0.json"
			cko-bench -o "$T/$w-$c-bench.json" "$run/replay/$c-set0.json" >/dev/null 2>&1 ||
				{ fail "gpu/export-$w-$c-bench" "cko-bench failed"; continue; }
			bm=$(jq -r '.cases[0].median_ms' "$T/$w-$c-bench.json")
			cko-bench -o "$T/$w-$c-bench2.json" "$r" >/dev/null 2>&1
			echo "info gpu/export-$w-$c: exported $ms ms, cko-bench on set 0 $bm ms (on the request's $(jq '.sets | length' "$r") sets $(jq -r '.cases[0].median_ms' "$T/$w-$c-bench2.json" 2>/dev/null) ms)"
			# CKO_EXPORT_DIAG="W...": for those workloads, where a gap between
			# the two comes from (the order of the runs, the outputs'
			# poisoning, the buffers' addresses, the flush).
			if case " ${CKO_EXPORT_DIAG:-} " in *" $w "*) true ;; *) false ;; esac; then
				ms2=$(cd "$T/$w-$c.out" && "$T/$w-$c" "$in")
				msp=$(cd "$T/$w-$c.out" && CKO_DRIVER_POISON=1 "$T/$w-$c" "$in")
				mso=$(cd "$T/$w-$c.out" && CKO_DRIVER_OFFSET=4096 "$T/$w-$c" "$in")
				gaps=
				for gmb in 2 4 6 8 64; do
					gaps="$gaps ${gmb}MB $(cd "$T/$w-$c.out" && CKO_DRIVER_GAP=$((gmb << 20)) "$T/$w-$c" "$in")"
				done
				echo "info gpu/export-$w-$c-gaps: with a gap allocated after each buffer:$gaps"
				cko-bench -o "$T/b2.json" "$r" >/dev/null 2>&1
				cko-bench --no-flush -o "$T/b3.json" "$r" >/dev/null 2>&1
				echo "info gpu/export-$w-$c-diag: exported again $ms2, exported with poisoned outputs $msp, with buffers 4 KB past cudaMalloc's start $mso," \
					"cko-bench again $(jq -r '.cases[0].median_ms' "$T/b2.json"), no flush $(jq -r '.cases[0].median_ms' "$T/b3.json") ms"
				# cko-bench rotates the request's input sets (timed launch t
				# uses set (10 + t) % sets): the medians of each set's launches.
				cko-bench -o "$T/b4.json" "$run/replay/$c-set0.json" >/dev/null 2>&1
				CUDA_MODULE_LOADING=EAGER cko-bench -o "$T/b5.json" "$r" >/dev/null 2>&1
				med='def med: sort | .[length / 2 | floor]; .cases[0] | [.samples_ms | to_entries[] | select(.key % 2 == 0) | .value] as $e | [.samples_ms | to_entries[] | select(.key % 2 == 1) | .value] as $o | "set 0 \($e | med), set 1 \($o | med)"'
				echo "info gpu/export-$w-$c-sets: cko-bench on both sets, by set: $(jq -r "$med" "$T/$w-$c-bench2.json"); again: $(jq -r "$med" "$T/b2.json");" \
					"set 0 again: $(jq -r '.cases[0].median_ms' "$T/b4.json"); module loading eager: $(jq -r '.cases[0].median_ms' "$T/b5.json") ms"
				if command -v ncu >/dev/null; then
					ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
						-k "$entry" -c 3 -s 10 "$T/$w-$c" "$in" 2>&1 | grep -E 'gpu__time|dram__bytes|hit_rate' | sed "s/^/info gpu\/export-$w-$c-ncu: /"
				fi
			fi
			awk -v a="$ms" -v b="$bm" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02 * b) }' ||
				{ fast=0; fail "gpu/export-$w-$c-time" "exported $ms ms vs cko-bench $bm ms (more than 2% apart)"; }
		fi
	done
	[ $same = 1 ] && ok "gpu/export-$w-bits"
	[ $fast = 1 ] && ok "gpu/export-$w-time"
	rm -rf "$run" # gigabytes of inputs and outputs
done
finish
