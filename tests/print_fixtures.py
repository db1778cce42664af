"""Sample pages for the print-page hook's tests (shared with a probe run in its own process)."""

KEYS = {
    "": "index",
    "equations/rope/": "equations-rope",
    "equations/previous-token-head/": "equations-previous-token-head",
    "reference/rope/": "reference-rope",
}
#: A page's content as a plugin may hand it over: wrapped in a whole document.
ROPE_PAGE = "\n".join(
    [
        '<html><head></head><body><h1 id="rope">RoPE<a class="headerlink" href="#rope">¶</a></h1>',
        '<div class="arithmatex" id="eq-relative-score">\\[q^\\top k \\tag{2.4}\\]</div>',
        '<p>See <a class="eq-ref" href="#eq-relative-score">(2.4)</a>,',
        '<a class="eq-ref" href="../previous-token-head/#eq-keys">(3.2)</a>,',
        '<a class="autorefs" href="../../reference/rope/#rope_explained.rope.apply_rope">x</a>,',
        "<a href=\"../..\">home</a>, <a href='../../#why'>why</a>,",
        '<a href="https://arxiv.org/abs/2104.09864#x">RoFormer</a>.</p>',
        '<figure id="fig-rope-frequencies"><a href="../../figures/f.svg">',
        '<img src="../../figures/f.svg" alt="a"></a></figure>',
        '<input id="__tabbed_1_1" name="__tabbed_1"><label for="__tabbed_1_1">A</label>',
        '<script>var tag = \'<a href="#not-a-link" id="x">\';</script>',
        '<pre><code>&lt;a href="#code"&gt;</code></pre></body></html>',
    ]
)
#: The API page: a heading whose id merely contains the target's comes first.
REFERENCE_PAGE = """<h1 id="rope_explainedrope">rope</h1>
<h2 id="rope_explained.rope.apply_rope_matrix" class="doc doc-heading">apply_rope_matrix</h2>
<h2 id="rope_explained.rope.apply_rope" class="doc doc-heading">apply_rope</h2>"""
