# cko-docs --fetch: only NVIDIA documentation URLs; network failure is exit
# 3; cached pages (a fetched page's file) are searched with their URL; the
# HTML converter keeps headings, lists and code and drops navigation.
. "$(dirname "$0")/../lib.sh"
G=$CKO_TOP/docs/guidance

expect_status docs/fetch-refuses-http 2 cko-docs --cache "$T/c" --fetch http://docs.nvidia.com/cuda/
expect_status docs/fetch-refuses-other-host 2 cko-docs --cache "$T/c" --fetch https://example.com/cuda/
expect_status docs/fetch-refuses-lookalike 2 cko-docs --cache "$T/c" --fetch https://docs.nvidia.com.example.org/x
expect_grep docs/fetch-refusal-message 'only NVIDIA documentation pages' "$T/last.err"
# A proxy that refuses connections makes the network fail deterministically.
expect_status docs/fetch-network-failure 3 env https_proxy=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
	no_proxy= NO_PROXY= cko-docs --cache "$T/c" --fetch https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/index.html
expect_grep docs/fetch-network-message 'cannot fetch' "$T/last.err"

# A cached page as --fetch leaves it: searched along with the corpus.
mkdir -p "$T/cache"
cat >"$T/cache/cuda-example-0123abcd.md" <<'M'
<!-- source: https://docs.nvidia.com/cuda/example/index.html -->
# Example Guide

## Zorblax memory

The zorblax unit moves data between quasi-banks.
M
cko-docs -c "$G" --cache "$T/cache" --json "zorblax quasi-banks" >"$T/c.json"
expect_jq docs/cache-searched '.results[0].file == "cache/cuda-example-0123abcd.md" and
	.results[0].url == "https://docs.nvidia.com/cuda/example/index.html" and .results[0].heading == "Zorblax memory"' "$T/c.json"
expect_status docs/no-cache 1 cko-docs -c "$G" --cache "$T/cache" --no-cache "zorblax"
XDG_CACHE_HOME=$T/xdg cko-docs -c "$G" --json "zorblax" >"$T/x.json" 2>/dev/null
expect_jq docs/xdg-cache-empty '.results | length == 0' "$T/x.json"
mkdir -p "$T/xdg/cko" && cp -R "$T/cache" "$T/xdg/cko/docs"
XDG_CACHE_HOME=$T/xdg cko-docs -c "$G" --json "zorblax" >"$T/x.json"
expect_jq docs/xdg-cache '.results[0].url | startswith("https://docs.nvidia.com/")' "$T/x.json"

# The HTML converter.
cat >"$T/page.html" <<'H'
<!DOCTYPE html><html><head><title>Guide &mdash; Test</title><style>p{color:red}</style>
<script>var s = "<h1>not text</h1>";</script></head><body>
<nav><ul><li>Navigation entry</li></ul></nav>
<h1>Best Practices<a class="headerlink" href="#a">&#xb6;</a></h1>
<p>Text with <b>bold</b> &amp; &lt;entities&gt; &#65;&#x42;.</p>
<h2 id="c">Coalesced Access</h2><ul><li>first</li><li>second</li></ul>
<pre>for (i = 0; i &lt; n; i++)
    # kept as code
    x[i] = 0;</pre>
<footer>Copyright line</footer></body></html>
H
cko-docs --html "$T/page.html" >"$T/page.txt"
expect_grep docs/html-title '^title: Guide — Test$' "$T/page.txt"
expect_grep docs/html-h1 '^# Best Practices$' "$T/page.txt"
expect_grep docs/html-h2 '^## Coalesced Access$' "$T/page.txt"
expect_grep docs/html-entities '^Text with bold & <entities> AB\.$' "$T/page.txt"
expect_grep docs/html-list '^- second$' "$T/page.txt"
expect_grep docs/html-pre '^    # kept as code$' "$T/page.txt"
if grep -Eq 'Navigation|not text|Copyright|color' "$T/page.txt"; then
	fail docs/html-dropped "navigation, script, style or footer text kept: $(cat "$T/page.txt")"
else
	ok docs/html-dropped
fi
finish
