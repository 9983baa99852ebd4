#!/bin/sh
# npy-tool: cko-npy writes the same bytes NumPy does (tests/data/npy, made
# by NumPy), prints values exactly, and refuses bad files and arguments
# with status 2 and a message.
. "$(dirname "$0")/../lib.sh"
N=$DATA/npy

# Byte for byte what NumPy wrote, for the dtypes whose values are exact
# through a double (cko-npy parses numbers as doubles).
for spec in "i8 0 1 -1 -128 127 42" "i16 0 1 -1 -32768 32767 42" "i32 0 1 -1 -2147483648 2147483647 42" \
	"u8 0 1 2 0 255 42" "u16 0 1 2 0 65535 42" "u32 0 1 2 0 4294967295 42" \
	"f16 0 1 -2.5 0.5 -0 65504" "f32 0 1 -2.5 0.5 -0 65504" "f64 0 1 -2.5 0.5 -0 65504"; do
	set -- $spec
	t=$1; shift
	if cko-npy -t "$t" -s 2,3 -o "$T/$t.npy" -- "$@" 2>"$T/err" && cmp -s "$T/$t.npy" "$N/$t.npy"; then
		ok "npy-tool-same-bytes-as-numpy-$t"
	else
		fail "npy-tool-same-bytes-as-numpy-$t" "$(cat "$T/err"; cmp "$T/$t.npy" "$N/$t.npy" 2>&1)"
	fi
done
cko-npy -t i32 -s 7 -o "$T/vec.npy" -- 0 1 2 3 4 5 6
cmp -s "$T/vec.npy" "$N/vec-i32.npy" && ok npy-tool-same-bytes-1d || fail npy-tool-same-bytes-1d "differs from NumPy's"
cko-npy -t f64 -s '' -o "$T/s.npy" 3.25
cmp -s "$T/s.npy" "$N/scalar-f64.npy" && ok npy-tool-same-bytes-0d || fail npy-tool-same-bytes-0d "differs from NumPy's"

# Printing NumPy's files: 64-bit extremes exactly, floats with their sign.
expect_status npy-tool-print-i64 0 cko-npy "$N/i64.npy"
expect_eq npy-tool-print-i64-values "$(tail -n 6 "$T/last.out" | tr '\n' ' ')" \
	"0 1 -1 -9223372036854775808 9223372036854775807 42 "
expect_grep npy-tool-print-header 'i64 \(2, 3\) 6 elements' "$T/last.out"
expect_status npy-tool-print-u64 0 cko-npy "$N/u64.npy"
expect_eq npy-tool-print-u64-max "$(sed -n 6p "$T/last.out")" 18446744073709551615
expect_status npy-tool-print-f16 0 cko-npy "$N/f16.npy"
expect_eq npy-tool-print-f16-values "$(tail -n 6 "$T/last.out" | tr '\n' ' ')" "0 1 -2.5 0.5 -0 65504 "
expect_status npy-tool-print-3d 0 cko-npy -n 3 "$N/cube-f32.npy"
expect_eq npy-tool-print-limit "$(cat "$T/last.out" | tr '\n' ' ')" "$N/cube-f32.npy f32 (2, 3, 4) 24 elements 0 1 2 "
expect_status npy-tool-header-only 0 cko-npy -H "$N/v3-f32.npy"
expect_eq npy-tool-header-only-one-line "$(wc -l <"$T/last.out" | tr -d ' ')" 1
expect_status npy-tool-print-0d 0 cko-npy "$N/scalar-f64.npy"
expect_grep npy-tool-print-0d-shape 'f64 \(\) 1 elements' "$T/last.out"
expect_status npy-tool-print-empty 0 cko-npy "$N/empty-f32.npy"
expect_grep npy-tool-print-empty-shape 'f32 \(2, 0\) 0 elements' "$T/last.out"

# Special values, zeros, standard input.
cko-npy -t f32 -s 4 -o "$T/sp.npy" -- nan inf -inf -0
expect_status npy-tool-specials 0 cko-npy "$T/sp.npy"
expect_eq npy-tool-specials-values "$(tail -n 4 "$T/last.out" | tr '\n' ' ')" "nan inf -inf -0 "
cko-npy -t u16 -s 2,2 -o "$T/z.npy"
expect_status npy-tool-zeros 0 cko-npy "$T/z.npy"
expect_eq npy-tool-zeros-values "$(tail -n 4 "$T/last.out" | tr '\n' ' ')" "0 0 0 0 "
echo "7 8
9" | cko-npy -t i8 -s 3 -o "$T/in.npy" -
expect_status npy-tool-stdin 0 cko-npy "$T/in.npy"
expect_eq npy-tool-stdin-values "$(tail -n 3 "$T/last.out" | tr '\n' ' ')" "7 8 9 "
# Values the dtype cannot hold are refused (status 2, the value, its index
# and the range named, no file left); --saturate clamps them.
for r in "i8 1 300 -128 to 127" "u8 0 -1 0 to 255" "i32 2 nan -2147483648 to 2147483647" \
	"f16 1 70000 -65504 to 65504" "i64 0 9223372036854775808 -9223372036854775808 to 9223372036854775807" \
	"u32 1 inf 0 to 4294967295" "f32 0 1e39 -3.40282e\+38 to 3.40282e\+38"; do
	set -- $r
	t=$1 at=$2 v=$3; shift 3
	case $at in 0) vals="$v 1 2" ;; 1) vals="1 $v 2" ;; *) vals="1 2 $v" ;; esac
	expect_status "npy-tool-out-of-range-$t" 2 cko-npy -t "$t" -s 3 -o "$T/range.npy" -- $vals &&
		expect_grep "npy-tool-out-of-range-$t-says-why" \
			"^cko-npy: $T/range.npy: the value $v at index $at is out of $t's range \\($*.*--saturate" "$T/last.err"
done
echo "1 300" | cko-npy -t i8 -s 2 -o "$T/range.npy" - 2>"$T/err"
expect_grep npy-tool-out-of-range-stdin 'the value 300 at index 1 is out of i8' "$T/err"
[ -e "$T/range.npy" ] && fail npy-tool-out-of-range-no-file "range.npy written" || ok npy-tool-out-of-range-no-file
cko-npy -t i8 -s 4 --saturate -o "$T/sat.npy" -- 300 -300 2.5 nan
expect_status npy-tool-saturate 0 cko-npy "$T/sat.npy"
expect_eq npy-tool-saturate-values "$(tail -n 4 "$T/last.out" | tr '\n' ' ')" "127 -128 2 0 "
cko-npy -t f16 -s 2 --saturate -o "$T/sat16.npy" -- 70000 -1e6
expect_status npy-tool-saturate-f16 0 cko-npy "$T/sat16.npy"
expect_eq npy-tool-saturate-f16-values "$(tail -n 2 "$T/last.out" | tr '\n' ' ')" "65504 -65504 "
cko-npy -t f16 -s 3 -o "$T/f16.npy" -- 65519 inf nan
expect_status npy-tool-f16-edge 0 cko-npy "$T/f16.npy"
expect_eq npy-tool-f16-edge-values "$(tail -n 3 "$T/last.out" | tr '\n' ' ')" "65504 inf nan "
cko-npy -t i64 -s 2 -o "$T/i64.npy" -- 9223372036854775807 -9223372036854775808
expect_status npy-tool-i64-exact 0 cko-npy "$T/i64.npy"
expect_eq npy-tool-i64-exact-values "$(tail -n 2 "$T/last.out" | tr '\n' ' ')" "9223372036854775807 -9223372036854775808 "

# Files it refuses: status 2, the file and the reason in the message.
for r in "fortran-f32 Fortran" "bigendian-f32 big-endian" "bool unsupported dtype" "unicode unsupported dtype" \
	"dims9-f32 more than 8 dimensions"; do
	set -- $r
	f=$1; shift
	expect_status "npy-tool-refuses-$f" 2 cko-npy "$N/$f.npy" &&
		expect_grep "npy-tool-refuses-$f-says-why" "^cko-npy: $N/$f.npy: .*$*" "$T/last.err"
done
head -c 100 "$N/f32.npy" >"$T/trunc.npy"
expect_status npy-tool-truncated 2 cko-npy "$T/trunc.npy"
expect_grep npy-tool-truncated-says-why 'trunc.npy: (truncated header|data is)' "$T/last.err"
expect_status npy-tool-missing 2 cko-npy "$T/none.npy"
expect_grep npy-tool-missing-names-file 'none.npy' "$T/last.err"
printf 'not numpy at all' >"$T/text.npy"
expect_status npy-tool-not-npy 2 cko-npy "$T/text.npy"
expect_grep npy-tool-not-npy-says-why 'bad magic' "$T/last.err"

# Bad arguments: status 2, and no output file left behind.
expect_status npy-tool-bad-dtype 2 cko-npy -t f128 -s 2 -o "$T/bad.npy"
expect_status npy-tool-bad-shape 2 cko-npy -t f32 -s 2,-1 -o "$T/bad.npy"
expect_status npy-tool-nine-dims 2 cko-npy -t f32 -s 1,1,1,1,1,1,1,1,1 -o "$T/bad.npy"
expect_status npy-tool-too-many-values 2 cko-npy -t f32 -s 2 -o "$T/bad.npy" 1 2 3
expect_status npy-tool-too-few-values 2 cko-npy -t f32 -s 3 -o "$T/bad.npy" 1 2
expect_status npy-tool-not-a-number 2 cko-npy -t f32 -s 2 -o "$T/bad.npy" 1 x
expect_status npy-tool-no-type 2 cko-npy -s 2 -o "$T/bad.npy"
expect_status npy-tool-no-file 2 cko-npy
[ -e "$T/bad.npy" ] && fail npy-tool-no-partial-output "bad.npy exists" || ok npy-tool-no-partial-output
ls "$T" | grep -q '\.tmp\.' && fail npy-tool-no-temp-files "$(ls "$T")" || ok npy-tool-no-temp-files
expect_status npy-tool-help 0 cko-npy --help
expect_grep npy-tool-help-usage '^usage: cko-npy ' "$T/last.out"
finish
