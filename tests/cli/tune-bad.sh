#!/bin/sh
# cko-tune on bad input: exit 2, naming the file and the field.
. "$(dirname "$0")/../lib.sh"
B=$DATA/tune/bad
S=$DATA/tune/small/space.json

# bad NAME FILE PATTERN: cko-tune -s FILE exits 2 with PATTERN on stderr.
bad() {
	expect_status tune-bad.$1 2 cko-tune -s "$B/$2" -o "$T/out" && expect_grep tune-bad.$1.msg "$3" "$T/last.err"
}
bad malformed malformed.json 'malformed.json: .*line [0-9]+'
bad no_variants no-variants.json 'no-variants.json: variants: missing'
bad unknown_key unknown-key.json 'unknown-key.json: variants\[0\]: constriants: unknown key'
bad no_source no-source.json 'no-source.json: variants\[1\]: source: .*missing.cu'
bad constraint_syntax constraint-syntax.json 'constraint-syntax.json: variants\[0\]: constraints\[1\]: '
bad constraint_name constraint-name.json "constraint-name.json: variants\[0\]: constraints\[0\]: unknown name 'BSS'"
bad duplicate_value duplicate-value.json 'duplicate-value.json: variants\[0\]: tunables.BS\[2\]: value 32 appears twice'
bad duplicate_name duplicate-name.json "duplicate-name.json: variants\[1\]: name: 'a' appears twice"
bad empty_tunable empty-tunable.json 'empty-tunable.json: variants\[0\]: tunables.BS: '
bad no_grid no-grid.json 'no-grid.json: variants\[0\]: grid: missing'
bad no_name no-name.json 'no-name.json: variants\[0\]: name: missing'
bad mixed_values mixed-values.json 'mixed-values.json: variants\[0\]: tunables.L: mixes integers and strings'
expect_status tune-bad.missing_space 2 cko-tune -s "$B/nonexistent.json" -o "$T/out"
expect_grep tune-bad.missing_space.msg 'nonexistent.json' "$T/last.err"

# A model's launch.json whose constraint names an unknown define.
expect_status tune-bad.kernel_launch 2 cko-tune --kernel "$DATA/tune/model/kernel.cu" -l "$DATA/tune/model/bad-launch.json" -o "$T/out"
expect_grep tune-bad.kernel_launch.msg "bad-launch.json: constraints\[0\]: unknown name 'BK'" "$T/last.err"
expect_status tune-bad.kernel_missing 2 cko-tune --kernel "$T/none.cu" -l "$DATA/tune/model/launch.json" -o "$T/out"
expect_grep tune-bad.kernel_missing.msg 'launch.json: --kernel: .*none.cu' "$T/last.err"

# Usage.
expect_status tune-bad.no_output 2 cko-tune -s "$S"
expect_status tune-bad.both 2 cko-tune -s "$S" --kernel "$DATA/tune/model/kernel.cu" -l "$DATA/tune/model/launch.json" -o "$T/out"
expect_status tune-bad.kernel_no_launch 2 cko-tune --kernel "$DATA/tune/model/kernel.cu" -o "$T/out"
expect_status tune-bad.strategy 2 cko-tune -s "$S" --strategy greedy -o "$T/out"
expect_status tune-bad.count 2 cko-tune -s "$S" -k 0 -o "$T/out"
expect_status tune-bad.seed 2 cko-tune -s "$S" --seed x -o "$T/out"
expect_status tune-bad.extra_arg 2 cko-tune -s "$S" -o "$T/out" extra
[ -e "$T/out/proposed.json" ] && fail tune-bad.no_manifest "a failed run left proposed.json" || ok tune-bad.no_manifest
expect_status tune-bad.help 0 cko-tune --help
expect_grep tune-bad.help.usage '^usage: cko-tune -s space.json' "$T/last.out"
finish
