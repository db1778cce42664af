/*
 * RoPE playground, the page: controls, three canvas heatmaps (or, for long texts, two SVG lines
 * over the positions) and an SVG bar chart, built inside the element with class
 * "rope-playground" and rebuilt after each instant navigation.
 *
 * Plain JavaScript, no framework, nothing loaded from elsewhere. Reads window.RopePlaygroundData
 * (data.js: the package's values, written while the site builds) and window.RopePlaygroundModel
 * (model.js: the forward pass); defines window.RopePlayground ({current, Playground, LUTS}).
 * Only the playground page loads it (docs/hooks/playground.py), once per browser page: it
 * subscribes to mkdocs-material's document$, which emits after every instant navigation.
 */
(function () {
  "use strict";

  var DATA = window.RopePlaygroundData;
  var MODEL = window.RopePlaygroundModel;
  if (!DATA || !MODEL) throw new Error("RopePlayground: load data.js and model.js before ui.js");
  if (window.RopePlayground) return; // already running on this browser page
  var VOCAB = DATA.VOCAB;
  var V = VOCAB.length;
  var TRAINED = DATA.TRAINED; // the trained seeds, their weights files, the band ablations
  var HAND_BUILT = "hand-built"; // the weights menu's value for the hand-built circuit
  // The folder of this script, where the build puts the weights files too (none when the
  // script was given inline: then the weights must be loaded already).
  var HERE = document.currentScript && document.currentScript.src ? document.currentScript.src : null;
  var LETTERS = VOCAB[0] + "\u2013" + VOCAB[V - 1]; // "a-z", with an en dash

  // The layer-0 score panel shows each row minus its best visible score (n <= m), from this
  // floor (and below) to 0, as the build-time figure playground-opening does.
  var GAP_FLOOR = DATA.SCORE_GAP_FLOOR;
  var GAP_FLOOR_LABEL = String(GAP_FLOOR).replace("-", "\u2212");

  // ---------------------------------------------------------------------------------------
  // Colour maps: matplotlib's tables (bytes=True) of the maps the site's figures use, from
  // data.js (COLOUR_TABLES, by name; COLOUR_MAPS, which map each panel kind takes), indexed as
  // matplotlib does: i = min(N - 1, floor(N x)) for x in [0, 1].
  // ---------------------------------------------------------------------------------------

  var LUT_HEX = DATA.COLOUR_TABLES;
  var MAPS = DATA.COLOUR_MAPS; // {sequential: name, score_gap: name}
  var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([0x01020304]).buffer)[0] === 0x04;

  // Every table has the same number of entries (matplotlib's N), read off their length.
  var LUT_N = LUT_HEX[MAPS.sequential].length / 6;

  function makeLut(hex) {
    if (hex.length !== 6 * LUT_N) throw new Error("colour tables must have the same length");
    var rgb = new Uint8Array(3 * LUT_N);
    for (var i = 0; i < 3 * LUT_N; i++) rgb[i] = parseInt(hex.substr(2 * i, 2), 16);
    var packed = new Uint32Array(LUT_N);
    for (i = 0; i < LUT_N; i++) packed[i] = pack(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], 255);
    return { rgb: rgb, packed: packed };
  }

  function pack(r, g, b, a) {
    return LITTLE_ENDIAN ?
      ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 :
      ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
  }

  var LUTS = {};
  Object.keys(LUT_HEX).forEach(function (name) {
    LUTS[name] = makeLut(LUT_HEX[name]);
  });

  function lutIndex(x) {
    if (!(x > 0)) return 0;
    var i = Math.floor(x * LUT_N);
    return i > LUT_N - 1 ? LUT_N - 1 : i;
  }

  function cssColor(lut, i) {
    return "rgb(" + lut.rgb[3 * i] + "," + lut.rgb[3 * i + 1] + "," + lut.rgb[3 * i + 2] + ")";
  }

  function gradient(lut) {
    var stops = [];
    for (var k = 0; k <= 16; k++) {
      var i = Math.round((k * (LUT_N - 1)) / 16);
      stops.push(cssColor(lut, i) + " " + ((k * 100) / 16).toFixed(2) + "%");
    }
    return "linear-gradient(to right, " + stops.join(", ") + ")";
  }

  // Masked cells (key after query) of a pattern: a light grey, apart from every map colour.
  var MASKED = pack(226, 226, 226, 255);

  function fmt(x) {
    if (x === 0) return "0";
    var ax = Math.abs(x);
    if (ax >= 1e5 || ax < 1e-4) return x.toExponential(3);
    if (ax >= 100) return x.toFixed(2);
    return x.toPrecision(5);
  }

  /** fmt for labels a reader sees: a true minus sign. */
  function fmtLabel(x) {
    return fmt(x).replace("-", "\u2212");
  }

  function tokenLabel(t) {
    return t === "<s>" ? "\u2039s\u203a" : t;
  }

  // ---------------------------------------------------------------------------------------
  // DOM helpers (every text goes in through textContent: the reader's text is data, not HTML)
  // ---------------------------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "className") node.className = attrs[k];
        else node.setAttribute(k, attrs[k]);
      }
    }
    (children || []).forEach(function (c) {
      node.appendChild(c);
    });
    return node;
  }

  var SVG_NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    return node;
  }

  var STYLE = [
    ".rope-playground{margin:1.2em 0}",
    ".rope-playground .rp-controls{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));",
    "gap:.7rem 1.4rem;padding:.8rem;border:1px solid var(--md-default-fg-color--lightest);border-radius:.2rem}",
    ".rope-playground .rp-wide{grid-column:1/-1}",
    ".rope-playground label.rp-label,.rope-playground legend{display:block;font-weight:700;font-size:.7rem;margin:0 0 .25rem;padding:0}",
    ".rope-playground fieldset{border:0;margin:0;padding:0;min-width:0}",
    ".rope-playground fieldset label{display:block;font-size:.72rem;cursor:pointer}",
    ".rope-playground input[type=text]{box-sizing:border-box;width:100%;font-family:var(--md-code-font-family,monospace);",
    "font-size:.8rem;padding:.4em .55em;border:1px solid var(--md-default-fg-color--light);border-radius:.2rem;",
    "background:var(--md-default-bg-color);color:var(--md-default-fg-color)}",
    ".rope-playground input[type=text][aria-invalid=true]{border-color:var(--rp-error);border-width:2px}",
    ".rope-playground input[type=range]{width:100%;margin:.2rem 0;accent-color:var(--md-accent-fg-color)}",
    ".rope-playground output{font-variant-numeric:tabular-nums;font-weight:400}",
    ".rope-playground{--rp-error:#b3261e;--rp-good:#1b7f4b}",
    "[data-md-color-scheme=slate] .rope-playground{--rp-error:#ff8a80;--rp-good:#7ee2a8}",
    ".rope-playground .rp-msg{min-height:1.4em;margin:.3rem 0 0;font-size:.7rem;line-height:1.4}",
    ".rope-playground .rp-msg.rp-error{color:var(--rp-error);font-weight:700}",
    ".rope-playground .rp-buttons{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}",
    ".rope-playground .rp-buttons .md-button{margin:0;font-size:.7rem;padding:.45em 1em}",
    ".rope-playground .rp-prediction{font-size:.85rem;margin:.9rem 0 .2rem}",
    ".rope-playground .rp-prediction strong.rp-letter{font-family:var(--md-code-font-family,monospace);font-size:1.1rem;",
    "padding:0 .3em;border-radius:.2rem;background:var(--md-accent-fg-color--transparent)}",
    ".rope-playground .rp-good{color:var(--rp-good)}.rope-playground .rp-bad{color:var(--rp-error)}",
    ".rope-playground .rp-copying{font-size:.75rem;margin:0 0 .2rem}",
    ".rope-playground .rp-timing{font-size:.65rem;color:var(--md-default-fg-color--light);margin:0}",
    ".rope-playground .rp-panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:.9rem;margin-top:.6rem}",
    ".rope-playground .rp-panel{background:#fff;color:#1d1d1d;border:1px solid var(--md-default-fg-color--lightest);",
    "border-radius:.2rem;padding:.5rem .6rem .6rem;transition:opacity .15s}",
    ".rope-playground.rp-stale .rp-panel{opacity:.45}",
    ".rope-playground .rp-panel-title{font-weight:700;font-size:.72rem;margin:0}",
    ".rope-playground .rp-panel-sub{font-size:.62rem;margin:0 0 .3rem;color:#4a4a4a}",
    ".rope-playground .rp-plot{position:relative}",
    ".rope-playground canvas{display:block;width:100%;touch-action:none}",
    ".rope-playground canvas:focus-visible,.rope-playground .rp-bars:focus-visible{outline:2px solid #0072b2;outline-offset:2px}",
    ".rope-playground .rp-tip{position:absolute;z-index:3;pointer-events:none;background:rgba(22,22,22,.93);color:#fff;",
    "font-size:.62rem;line-height:1.35;padding:.25em .5em;border-radius:.2rem;white-space:pre;display:none}",
    ".rope-playground .rp-cbar{display:flex;align-items:center;gap:.35rem;font-size:.6rem;margin-top:.3rem;color:#333}",
    ".rope-playground .rp-cbar-bar{flex:1;height:.55rem;border-radius:.1rem;border:1px solid #bbb}",
    ".rope-playground .rp-bars{display:block;width:100%;height:auto}",
    ".rope-playground .rp-readout{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}",
    ".rope-playground select{box-sizing:border-box;width:100%;font-size:.75rem;padding:.3em .4em;border-radius:.2rem;",
    "border:1px solid var(--md-default-fg-color--light);background:var(--md-default-bg-color);color:var(--md-default-fg-color)}",
    ".rope-playground .rp-note{font-size:.65rem;line-height:1.35;margin:.3rem 0 0;color:var(--md-default-fg-color--light)}",
    ".rope-playground input[type=range]:disabled,.rope-playground label:has(input:disabled){opacity:.4}",
    ".rope-playground .rp-recipes{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;font-size:.7rem}",
    ".rope-playground .rp-recipes .md-button{margin:0;font-size:.7rem;padding:.45em 1em}",
    ".rope-playground[data-view=full] [data-panel=attention1],.rope-playground[data-view=full] [data-panel=previous]{display:none}",
    ".rope-playground[data-view=last] [data-panel=scores0],.rope-playground[data-view=last] [data-panel=A0],",
    ".rope-playground[data-view=last] [data-panel=A1]{display:none}",
  ].join("");

  function ensureStyle() {
    if (document.getElementById("rope-playground-style")) return;
    var style = el("style", { id: "rope-playground-style" });
    style.textContent = STYLE;
    document.head.appendChild(style);
  }

  // ---------------------------------------------------------------------------------------
  // Heatmap: a T x T image drawn at one pixel per cell, scaled onto the visible canvas without
  // smoothing; letters (or positions) on the axes; hover and arrow keys show a cell's value.
  // ---------------------------------------------------------------------------------------

  var MARGIN = { left: 30, right: 4, top: 4, bottom: 24 }; // CSS pixels

  /**
   * opts: {name, map, symbol, title, subtitle, range: [lo, hi], loLabel, hiLabel, values,
   * detail}. values(trace) gives the T x T numbers drawn (default: trace[name]); the map spans
   * range, values below it take the lowest colour; detail(trace, m, n), if given, adds a line
   * to a cell's tooltip. Cells the causal mask hides (n > m) are grey.
   */
  function Heatmap(opts) {
    this.opts = opts;
    this.src = document.createElement("canvas");
    this.canvas = el("canvas", {
      tabindex: "0", role: "img",
      "aria-label": opts.title + ". Arrow keys move between cells and read their values.",
    });
    this.tip = el("div", { className: "rp-tip", "aria-hidden": "true" });
    this.readout = el("p", { className: "rp-readout", "aria-live": "polite" });
    this.cursor = null; // [m, n] under the pointer or the keyboard
    var bar = el("div", { className: "rp-cbar-bar" });
    bar.style.background = gradient(LUTS[opts.map]);
    this.node = el("div", { className: "rp-panel", "data-panel": opts.name }, [
      el("p", { className: "rp-panel-title", text: opts.title }),
      el("p", { className: "rp-panel-sub", text: opts.subtitle }),
      el("div", { className: "rp-plot" }, [this.canvas, this.tip]),
      el("div", { className: "rp-cbar" }, [
        el("span", { text: opts.loLabel }), bar, el("span", { text: opts.hiLabel }),
      ]),
      this.readout,
    ]);
    this.bind();
  }

  /** Fill the T x T image from the trace: values, colour map and causal mask. */
  Heatmap.prototype.setData = function (trace) {
    var T = trace.T;
    var o = this.opts;
    var values = o.values ? o.values(trace) : trace[o.name];
    this.trace = trace;
    this.T = T;
    this.values = values;
    var lut = LUTS[o.map].packed;
    var lo = o.range[0];
    var width = o.range[1] - lo;
    if (this.src.width !== T) {
      this.src.width = T;
      this.src.height = T;
      this.image = null;
    }
    var ctx = this.src.getContext("2d");
    if (!this.image) this.image = ctx.createImageData(T, T);
    var px = new Uint32Array(this.image.data.buffer);
    // x = (v - lo) / (hi - lo), as matplotlib's Normalize(vmin=lo, vmax=hi)
    for (var m = 0; m < T; m++) {
      for (var n = 0; n < T; n++) {
        px[m * T + n] = n <= m ? lut[lutIndex((values[m * T + n] - lo) / width)] : MASKED;
      }
    }
    ctx.putImageData(this.image, 0, 0);
    if (this.cursor && (this.cursor[0] >= T || this.cursor[1] >= T)) this.cursor = null;
    this.draw();
    if (this.cursor) this.showCell(this.cursor[0], this.cursor[1], this.keyboard);
  };

  /** Each row of the layer-0 scores minus its best visible score: s[m, n] - max_{n' <= m} s[m, n']. */
  function rowGap(trace) {
    var T = trace.T;
    var S = trace.scores0;
    var G = new Float64Array(T * T);
    for (var m = 0; m < T; m++) {
      var row = m * T;
      var mx = -Infinity;
      var n;
      for (n = 0; n <= m; n++) if (S[row + n] > mx) mx = S[row + n];
      for (n = 0; n < T; n++) G[row + n] = S[row + n] - mx;
    }
    return G;
  }

  Heatmap.prototype.geometry = function () {
    var cssW = this.canvas.clientWidth || 280;
    var plot = Math.max(40, cssW - MARGIN.left - MARGIN.right);
    return { cssW: cssW, cssH: plot + MARGIN.top + MARGIN.bottom, plot: plot, cell: plot / this.T };
  };

  /** Draw the image, the axis labels and the highlighted cell onto the visible canvas. */
  Heatmap.prototype.draw = function () {
    if (!this.T) return;
    var g = this.geometry();
    var dpr = window.devicePixelRatio || 1;
    var W = Math.round(g.cssW * dpr);
    var H = Math.round(g.cssH * dpr);
    if (this.canvas.width !== W || this.canvas.height !== H) {
      this.canvas.width = W;
      this.canvas.height = H;
      this.canvas.style.height = g.cssH + "px";
    }
    var ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.cssW, g.cssH);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.src, 0, 0, this.T, this.T, MARGIN.left, MARGIN.top, g.plot, g.plot);
    ctx.strokeStyle = "#999";
    ctx.lineWidth = 1;
    ctx.strokeRect(MARGIN.left - 0.5, MARGIN.top - 0.5, g.plot + 1, g.plot + 1);
    this.drawAxes(ctx, g);
    if (this.cursor) {
      var m = this.cursor[0];
      var n = this.cursor[1];
      var x = MARGIN.left + n * g.cell;
      var y = MARGIN.top + m * g.cell;
      var size = Math.max(g.cell, 3);
      ctx.lineWidth = 2;
      ctx.strokeStyle = "#000";
      ctx.strokeRect(x - 1, y - 1, size + 2, size + 2);
      ctx.lineWidth = 1;
      ctx.strokeStyle = "#fff";
      ctx.strokeRect(x - 2.5, y - 2.5, size + 5, size + 5);
    }
  };

  Heatmap.prototype.drawAxes = function (ctx, g) {
    var T = this.T;
    var tokens = this.trace.tokens;
    ctx.fillStyle = "#1d1d1d";
    ctx.font = "11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
    var i;
    if (g.cell >= 11) {
      // one letter per row and column
      ctx.textAlign = "right";
      ctx.textBaseline = "middle";
      for (i = 0; i < T; i++) {
        ctx.fillText(tokenLabel(tokens[i]), MARGIN.left - 4, MARGIN.top + (i + 0.5) * g.cell);
      }
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (i = 0; i < T; i++) {
        ctx.fillText(tokenLabel(tokens[i]), MARGIN.left + (i + 0.5) * g.cell, MARGIN.top + g.plot + 4);
      }
    } else {
      // position numbers at a step that keeps labels apart
      var steps = [1, 2, 5, 10, 20, 25, 50, 100];
      var step = 100;
      for (var k = 0; k < steps.length; k++) {
        if (steps[k] * g.cell >= 26) {
          step = steps[k];
          break;
        }
      }
      for (i = 0; i < T; i += step) {
        var c = (i + 0.5) * g.cell;
        ctx.textAlign = "right";
        ctx.textBaseline = "middle";
        ctx.fillText(String(i), MARGIN.left - 4, MARGIN.top + c);
        ctx.textAlign = "center";
        ctx.textBaseline = "top";
        ctx.fillText(String(i), MARGIN.left + c, MARGIN.top + g.plot + 4);
      }
    }
  };

  /** The cell under a point given in CSS pixels relative to the canvas, or null. */
  Heatmap.prototype.cellAt = function (x, y) {
    var g = this.geometry();
    var n = Math.floor((x - MARGIN.left) / g.cell);
    var m = Math.floor((y - MARGIN.top) / g.cell);
    if (m < 0 || n < 0 || m >= this.T || n >= this.T) return null;
    return [m, n];
  };

  Heatmap.prototype.describe = function (m, n) {
    var t = this.trace.tokens;
    var value = this.values[m * this.T + n];
    var where = "row m = " + m + " (" + t[m] + "), column n = " + n + " (" + t[n] + ")";
    if (n > m) where += "  (masked: n > m)";
    var detail = this.opts.detail ? "\n" + this.opts.detail(this.trace, m, n) : "";
    return where + detail + "\n" + this.opts.symbol + " = " + fmtLabel(value);
  };

  Heatmap.prototype.showCell = function (m, n, keyboard) {
    this.cursor = [m, n];
    this.keyboard = !!keyboard;
    this.draw();
    var g = this.geometry();
    var text = this.describe(m, n);
    this.tip.textContent = text;
    this.tip.style.display = "block";
    // above the cell's row if there is room, else below it; never over the cell itself
    var tipW = this.tip.offsetWidth;
    var tipH = this.tip.offsetHeight;
    var x = MARGIN.left + (n + 0.5) * g.cell - tipW / 2;
    x = Math.max(0, Math.min(g.cssW - tipW, x));
    var y = MARGIN.top + m * g.cell - tipH - 6;
    if (y < 0) y = MARGIN.top + (m + 1) * g.cell + 6;
    this.tip.style.left = x + "px";
    this.tip.style.top = y + "px";
    if (keyboard) this.readout.textContent = text.replace(/\n/g, "; ");
  };

  Heatmap.prototype.hideCell = function () {
    this.cursor = null;
    this.tip.style.display = "none";
    this.draw();
  };

  Heatmap.prototype.bind = function () {
    var self = this;
    this.canvas.addEventListener("pointermove", function (ev) {
      if (!self.T) return;
      var rect = self.canvas.getBoundingClientRect();
      var cell = self.cellAt(ev.clientX - rect.left, ev.clientY - rect.top);
      if (cell) self.showCell(cell[0], cell[1], false);
      else if (self.cursor) self.hideCell();
    });
    this.canvas.addEventListener("pointerleave", function () {
      if (self.cursor && !self.keyboard) self.hideCell();
    });
    this.canvas.addEventListener("focus", function () {
      if (self.T && !self.cursor) self.showCell(self.T - 1, Math.max(0, self.T - 2), true);
    });
    this.canvas.addEventListener("blur", function () {
      if (self.cursor) self.hideCell();
    });
    this.canvas.addEventListener("keydown", function (ev) {
      if (!self.T) return;
      var c = self.cursor || [self.T - 1, self.T - 1];
      var m = c[0];
      var n = c[1];
      var big = Math.max(1, Math.round(self.T / 10));
      switch (ev.key) {
        case "ArrowUp": m -= 1; break;
        case "ArrowDown": m += 1; break;
        case "ArrowLeft": n -= 1; break;
        case "ArrowRight": n += 1; break;
        case "PageUp": m -= big; break;
        case "PageDown": m += big; break;
        case "Home": n = 0; break;
        case "End": n = m; break;
        case "Escape": self.hideCell(); return;
        default: return;
      }
      ev.preventDefault();
      m = Math.max(0, Math.min(self.T - 1, m));
      n = Math.max(0, Math.min(self.T - 1, n));
      self.showCell(m, n, true);
    });
  };

  /** The colour shown at the centre of cell (m, n), read back from the canvas: [r, g, b, a]. */
  Heatmap.prototype.pixel = function (m, n) {
    var g = this.geometry();
    var dpr = this.canvas.width / g.cssW;
    var x = Math.floor((MARGIN.left + (n + 0.5) * g.cell) * dpr);
    var y = Math.floor((MARGIN.top + (m + 0.5) * g.cell) * dpr);
    return Array.from(this.canvas.getContext("2d").getImageData(x, y, 1, 1).data);
  };

  // ---------------------------------------------------------------------------------------
  // Bar chart of P(next letter) after the last position, the prediction highlighted.
  // ---------------------------------------------------------------------------------------

  function Bars() {
    var W = 340;
    var H = 300;
    this.box = { W: W, H: H, left: 34, right: 4, top: 24, bottom: 24 };
    var b = this.box;
    this.svg = svg("svg", {
      viewBox: "0 0 " + W + " " + H, class: "rp-bars", role: "img", tabindex: "0",
      "aria-label": "Probability of each next letter",
    });
    var plotH = H - b.top - b.bottom;
    var ticks = [0, 0.25, 0.5, 0.75, 1];
    for (var k = 0; k < ticks.length; k++) {
      var y = b.top + plotH * (1 - ticks[k]);
      this.svg.appendChild(svg("line", {
        x1: b.left, x2: W - b.right, y1: y, y2: y, stroke: k ? "#e3e3e3" : "#888", "stroke-width": 1,
      }));
      var label = svg("text", {
        x: b.left - 5, y: y + 4, "text-anchor": "end", "font-size": 12, fill: "#333",
      });
      label.textContent = String(ticks[k]);
      this.svg.appendChild(label);
    }
    var slot = (W - b.left - b.right) / V;
    this.bars = [];
    this.labels = [];
    for (var v = 0; v < V; v++) {
      var rect = svg("rect", { x: b.left + v * slot + slot * 0.12, width: slot * 0.76, y: b.top + plotH, height: 0 });
      var title = svg("title", {});
      rect.appendChild(title);
      this.svg.appendChild(rect);
      var text = svg("text", {
        x: b.left + (v + 0.5) * slot, y: H - b.bottom + 15, "text-anchor": "middle", "font-size": 11.5,
        fill: "#1d1d1d", "font-family": "monospace",
      });
      text.textContent = VOCAB[v];
      this.svg.appendChild(text);
      this.bars.push({ rect: rect, title: title });
      this.labels.push(text);
    }
    this.marker = svg("text", { "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#1d1d1d" });
    this.svg.appendChild(this.marker);
    this.slot = slot;
    this.plotH = plotH;
    this.node = el("div", { className: "rp-panel", "data-panel": "probs" }, [
      el("p", { className: "rp-panel-title", text: "Next letter: P(\u00b7 | text)" }),
      el("p", { className: "rp-panel-sub", text: "softmax of the logits after the last letter; bar colour is the probability (" + MAPS.sequential + ")" }),
      this.svg,
    ]);
  }

  /** The next-letter probabilities after the last position (forward: the last row). */
  function lastProbs(trace) {
    return trace.probs.length === V ? trace.probs : trace.probs.subarray((trace.T - 1) * V, trace.T * V);
  }

  Bars.prototype.setData = function (trace) {
    var b = this.box;
    var probs = lastProbs(trace);
    var last = 0;
    var best = trace.predictionIndex;
    var summary = [];
    for (var v = 0; v < V; v++) {
      var p = probs[last + v];
      var h = this.plotH * p;
      var bar = this.bars[v];
      bar.rect.setAttribute("y", b.top + this.plotH - h);
      bar.rect.setAttribute("height", h);
      bar.rect.setAttribute("fill", cssColor(LUTS[MAPS.sequential], lutIndex(p)));
      bar.rect.setAttribute("stroke", v === best ? "#000" : "none");
      bar.rect.setAttribute("stroke-width", v === best ? 2.5 : 0);
      bar.title.textContent = VOCAB[v] + ": p = " + fmt(p);
      this.labels[v].setAttribute("font-weight", v === best ? 700 : 400);
      this.labels[v].setAttribute("text-decoration", v === best ? "underline" : "none");
      if (p >= 0.01) summary.push(VOCAB[v] + " " + p.toFixed(2));
    }
    var pb = probs[best];
    var mx = b.left + (best + 0.5) * this.slot;
    this.marker.setAttribute("x", Math.max(b.left + 28, Math.min(b.W - b.right - 28, mx)));
    this.marker.setAttribute("y", Math.max(14, b.top + this.plotH * (1 - pb) - 6));
    this.marker.textContent = VOCAB[best] + " " + pb.toFixed(3);
    this.svg.setAttribute("aria-label", "Probability of each next letter; the prediction is " +
      VOCAB[best] + " with p = " + pb.toFixed(3) + ". Letters above 0.01: " + summary.join(", "));
  };

  // ---------------------------------------------------------------------------------------
  // Line over positions (the last-position view): one value per position, drawn as the
  // smallest and largest value of each pixel column so that no single-key peak is lost; a
  // dashed marker at one position; hover and arrow keys read a position's value.
  // ---------------------------------------------------------------------------------------

  /**
   * opts: {name, title, subtitle, symbol, what, values(result) -> {values, first}, marker(result)
   * -> {at, label} or null}. values[i] belongs to position first + i; the y axis runs 0 to 1.
   */
  function LinePlot(opts) {
    this.opts = opts;
    var W = 340;
    var H = 190;
    this.box = { W: W, H: H, left: 34, right: 8, top: 12, bottom: 30 };
    var b = this.box;
    this.svg = svg("svg", {
      viewBox: "0 0 " + W + " " + H, class: "rp-bars", role: "img", tabindex: "0",
      "aria-label": opts.title,
    });
    var plotH = H - b.top - b.bottom;
    var ticks = [0, 0.5, 1];
    for (var k = 0; k < ticks.length; k++) {
      var y = b.top + plotH * (1 - ticks[k]);
      this.svg.appendChild(svg("line", {
        x1: b.left, x2: W - b.right, y1: y, y2: y, stroke: k ? "#e3e3e3" : "#888", "stroke-width": 1,
      }));
      var label = svg("text", { x: b.left - 5, y: y + 4, "text-anchor": "end", "font-size": 12, fill: "#333" });
      label.textContent = String(ticks[k]);
      this.svg.appendChild(label);
    }
    this.xTicks = svg("g", { "font-size": 11, fill: "#333", "text-anchor": "middle" });
    this.svg.appendChild(this.xTicks);
    var xlabel = svg("text", { x: (b.left + W - b.right) / 2, y: H - 2, "text-anchor": "middle", "font-size": 11.5, fill: "#1d1d1d" });
    xlabel.textContent = opts.axis;
    this.svg.appendChild(xlabel);
    this.markLine = svg("line", { stroke: "#d55e00", "stroke-width": 1.5, "stroke-dasharray": "4 3" });
    this.markText = svg("text", { "font-size": 11.5, fill: "#a04000", "font-weight": 700 });
    this.svg.appendChild(this.markLine);
    this.svg.appendChild(this.markText);
    this.path = svg("path", { fill: "none", stroke: "#0b4f9c", "stroke-width": 1.4, "stroke-linejoin": "round" });
    this.svg.appendChild(this.path);
    this.cursorLine = svg("line", { stroke: "#000", "stroke-width": 1, visibility: "hidden" });
    this.svg.appendChild(this.cursorLine);
    this.plotH = plotH;
    this.tip = el("div", { className: "rp-tip", "aria-hidden": "true" });
    this.readout = el("p", { className: "rp-readout", "aria-live": "polite" });
    this.node = el("div", { className: "rp-panel", "data-panel": opts.name }, [
      el("p", { className: "rp-panel-title", text: opts.title }),
      el("p", { className: "rp-panel-sub", text: opts.subtitle }),
      el("div", { className: "rp-plot" }, [this.svg, this.tip]),
      this.readout,
    ]);
    this.cursor = null;
    this.bind();
  }

  LinePlot.prototype.x = function (pos) {
    var b = this.box;
    var span = Math.max(1, this.T - 1);
    return b.left + ((b.W - b.left - b.right) * pos) / span;
  };

  LinePlot.prototype.y = function (v) {
    return this.box.top + this.plotH * (1 - v);
  };

  LinePlot.prototype.setData = function (result) {
    var o = this.opts;
    var got = o.values(result);
    this.result = result;
    this.values = got.values;
    this.first = got.first;
    this.T = result.T;
    var b = this.box;
    var n = this.values.length;
    // one vertical stroke per column of the plot (min to max of the positions it covers)
    var cols = Math.round((b.W - b.left - b.right) * 2);
    var d = [];
    if (n <= cols) {
      for (var i = 0; i < n; i++) {
        d.push((i ? "L" : "M") + this.x(this.first + i).toFixed(2) + " " + this.y(this.values[i]).toFixed(2));
      }
    } else {
      for (var c = 0; c < cols; c++) {
        var lo = Math.floor((c * n) / cols);
        var hi = Math.max(lo + 1, Math.floor(((c + 1) * n) / cols));
        var mn = Infinity;
        var mx = -Infinity;
        for (var k = lo; k < hi; k++) {
          if (this.values[k] < mn) mn = this.values[k];
          if (this.values[k] > mx) mx = this.values[k];
        }
        var xc = this.x(this.first + (lo + hi - 1) / 2).toFixed(2);
        d.push((c ? "L" : "M") + xc + " " + this.y(mn).toFixed(2) + "L" + xc + " " + this.y(mx).toFixed(2));
      }
    }
    this.path.setAttribute("d", d.join(""));
    // ticks on the position axis
    while (this.xTicks.firstChild) this.xTicks.removeChild(this.xTicks.firstChild);
    var step = niceStep(this.T - 1, 5);
    for (var t = 0; t < this.T; t += step) {
      var tick = svg("text", { x: this.x(t).toFixed(2), y: b.H - b.bottom + 13 });
      tick.textContent = String(t);
      this.xTicks.appendChild(tick);
    }
    var mark = o.marker ? o.marker(result) : null;
    var vis = mark ? "visible" : "hidden";
    this.markLine.setAttribute("visibility", vis);
    this.markText.setAttribute("visibility", vis);
    if (mark) {
      var xm = this.x(mark.at);
      this.markLine.setAttribute("x1", xm);
      this.markLine.setAttribute("x2", xm);
      this.markLine.setAttribute("y1", b.top);
      this.markLine.setAttribute("y2", b.top + this.plotH);
      var right = xm > (b.left + b.W) / 2;
      this.markText.setAttribute("x", xm + (right ? -4 : 4));
      this.markText.setAttribute("y", b.top + 11);
      this.markText.setAttribute("text-anchor", right ? "end" : "start");
      this.markText.textContent = mark.label;
    }
    this.svg.setAttribute("aria-label", o.title + ". " + o.summary(result, this.values, this.first) +
      " Arrow keys move along the positions and read their values.");
    if (this.cursor !== null) this.showAt(Math.min(this.cursor, this.first + n - 1), this.keyboard);
  };

  LinePlot.prototype.describe = function (pos) {
    var t = this.result.tokens[pos];
    return this.opts.what + " " + pos + " (" + tokenLabel(t) + "): " + this.opts.symbol + " = " +
      fmtLabel(this.values[pos - this.first]);
  };

  LinePlot.prototype.showAt = function (pos, keyboard) {
    var n = this.values.length;
    pos = Math.max(this.first, Math.min(this.first + n - 1, pos));
    this.cursor = pos;
    this.keyboard = !!keyboard;
    var x = this.x(pos);
    this.cursorLine.setAttribute("x1", x);
    this.cursorLine.setAttribute("x2", x);
    this.cursorLine.setAttribute("y1", this.box.top);
    this.cursorLine.setAttribute("y2", this.box.top + this.plotH);
    this.cursorLine.setAttribute("visibility", "visible");
    var text = this.describe(pos);
    this.tip.textContent = text;
    this.tip.style.display = "block";
    var scale = this.svg.clientWidth / this.box.W || 1;
    var tipW = this.tip.offsetWidth;
    var left = Math.max(0, Math.min(this.svg.clientWidth - tipW, x * scale - tipW / 2));
    this.tip.style.left = left + "px";
    this.tip.style.top = "0px";
    if (keyboard) this.readout.textContent = text;
  };

  LinePlot.prototype.hide = function () {
    this.cursor = null;
    this.cursorLine.setAttribute("visibility", "hidden");
    this.tip.style.display = "none";
  };

  LinePlot.prototype.bind = function () {
    var self = this;
    this.svg.addEventListener("pointermove", function (ev) {
      if (!self.T) return;
      var rect = self.svg.getBoundingClientRect();
      var scale = rect.width / self.box.W;
      var x = (ev.clientX - rect.left) / scale;
      var b = self.box;
      var pos = Math.round(((x - b.left) / (b.W - b.left - b.right)) * Math.max(1, self.T - 1));
      self.showAt(pos, false);
    });
    this.svg.addEventListener("pointerleave", function () {
      if (!self.keyboard) self.hide();
    });
    this.svg.addEventListener("focus", function () {
      if (self.T && self.cursor === null) self.showAt(self.opts.start(self.result), true);
    });
    this.svg.addEventListener("blur", function () {
      self.hide();
    });
    this.svg.addEventListener("keydown", function (ev) {
      if (!self.T) return;
      var pos = self.cursor === null ? self.first : self.cursor;
      var big = Math.max(1, Math.round(self.T / 20));
      switch (ev.key) {
        case "ArrowLeft": case "ArrowDown": pos -= 1; break;
        case "ArrowRight": case "ArrowUp": pos += 1; break;
        case "PageDown": pos -= big; break;
        case "PageUp": pos += big; break;
        case "Home": pos = self.first; break;
        case "End": pos = self.T - 1; break;
        case "Escape": self.hide(); return;
        default: return;
      }
      ev.preventDefault();
      self.showAt(pos, true);
    });
  };

  /** The smallest of 1, 2, 5, 10, 20, 50, ... that cuts span into at most count steps. */
  function niceStep(span, count) {
    var unit = 1;
    for (;;) {
      for (var k = 0; k < 3; k++) {
        var step = unit * [1, 2, 5][k];
        if (span / step <= count) return step;
      }
      unit *= 10;
    }
  }

  /** The index of the largest entry of an array (the first, as numpy.argmax). */
  function argmax(a) {
    var best = 0;
    for (var i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
    return best;
  }

  // ---------------------------------------------------------------------------------------
  // The page
  // ---------------------------------------------------------------------------------------

  var counter = 0;

  function roundSig(x) {
    return Number(x.toPrecision(3));
  }

  function Playground(root) {
    ensureStyle();
    counter += 1;
    var id = "rp" + counter;
    this.root = root;
    this.renders = 0;
    this.lastUpdateMs = NaN;
    root.textContent = "";
    root.classList.remove("rp-stale");

    this.input = el("input", {
      type: "text", id: id + "-text", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
      "aria-describedby": id + "-msg",
    });
    this.input.value = DATA.OPENING_PROMPT;
    this.msg = el("p", { className: "rp-msg", id: id + "-msg", role: "status", "aria-live": "polite" });
    this.alpha = logSlider(id + "-alpha", DATA.ALPHA_RANGE, DATA.DEFAULTS.alpha);
    this.alphaOut = el("output", { for: id + "-alpha" });
    this.base = logSlider(id + "-base", DATA.BASE_RANGE, DATA.DEFAULTS.base);
    this.baseOut = el("output", { for: id + "-base" });
    this.heads = DATA.HEADS.map(function (head) {
      var radio = el("input", { type: "radio", name: id + "-head", value: head });
      radio.checked = head === DATA.DEFAULTS.head;
      return radio;
    });
    // Context extension: the method, its factor s and the original context L.
    this.scaling = el("select", { id: id + "-scaling", "aria-describedby": id + "-scaling-note" },
      [el("option", { value: "", text: "none (the frequencies as built)" })].concat(
        DATA.SCALING_METHODS.map(function (m) {
          return el("option", { value: m, text: DATA.SCALING_LABELS[m] });
        })));
    this.scalingNote = el("p", { className: "rp-note", id: id + "-scaling-note" });
    this.factor = logSlider(id + "-factor", DATA.FACTOR_RANGE, DATA.FACTOR, 2, "0.25");
    this.factorOut = el("output", { for: id + "-factor" });
    this.original = logSlider(id + "-original", DATA.ORIGINAL_MAX_POSITION_RANGE, DATA.ORIGINAL_MAX_POSITION, 2, "1");
    this.originalOut = el("output", { for: id + "-original" });
    // Which view: every pattern as a heatmap, or the last position only (longer texts).
    this.views = ["full", "last"].map(function (view) {
      var radio = el("input", { type: "radio", name: id + "-view", value: view });
      radio.checked = view === "full";
      return radio;
    });
    var VIEW_LABELS = {
      full: "all patterns, as heatmaps (at most " + DATA.HEATMAP_MAX_LETTERS.toLocaleString("en") + " letters)",
      last: "the last position only (at most " + DATA.LAST_POSITION_MAX_LETTERS.toLocaleString("en") + " letters)",
    };
    this.openBtn = el("button", { type: "button", className: "md-button", text: "Load the induction prompt" });
    this.failBtn = el("button", {
      type: "button", className: "md-button md-button--primary", text: "Load a prompt where rank-1 fails",
    });
    this.longBtn = el("button", {
      type: "button", className: "md-button", text: "Load " + Array.from(DATA.LONG_PROMPT).length + " letters",
    });
    this.longestBtn = el("button", {
      type: "button", className: "md-button",
      text: "Load " + Array.from(DATA.LONG_MODE_PROMPT).length.toLocaleString("en") + " letters",
    });
    this.resetBtn = el("button", { type: "button", className: "md-button", text: "Reset the settings" });
    // The weights: the hand-built circuit, or one of the trained seeds.
    this.weights = el("select", { id: id + "-weights", "aria-describedby": id + "-weights-note" },
      [el("option", { value: HAND_BUILT, text: "hand-built circuit (the sliders below)" })].concat(
        TRAINED.SEEDS.map(function (seed) {
          return el("option", { value: "seed-" + seed, text: "trained by gradient descent, seed " + seed });
        })));
    this.weightsNote = el("p", { className: "rp-note", id: id + "-weights-note" });
    // Pair ablation, per layer: the fastest or the slowest k pairs zeroed in q and k (k = 0: none).
    var counts = TRAINED.ZERO_COUNT_RANGE;
    this.bands = [0, 1].map(function (layer) {
      var band = {
        layer: layer,
        mode: el("select", { id: id + "-band" + layer, "aria-describedby": id + "-band" + layer + "-note" }, [
          el("option", { value: "fastest", text: "the fastest k pairs" }),
          el("option", { value: "slowest", text: "the slowest k pairs" }),
        ]),
        count: el("input", {
          type: "range", id: id + "-count" + layer, min: String(counts[0]), max: String(counts[1]), step: "1",
          "aria-describedby": id + "-band" + layer + "-note",
        }),
        countOut: el("output", { for: id + "-count" + layer }),
        note: el("p", { className: "rp-note", id: id + "-band" + layer + "-note" }),
      };
      band.count.value = String(counts[0]);
      return band;
    });
    this.recipes = Object.keys(TRAINED.ABLATIONS).map(function (key) {
      return el("button", {
        type: "button", className: "md-button", "data-ablation": key, text: TRAINED.ABLATIONS[key].label,
      });
    });

    var controls = el("div", { className: "rp-controls" }, [
      el("div", { className: "rp-wide" }, [
        el("label", {
          className: "rp-label", for: id + "-text", text: "Text: lower-case letters " + LETTERS + ", at most " +
            DATA.LAST_POSITION_MAX_LETTERS.toLocaleString("en"),
        }),
        this.input,
        this.msg,
      ]),
      el("div", { className: "rp-wide" }, [
        el("label", { className: "rp-label", for: id + "-weights", text: "Weights" }),
        this.weights,
        this.weightsNote,
      ]),
      el("div", {}, [
        el("label", { className: "rp-label", for: id + "-alpha" }, [
          document.createTextNode("Layer-0 sharpness \u03b1 = "), this.alphaOut,
        ]),
        this.alpha,
      ]),
      el("div", {}, [
        el("label", { className: "rp-label", for: id + "-base" }, [
          document.createTextNode("RoPE base = "), this.baseOut,
        ]),
        this.base,
      ]),
      this.headsBox = el("fieldset", {}, [el("legend", { text: "Layer-1 head" })].concat(this.heads.map(function (radio) {
        return el("label", {}, [radio, document.createTextNode(" " + DATA.HEAD_LABELS[radio.value])]);
      }))),
      el("div", {}, [
        el("label", { className: "rp-label", for: id + "-scaling", text: "Context extension" }),
        this.scaling,
        this.scalingNote,
      ]),
      el("div", {}, [
        el("label", { className: "rp-label", for: id + "-factor" }, [
          document.createTextNode("Factor s = "), this.factorOut,
        ]),
        this.factor,
      ]),
      el("div", {}, [
        el("label", { className: "rp-label", for: id + "-original" }, [
          document.createTextNode("Original context L = "), this.originalOut,
        ]),
        this.original,
      ]),
      el("fieldset", {}, [el("legend", { text: "Show" })].concat(this.views.map(function (radio) {
        return el("label", {}, [radio, document.createTextNode(" " + VIEW_LABELS[radio.value])]);
      }))),
    ].concat(this.bands.map(function (band) {
      return el("div", {}, [
        el("label", { className: "rp-label", for: band.mode.id, text: "Layer " + band.layer + ": zero RoPE pairs in q and k" }),
        band.mode,
        el("label", { className: "rp-label", for: band.count.id }, [
          document.createTextNode("k = "), band.countOut, document.createTextNode(" pairs zeroed"),
        ]),
        band.count,
        band.note,
      ]);
    })).concat([
      el("div", { className: "rp-recipes rp-wide" }, [
        el("span", { text: "The band ablations of \u201cWhat training finds\u201d, on one of its clean prompts:" }),
      ].concat(this.recipes)),
      el("div", { className: "rp-buttons rp-wide" }, [
        this.openBtn, this.failBtn, this.longBtn, this.longestBtn, this.resetBtn,
      ]),
    ]));

    this.prediction = el("p", { className: "rp-prediction", "aria-live": "polite" });
    this.copying = el("p", { className: "rp-copying" });
    this.timing = el("p", { className: "rp-timing" });
    this.heatmaps = {
      scores0: new Heatmap({
        name: "scores0", map: MAPS.score_gap, symbol: "q\u2098\u1d40k\u2099 \u2212 row\u2019s best",
        title: "Layer 0: scores q\u2098\u1d40k\u2099 minus the row\u2019s best",
        subtitle: "rows: query m, columns: key n; each score minus its row\u2019s best over n \u2264 m " +
          "(what the softmax sees); " + GAP_FLOOR_LABEL + " and below: darkest; grey: masked (n > m)",
        range: [GAP_FLOOR, 0], loLabel: "\u2264 " + GAP_FLOOR_LABEL, hiLabel: "0",
        values: rowGap,
        detail: function (trace, m, n) {
          return "score q\u2098\u1d40k\u2099 = " + fmtLabel(trace.scores0[m * trace.T + n]);
        },
      }),
      A0: new Heatmap({
        name: "A0", map: MAPS.sequential, symbol: "A\u207d\u2070\u207e",
        title: "Layer 0: attention A\u207d\u2070\u207e = softmax",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
        range: [0, 1], loLabel: "0", hiLabel: "1",
      }),
      A1: new Heatmap({
        name: "A1", map: MAPS.sequential, symbol: "A\u207d\u00b9\u207e",
        title: "Layer 1: attention A\u207d\u00b9\u207e",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
        range: [0, 1], loLabel: "0", hiLabel: "1",
      }),
    };
    this.lines = {
      attention1: new LinePlot({
        name: "attention1", axis: "key position n", what: "key n =", symbol: "A\u207d\u00b9\u207e",
        title: "Layer 1: the last query\u2019s attention A\u207d\u00b9\u207e over the keys",
        subtitle: "the last row of A\u207d\u00b9\u207e, one value per key n; dashed: the key after the " +
          "earlier copy of the last letter (what induction should read)",
        values: function (r) {
          return { values: r.attention1, first: 0 };
        },
        marker: function (r) {
          var target = copyTarget(r);
          return target === null ? null : { at: target, label: "copy: n = " + target };
        },
        start: function (r) {
          return argmax(r.attention1);
        },
        summary: function (r, values) {
          var top = argmax(values);
          var target = copyTarget(r);
          return "Highest at key " + top + " (" + tokenLabel(r.tokens[top]) + "), weight " + values[top].toFixed(3) +
            (target === null ? "." : "; the key to copy, " + target + ", has weight " + values[target].toFixed(3) + ".");
        },
      }),
      previous: new LinePlot({
        name: "previous", axis: "query position m", what: "query m =", symbol: "A\u207d\u2070\u207e[m, m\u22121]",
        title: "Layer 0: attention on the key one step back",
        subtitle: "A\u207d\u2070\u207e[m, m\u22121] for every query m \u2265 1: 1 where the previous-token head works",
        values: function (r) {
          return { values: r.previous, first: 1 };
        },
        start: function (r) {
          return r.T - 1;
        },
        summary: function (r, values) {
          var lo = 0;
          for (var i = 1; i < values.length; i++) if (values[i] < values[lo]) lo = i;
          return values.length ? "Lowest " + values[lo].toFixed(3) + " at query " + (lo + 1) +
            "; at the last query " + values[values.length - 1].toFixed(3) + "." : "No query has a key before it.";
        },
      }),
    };
    this.bars = new Bars();
    this.panels = el("div", { className: "rp-panels" }, [
      this.heatmaps.scores0.node, this.heatmaps.A0.node, this.heatmaps.A1.node,
      this.lines.attention1.node, this.lines.previous.node, this.bars.node,
    ]);
    root.appendChild(controls);
    root.appendChild(this.prediction);
    root.appendChild(this.copying);
    root.appendChild(this.timing);
    root.appendChild(this.panels);

    this.bind();
    this.update();
    if (location.search) this.fromAddress(location.search);
  }

  /**
   * A logarithmic slider over range = [lo, hi], set to value: its positions are the exponents
   * log_radix(x) in steps of step (default: log10 in steps of 0.05).
   */
  function logSlider(id, range, value, radix, step) {
    radix = radix || 10;
    var exp = function (x) {
      return String(Number((Math.log(x) / Math.log(radix)).toFixed(6)));
    };
    var slider = el("input", {
      type: "range", id: id, min: exp(range[0]), max: exp(range[1]), step: step || "0.05", value: exp(value),
    });
    slider.radix = radix;
    return slider;
  }

  /** radix^(slider value) to three significant digits (an integer if whole is true), kept
   * within range. */
  function sliderValue(slider, range, whole) {
    var power = Math.pow(slider.radix, Number(slider.value));
    var x = whole ? Math.round(power) : roundSig(power);
    return Math.min(range[1], Math.max(range[0], x));
  }

  /** The key an induction head should read for a result: the one after the latest earlier
   * copy of the last letter (a position counted with the start token), or null. */
  function copyTarget(r) {
    var t = r.tokens;
    var last = t[t.length - 1];
    for (var n = t.length - 2; n >= 0; n--) if (t[n] === last) return n + 1;
    return null;
  }

  /** The settings the controls show now. */
  Playground.prototype.readControls = function () {
    var head = DATA.DEFAULTS.head;
    this.heads.forEach(function (radio) {
      if (radio.checked) head = radio.value;
    });
    var view = "full";
    this.views.forEach(function (radio) {
      if (radio.checked) view = radio.value;
    });
    var zero = {};
    this.bands.forEach(function (band) {
      var k = Number(band.count.value);
      var pairs = Number(band.count.max);
      if (!k) return;
      zero[band.layer] = [];
      for (var i = 0; i < k; i++) zero[band.layer].push(band.mode.value === "fastest" ? i : pairs - k + i);
    });
    return {
      text: this.input.value,
      weights: this.weights.value,
      zero_pairs: zero,
      alpha: sliderValue(this.alpha, DATA.ALPHA_RANGE),
      base: sliderValue(this.base, DATA.BASE_RANGE),
      head: head,
      scaling: this.scaling.value || null,
      factor: sliderValue(this.factor, DATA.FACTOR_RANGE),
      original_max_position: sliderValue(this.original, DATA.ORIGINAL_MAX_POSITION_RANGE, true),
      view: view,
    };
  };

  /**
   * The settings passed to the model: the pairs zeroed and the scaling's (only with a scaling),
   * which every weights take, and for the hand-built circuit its sliders'.
   */
  function modelConfig(state) {
    var config = { zero_pairs: state.zero_pairs };
    if (state.weights === HAND_BUILT) {
      config.alpha = state.alpha;
      config.base = state.base;
      config.head = state.head;
    }
    if (state.scaling) {
      config.scaling = state.scaling;
      config.factor = state.factor;
      config.original_max_position = state.original_max_position;
    }
    return config;
  }

  /** Whether the weights called name have been loaded (the hand-built ones always are). */
  function loaded(name) {
    return name === HAND_BUILT || !!(window.RopePlaygroundWeights && window.RopePlaygroundWeights[name]);
  }

  /**
   * Load the weights file of a trained seed (once per browser page), then update. While it
   * loads, and if it cannot be loaded, the message under the text says so.
   */
  Playground.prototype.fetchWeights = function (name) {
    var self = this;
    if (this.fetching === name) return;
    this.fetching = name;
    var file = TRAINED.SCRIPTS[name];
    if (!HERE) {
      this.fail("The weights " + name + " are not loaded, and this page has no address to load " + file + " from.");
      return;
    }
    var script = document.createElement("script");
    script.src = new URL(file, HERE).href;
    script.setAttribute("data-rope-playground-weights", name);
    script.onload = function () {
      self.fetching = null;
      if (self.root.isConnected) self.update();
    };
    script.onerror = function () {
      self.fetching = null;
      script.remove();
      self.fail("The playground could not load the weights file " + file + ".");
    };
    document.head.appendChild(script);
  };

  /** Show an error under the text box and mark the panels as stale. */
  Playground.prototype.fail = function (message) {
    this.msg.textContent = message;
    this.msg.classList.add("rp-error");
    this.root.classList.add("rp-stale");
  };

  Playground.prototype.schedule = function () {
    var self = this;
    if (this.frame) return;
    this.frame = window.requestAnimationFrame(function () {
      self.frame = 0;
      self.update();
    });
  };

  /** Recompute and redraw everything for the current controls (synchronously). */
  Playground.prototype.update = function () {
    var t0 = performance.now();
    var state = this.readControls();
    this.alphaOut.textContent = String(state.alpha);
    this.baseOut.textContent = String(state.base);
    this.alpha.setAttribute("aria-valuetext", "\u03b1 = " + state.alpha);
    this.base.setAttribute("aria-valuetext", "base " + state.base);
    this.factorOut.textContent = String(state.factor);
    this.originalOut.textContent = state.original_max_position.toLocaleString("en");
    this.factor.setAttribute("aria-valuetext", "s = " + state.factor);
    this.original.setAttribute("aria-valuetext", "L = " + state.original_max_position);
    // the factor only counts with a scaling, L only for the methods that read it
    this.factor.disabled = !state.scaling;
    this.original.disabled = DATA.USES_ORIGINAL.indexOf(state.scaling) < 0;
    var hand = state.weights === HAND_BUILT;
    this.showWeights(state);
    var check = MODEL.checkText(state.text, hand ? DATA.LAST_POSITION_MAX_LETTERS : DATA.HEATMAP_MAX_LETTERS);
    if (!hand && state.view === "last") {
      state.view = "full";
      this.views[0].checked = true;
    }
    if (check.ok && state.view === "full" && Array.from(check.text).length > DATA.HEATMAP_MAX_LETTERS) {
      // too long for the heatmaps: show the last position only
      state.view = "last";
      this.views.forEach(function (radio) {
        radio.checked = radio.value === "last";
      });
      check.note = (check.note ? check.note + " " : "") + "More than " + DATA.HEATMAP_MAX_LETTERS +
        " letters: the panels show the last position only.";
    }
    if (check.ok) {
      this.validText = check.text;
      this.msg.textContent = check.note;
      this.msg.classList.remove("rp-error");
      this.input.removeAttribute("aria-invalid");
      this.root.classList.remove("rp-stale");
    } else {
      this.msg.textContent = check.message;
      this.msg.classList.add("rp-error");
      this.input.setAttribute("aria-invalid", "true");
      this.root.classList.add("rp-stale");
    }
    var text = this.validText || DATA.OPENING_PROMPT;
    var view = state.view;
    if (view === "full" && Array.from(text).length > DATA.HEATMAP_MAX_LETTERS) view = "last"; // the last valid text
    if (!hand && Array.from(text).length > DATA.HEATMAP_MAX_LETTERS) {
      // the last valid text was read with the hand-built circuit's last-position view
      this.fail("The trained weights run every T \u00d7 T pattern, at most " + DATA.HEATMAP_MAX_LETTERS +
        " letters; shorten the text or choose the hand-built circuit.");
      return NaN;
    }
    if (!loaded(state.weights)) {
      this.fetchWeights(state.weights);
      this.msg.textContent = "Loading the weights of " + state.weights.replace("-", " ") + "\u2026";
      this.root.classList.add("rp-stale");
      return NaN;
    }
    var config = modelConfig(state);
    var trace;
    try {
      if (!hand) trace = MODEL.forwardWeights(state.weights, text, config);
      else trace = view === "full" ? MODEL.forward(text, config) : MODEL.predictLast(text, config);
    } catch (err) {
      this.fail(err.message); // a setting the model refuses: said, never drawn
      return NaN;
    }
    this.state = {
      text: text, weights: state.weights, zero_pairs: trace.config.zero_pairs,
      alpha: hand ? state.alpha : null, base: hand ? state.base : null, head: hand ? state.head : null,
      scaling: state.scaling, factor: state.scaling ? state.factor : null,
      original_max_position: state.scaling ? state.original_max_position : null,
      view: view, valid: check.ok,
    };
    this.trace = trace;
    this.root.setAttribute("data-view", view);
    if (view === "full") {
      this.heatmaps.scores0.setData(trace);
      this.heatmaps.A0.setData(trace);
      this.heatmaps.A1.setData(trace);
    } else {
      this.lines.attention1.setData(trace);
      this.lines.previous.setData(trace);
    }
    this.bars.setData(trace);
    this.showScaling(state, trace);
    this.showPrediction(text, trace);
    this.renders += 1;
    this.lastUpdateMs = performance.now() - t0;
    this.timing.textContent = "Recomputed and redrawn for " + letters(Array.from(text).length) + " in " +
      this.lastUpdateMs.toFixed(1) + " ms.";
    return this.lastUpdateMs;
  };

  /**
   * The controls that only the hand-built circuit has (alpha, the base, the layer-1 head, the
   * last-position view) are off with trained weights, and the line under the menu says why;
   * under each layer's pair menu, which pairs are zeroed.
   */
  Playground.prototype.showWeights = function (state) {
    var hand = state.weights === HAND_BUILT;
    this.alpha.disabled = !hand;
    this.base.disabled = !hand;
    this.headsBox.disabled = !hand;
    this.views[1].disabled = !hand;
    this.weightsNote.textContent = hand ?
      "The circuit this site builds by hand; \u03b1, the base and the layer-1 head change how it is built." :
      "Off: \u03b1, the base and the layer-1 head only shape the hand-built circuit; the trained one runs " +
      "every pattern in full (heatmaps only).";
    this.bands.forEach(function (band) {
      var zero = state.zero_pairs[band.layer];
      band.countOut.textContent = band.count.value;
      band.count.setAttribute("aria-valuetext", "k = " + band.count.value);
      var pairs = Number(band.count.max);
      band.note.textContent = !zero ? "Every pair kept." :
        zero.length === pairs ? "Every pair zeroed: each score of layer " + band.layer + " is 0, its attention uniform." :
        (zero.length === 1 ? "Pair " + zero[0] : "Pairs " + zero[0] + "\u2013" + zero[zero.length - 1]) +
        " of 0\u2013" + (pairs - 1) + " zeroed (pair 0 turns fastest).";
    });
  };

  /** Under the menu: what the chosen scaling does to the fastest and slowest pair. */
  Playground.prototype.showScaling = function (state, trace) {
    if (!state.scaling) {
      this.scalingNote.textContent = "Every pair turns at the frequency the heads were " +
        (state.weights === HAND_BUILT ? "built" : "trained") + " for.";
      return;
    }
    var built = MODEL.frequencies(trace.config.r, trace.config.base);
    var half = built.length;
    var ratio = function (i) {
      return (trace.theta[i] / built[i]).toPrecision(3);
    };
    var changed = 0;
    for (var i = 0; i < half; i++) if (Math.abs(trace.theta[i] / built[i] - 1) > 1e-12) changed += 1;
    this.scalingNote.textContent = changed + " of " + half + " pairs turn at a new frequency: the fastest at \u00d7" +
      ratio(0) + ", the slowest at \u00d7" + ratio(half - 1) + " of its own" +
      (trace.attentionFactor !== 1 ? "; queries and keys \u00d7" + trace.attentionFactor.toFixed(3) : "") + ".";
  };

  Playground.prototype.showPrediction = function (text, trace) {
    var p = this.prediction;
    p.textContent = "";
    var pb = lastProbs(trace)[trace.predictionIndex];
    var tail = text.length > 12 ? "\u2026" + text.slice(-12) : text;
    p.appendChild(document.createTextNode("After \u201c" + tail + "\u201d the model predicts "));
    p.appendChild(el("strong", { className: "rp-letter", "data-prediction": trace.prediction, text: trace.prediction }));
    p.appendChild(document.createTextNode(" (p = " + pb.toFixed(3) + "). "));
    var copied = MODEL.copiedLetter(text);
    if (copied === null) {
      p.appendChild(document.createTextNode(
        "The last letter \u201c" + text[text.length - 1] + "\u201d has not appeared before, so there is nothing to copy."));
    } else {
      p.appendChild(document.createTextNode(
        "Copying what followed the previous \u201c" + text[text.length - 1] + "\u201d gives \u201c" + copied + "\u201d: "));
      var ok = copied === trace.prediction;
      p.appendChild(el("span", { className: ok ? "rp-good" : "rp-bad", text: ok ? "\u2713 induction works." : "\u2717 the head misses it." }));
    }
    // the circle of letter angles is the hand-built readout's: trained weights have their own
    if (text.indexOf(trace.prediction) < 0 && this.state.weights === HAND_BUILT) {
      p.appendChild(document.createTextNode(" " + outsideLetter(trace)));
    }
    this.copying.textContent = "";
    if (trace.A0) {
      // every position's prediction is known only with every pattern (not in the last-position view)
      var score = MODEL.copyScore(trace);
      this.copying.textContent = score.positions ?
        "Over the whole text, the model predicts what copying gives at " + score.right + " of the " +
        score.positions + " positions whose letter occurred exactly once before." :
        "No position of the text holds a letter that occurred exactly once before it, so there is nothing to copy.";
    }
  };

  /** "1 letter", "2 letters", "4,096 letters". */
  function letters(n) {
    return n.toLocaleString("en") + (n === 1 ? " letter" : " letters");
  }

  /**
   * Why the prediction can be a letter the text does not hold. Layer 1 copies the letters of the
   * keys it attends to (each as its point on the circle of letter angles) and the readout names
   * the letter nearest the angle of their weighted mean: attention split over keys holding
   * different letters averages their angles, which can point at a letter between them.
   */
  function outsideLetter(trace) {
    var row = lastRow(trace);
    var keys = [];
    for (var n = 0; n < row.length; n++) if (row[n] >= MIX_SHOWN) keys.push(n);
    keys.sort(function (a, b) {
      return row[b] - row[a];
    });
    var shown = keys.slice(0, MIX_KEYS).map(function (n) {
      return tokenLabel(trace.tokens[n]) + " " + row[n].toFixed(2);
    });
    return "\u201c" + trace.prediction + "\u201d is not in the text: layer 1 copies the letters of the keys it " +
      "attends to (here " + shown.join(", ") + (keys.length > MIX_KEYS ? ", \u2026" : "") + "), and the readout " +
      "names the letter nearest the angle of their weighted mean on the circle of letter angles, which can lie " +
      "between the letters copied.";
  }

  /** Keys whose layer-1 weight reaches MIX_SHOWN are listed, at most MIX_KEYS of them. */
  var MIX_SHOWN = 0.05;
  var MIX_KEYS = 4;

  /** The last query's layer-1 attention: the last row of A1, or attention1 of predictLast. */
  function lastRow(trace) {
    return trace.attention1 || trace.A1.subarray((trace.T - 1) * trace.T);
  }

  /**
   * Load a prompt with the settings its recipe under "What to try" assumes: the defaults of
   * Config and of the context-extension controls, with the given head and view (text kept when
   * text is null: the reset).
   */
  Playground.prototype.load = function (text, head, view, weights, ablation) {
    if (text !== null) this.input.value = text;
    if (weights) this.weights.value = weights;
    this.bands.forEach(function (band) {
      var recipe = ablation && ablation.layer === band.layer ? ablation : null;
      band.mode.value = recipe ? recipe.band : "fastest";
      band.count.value = String(recipe ? recipe.count : TRAINED.ZERO_COUNT_RANGE[0]);
    });
    setLog(this.alpha, DATA.DEFAULTS.alpha);
    setLog(this.base, DATA.DEFAULTS.base);
    setLog(this.factor, DATA.FACTOR);
    setLog(this.original, DATA.ORIGINAL_MAX_POSITION);
    this.scaling.value = DATA.DEFAULTS.scaling || "";
    this.heads.forEach(function (radio) {
      radio.checked = radio.value === head;
    });
    this.views.forEach(function (radio) {
      radio.checked = radio.value === view;
    });
    this.update();
  };

  /**
   * A band ablation of the chapter (a key of TRAINED.ABLATIONS) on its clean prompt, every
   * other setting at its default, with the weights called weights (null: those chosen now).
   */
  Playground.prototype.recipe = function (key, weights) {
    this.load(TRAINED.ABLATION_PROMPT, DATA.DEFAULTS.head, "full", weights, TRAINED.ABLATIONS[key]);
  };

  /**
   * What the page's address asks for: ?weights=seed-0 chooses the weights and
   * &ablation=l0-no-fast8 loads that band ablation (the chapter's links); anything else is
   * said under the text box.
   */
  Playground.prototype.fromAddress = function (search) {
    var params = new URLSearchParams(search);
    var weights = params.get("weights");
    var ablation = params.get("ablation");
    var names = [HAND_BUILT].concat(Object.keys(TRAINED.SCRIPTS));
    if (weights !== null && names.indexOf(weights) < 0) {
      this.fail("The address asks for weights=" + weights + "; the playground has " + names.join(", ") + ".");
      return;
    }
    if (ablation !== null && !Object.prototype.hasOwnProperty.call(TRAINED.ABLATIONS, ablation)) {
      this.fail("The address asks for ablation=" + ablation + "; the playground has " +
        Object.keys(TRAINED.ABLATIONS).join(", ") + ".");
      return;
    }
    if (ablation !== null) this.recipe(ablation, weights);
    else if (weights !== null) this.load(null, DATA.DEFAULTS.head, "full", weights);
  };

  /** Put a logarithmic slider (logSlider) at value. */
  function setLog(slider, value) {
    slider.value = String(Number((Math.log(value) / Math.log(slider.radix)).toFixed(6)));
  }

  Playground.prototype.bind = function () {
    var self = this;
    var later = function () {
      self.schedule();
    };
    this.input.addEventListener("input", later);
    this.alpha.addEventListener("input", later);
    this.base.addEventListener("input", later);
    this.factor.addEventListener("input", later);
    this.original.addEventListener("input", later);
    this.scaling.addEventListener("change", later);
    this.heads.concat(this.views).forEach(function (radio) {
      radio.addEventListener("change", later);
    });
    this.weights.addEventListener("change", later);
    this.bands.forEach(function (band) {
      band.mode.addEventListener("change", later);
      band.count.addEventListener("input", later);
    });
    // The prompts' recipes under "What to try" are the hand-built circuit's.
    this.openBtn.addEventListener("click", function () {
      self.load(DATA.OPENING_PROMPT, DATA.DEFAULTS.head, "full", HAND_BUILT);
    });
    this.failBtn.addEventListener("click", function () {
      self.load(DATA.RANK1_FAILS_PROMPT, DATA.RANK1_HEAD, "full", HAND_BUILT);
    });
    this.resetBtn.addEventListener("click", function () {
      var text = self.input.value;
      var long = Array.from(text).length > DATA.HEATMAP_MAX_LETTERS && self.weights.value === HAND_BUILT;
      self.load(null, DATA.DEFAULTS.head, long ? "last" : "full");
    });
    this.longBtn.addEventListener("click", function () {
      self.load(DATA.LONG_PROMPT, DATA.DEFAULTS.head, "full", HAND_BUILT);
    });
    this.longestBtn.addEventListener("click", function () {
      self.load(DATA.LONG_MODE_PROMPT, DATA.DEFAULTS.head, "last", HAND_BUILT);
    });
    // The chapter's band ablations, on its clean prompt, with the weights chosen.
    this.recipes.forEach(function (button) {
      button.addEventListener("click", function () {
        self.recipe(button.getAttribute("data-ablation"), null);
      });
    });
    if (window.ResizeObserver) {
      var width = 0;
      this.resizer = new ResizeObserver(function () {
        var w = self.panels.clientWidth;
        if (w === width) return;
        width = w;
        for (var k in self.heatmaps) self.heatmaps[k].draw();
      });
      this.resizer.observe(this.panels);
    }
  };

  Playground.prototype.destroy = function () {
    if (this.frame) window.cancelAnimationFrame(this.frame);
    if (this.resizer) this.resizer.disconnect();
  };

  /** The colour shown at cell (m, n) of a heatmap ("scores0", "A0" or "A1"). */
  Playground.prototype.cellColor = function (name, m, n) {
    return this.heatmaps[name].pixel(m, n);
  };

  // ---------------------------------------------------------------------------------------
  // Start-up: once per page, again after every instant navigation of mkdocs-material.
  // ---------------------------------------------------------------------------------------

  var api = { current: null, Playground: Playground, LUTS: LUTS, starts: 0 };
  window.RopePlayground = api;

  /** Start the playground in the page's .rope-playground element, or stop it if there is none. */
  function init() {
    var root = document.querySelector(".rope-playground");
    if (api.current && api.current.root === root) return;
    if (api.current) api.current.destroy();
    api.current = null;
    if (!root) return;
    try {
      api.current = new Playground(root);
      api.starts += 1;
    } catch (err) {
      root.textContent = "The playground could not start: " + err.message;
    }
  }

  // Material's document$ (a ReplaySubject) emits the document after the first load and after
  // every instant navigation; subscribing late replays the latest. It exists once the theme's
  // bundle has run, which may be after this script: so look for it when the page has parsed.
  function subscribe() {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(init);
    } else {
      init();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", subscribe);
  } else {
    subscribe();
  }
})();
