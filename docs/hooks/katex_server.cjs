// Renders TeX to HTML + MathML with KaTeX for the site build: one long-lived process per build,
// started by docs/hooks/typeset.py. One JSON request per line on stdin, one JSON reply per line
// on stdout, in order:
//   request  {"tex": "\\theta_i", "display": false}
//   reply    {"html": "<span class=\"katex\">..."}   or   {"error": "KaTeX parse error: ..."}
// The first line written is {"ready": true, "version": "..."}.
"use strict";
const readline = require("node:readline");
const katex = require("katex");

function render(tex, display) {
  return katex.renderToString(tex, {
    displayMode: display,
    output: "htmlAndMathml", // the visible HTML, and MathML (with the TeX as <annotation>)
    throwOnError: true, // a formula KaTeX cannot read stops the build
    strict: "error", // so does TeX that only KaTeX would accept
    trust: false, // no \href, \url, \includegraphics, \htmlClass
    maxExpand: 1000,
  });
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let reply;
  try {
    const request = JSON.parse(line);
    reply = { html: render(String(request.tex), Boolean(request.display)) };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
lines.on("close", () => process.exit(0));
process.stdout.write(JSON.stringify({ ready: true, version: katex.version }) + "\n");
