// MathJax 3 for the site: TeX from pymdownx.arithmatex (generic mode), rendered as SVG.
// MathJax itself is copied from npm's `mathjax` package into javascripts/vendor/mathjax/ when
// the site builds; nothing is fetched from another host.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    // Equation numbers are written at build time as \tag{N.k} (chapter N, k-th equation of
    // the page), so they never shift when another page changes: no automatic numbering here.
    tags: "none",
  },
  options: {
    // Typeset only what arithmatex marked as math (not code, not prose that has a "$").
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
    // Screen readers read the hidden MathML that MathJax adds next to each formula.
    enableAssistiveMml: true,
    menuOptions: { settings: { assistiveMml: true } },
  },
  svg: {
    // Glyphs inside each formula: survives instant navigation and printing unchanged.
    fontCache: "local",
  },
};

// Instant navigation swaps the page without reloading scripts: typeset the new content.
// The first page is typeset by MathJax's own start-up; later pages are chained on
// MathJax.startup.promise, which therefore always settles after the current page's math.
(function () {
  let first = true;
  document$.subscribe(function () {
    if (first) {
      first = false;
      return;
    }
    const mj = window.MathJax;
    if (!mj || !mj.startup || !mj.startup.promise) return;
    mj.startup.promise = mj.startup.promise.then(function () {
      // Material's recipe calls clearCache(), which only the CHTML output has; SVG output's
      // equivalent is clearFontCache().
      const output = mj.startup.output;
      if (typeof output.clearCache === "function") output.clearCache();
      if (typeof output.clearFontCache === "function") output.clearFontCache();
      mj.typesetClear();
      mj.texReset();
      return mj.typesetPromise();
    });
  });
})();
