/*
 * RoPE playground, the page: controls, three canvas heatmaps and an SVG bar chart, built inside
 * the element with class "rope-playground" and rebuilt after each instant navigation.
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
  var LETTERS = VOCAB[0] + "\u2013" + VOCAB[V - 1]; // "a-z", with an en dash

  // The layer-0 score panel shows each row minus its best visible score (n <= m), from this
  // floor (and below) to 0, as the build-time figure playground-opening does.
  var GAP_FLOOR = DATA.SCORE_GAP_FLOOR;
  var GAP_FLOOR_LABEL = String(GAP_FLOOR).replace("-", "\u2212");

  // ---------------------------------------------------------------------------------------
  // Colour maps: the 256-entry tables of matplotlib's viridis and cividis (bytes=True), indexed
  // as matplotlib does: i = min(255, floor(256 x)) for x in [0, 1].
  // ---------------------------------------------------------------------------------------

  var LUT_HEX = {
    viridis: "44015444025544035745055845065a45085b46095c460b5e460c5f460e61470f6247116347126547146647156747166947186a48196b481a6c481c6e481d6f481e70482071482172482273482374472575472676472777472878472a79472b7a472c7b462d7c462f7c46307d46317e45327f45347f453580453681443781443982433a83433b83433c84423d84423e854240854141864142864043874044873f45873f47883e48883e49893d4a893d4b893d4c893c4d8a3c4e8a3b508a3b518a3a528b3a538b39548b39558b38568b38578c37588c37598c365a8c365b8c355c8c355d8c345e8d345f8d33608d33618d32628d32638d31648d31658d31668d30678d30688d2f698d2f6a8d2e6b8e2e6c8e2e6d8e2d6e8e2d6f8e2c708e2c718e2c728e2b738e2b748e2a758e2a768e2a778e29788e29798e287a8e287a8e287b8e277c8e277d8e277e8e267f8e26808e26818e25828e25838d24848d24858d24868d23878d23888d23898d22898d228a8d228b8d218c8d218d8c218e8c208f8c20908c20918c1f928c1f938b1f948b1f958b1f968b1e978a1e988a1e998a1e998a1e9a891e9b891e9c891e9d881e9e881e9f881ea0871fa1871fa2861fa38620a48520a58521a68521a78422a78423a88323a98224aa8225ab8126ac8127ad8028ae7f29af7f2ab07e2bb17d2cb17d2eb27c2fb37b30b47a32b57a33b67935b77836b87738b97639b9763bba753dbb743ebc7340bd7242be7144be7045bf6f47c06e49c16d4bc26c4dc26b4fc36951c46853c56755c66657c66559c7645bc8625ec96160c96062ca5f64cb5d67cc5c69cc5b6bcd596dce5870ce5672cf5574d05477d05279d1517cd24f7ed24e81d34c83d34b86d44988d5478bd5468dd64490d64392d74195d73f97d83e9ad83c9dd93a9fd938a2da37a5da35a7db33aadb32addc30afdc2eb2dd2cb5dd2bb7dd29bade27bdde26bfdf24c2df22c5df21c7e01fcae01ecde01dcfe11cd2e11bd4e11ad7e219dae218dce218dfe318e1e318e4e318e7e419e9e419ece41aeee51bf1e51cf3e51ef6e61ff8e621fae622fde724",
    cividis: "00224d00234f00235000245200255400265500265700275900285b00285c00295e002a60002a62002b64002c66002c67002d69002e6b002f6d002f6f0030700030700031700031700432700833700b33700e347011356f14366f16366f18376f1a386f1c386e1d396e1f3a6e213b6e223b6e243c6e253d6d273d6d283e6d2a3f6d2b3f6d2c406d2e416c2f426c30426c31436c32446c34446c35456c36466c37466c38476c39486c3a486b3b496b3d4a6b3e4b6b3f4b6b404c6b414d6b424d6b434e6b444f6b454f6b46506b47516b48516b49526b4a536b4b546c4c546c4d556c4e566c4e566c4f576c50586c51586c52596c535a6c545a6c555b6d565c6d575d6d585d6d595e6d595f6d5a5f6d5b606e5c616e5d616e5e626e5f636e60646e61646f61656f62666f63666f64676f656870666970676970686a70686b71696b716a6c716b6d716c6d726d6e726e6f726e70736f70737071737172737273747373747474757475757575757676767777767878767978777979777a7a777b7b777c7b787d7c787e7d787f7d78807e78817f788280788380788481788582788583788683788784788885788986788a86788b87788c88788d89788e89788f8a77908b77918c77928c77938d77948e77958f77968f779790769891769992769a93769b93769c94769d95759e96759f9675a09775a19874a29974a39a74a49a74a59b73a69c73a79d73a89e73a99e72aa9f72aba072aca171ada271aea271afa370b0a470b1a570b2a66fb3a66fb4a76fb5a86eb6a96eb7aa6db8ab6db9ab6dbaac6cbbad6cbcae6bbdaf6bbeb06abfb06ac1b169c2b269c3b368c4b468c5b567c6b567c7b666c8b765c9b865cab964cbba64ccbb63cdbc62cebc62cfbd61d0be60d2bf60d3c05fd4c15ed5c25ed6c35dd7c35cd8c45bd9c55adac65adbc759dcc858dec957dfca56e0cb55e1cc54e2cc53e3cd52e4ce51e5cf50e6d04fe8d14ee9d24dead34cebd44becd54aedd648eed747efd846f1d944f2da43f3da42f4db40f5dc3ff6dd3df8de3bf9df3afae038fbe136fde234fde333fde534fde636fde737",
  };
  var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([0x01020304]).buffer)[0] === 0x04;

  // Both tables have the same number of entries (matplotlib's N), read off their length.
  var LUT_N = LUT_HEX.viridis.length / 6;

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

  var LUTS = { viridis: makeLut(LUT_HEX.viridis), cividis: makeLut(LUT_HEX.cividis) };

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
      el("p", { className: "rp-panel-sub", text: "softmax of the logits after the last letter; bar colour is the probability (viridis)" }),
      this.svg,
    ]);
  }

  Bars.prototype.setData = function (trace) {
    var b = this.box;
    var last = (trace.T - 1) * V;
    var best = trace.predictionIndex;
    var summary = [];
    for (var v = 0; v < V; v++) {
      var p = trace.probs[last + v];
      var h = this.plotH * p;
      var bar = this.bars[v];
      bar.rect.setAttribute("y", b.top + this.plotH - h);
      bar.rect.setAttribute("height", h);
      bar.rect.setAttribute("fill", cssColor(LUTS.viridis, lutIndex(p)));
      bar.rect.setAttribute("stroke", v === best ? "#000" : "none");
      bar.rect.setAttribute("stroke-width", v === best ? 2.5 : 0);
      bar.title.textContent = VOCAB[v] + ": p = " + fmt(p);
      this.labels[v].setAttribute("font-weight", v === best ? 700 : 400);
      this.labels[v].setAttribute("text-decoration", v === best ? "underline" : "none");
      if (p >= 0.01) summary.push(VOCAB[v] + " " + p.toFixed(2));
    }
    var pb = trace.probs[last + best];
    var mx = b.left + (best + 0.5) * this.slot;
    this.marker.setAttribute("x", Math.max(b.left + 28, Math.min(b.W - b.right - 28, mx)));
    this.marker.setAttribute("y", Math.max(14, b.top + this.plotH * (1 - pb) - 6));
    this.marker.textContent = VOCAB[best] + " " + pb.toFixed(3);
    this.svg.setAttribute("aria-label", "Probability of each next letter; the prediction is " +
      VOCAB[best] + " with p = " + pb.toFixed(3) + ". Letters above 0.01: " + summary.join(", "));
  };

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
    this.openBtn = el("button", { type: "button", className: "md-button", text: "Load the induction prompt" });
    this.failBtn = el("button", {
      type: "button", className: "md-button md-button--primary", text: "Load a prompt where rank-1 fails",
    });
    this.longBtn = el("button", {
      type: "button", className: "md-button", text: "Load " + Array.from(DATA.LONG_PROMPT).length + " letters",
    });

    var controls = el("div", { className: "rp-controls" }, [
      el("div", { className: "rp-wide" }, [
        el("label", {
          className: "rp-label", for: id + "-text", text: "Text: lower-case letters " + LETTERS + ", at most " + DATA.MAX_LETTERS,
        }),
        this.input,
        this.msg,
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
      el("fieldset", {}, [el("legend", { text: "Layer-1 head" })].concat(this.heads.map(function (radio) {
        return el("label", {}, [radio, document.createTextNode(" " + DATA.HEAD_LABELS[radio.value])]);
      }))),
      el("div", { className: "rp-buttons rp-wide" }, [this.openBtn, this.failBtn, this.longBtn]),
    ]);

    this.prediction = el("p", { className: "rp-prediction", "aria-live": "polite" });
    this.timing = el("p", { className: "rp-timing" });
    this.heatmaps = {
      scores0: new Heatmap({
        name: "scores0", map: "cividis", symbol: "q\u2098\u1d40k\u2099 \u2212 row\u2019s best",
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
        name: "A0", map: "viridis", symbol: "A\u207d\u2070\u207e",
        title: "Layer 0: attention A\u207d\u2070\u207e = softmax",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
        range: [0, 1], loLabel: "0", hiLabel: "1",
      }),
      A1: new Heatmap({
        name: "A1", map: "viridis", symbol: "A\u207d\u00b9\u207e",
        title: "Layer 1: attention A\u207d\u00b9\u207e",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
        range: [0, 1], loLabel: "0", hiLabel: "1",
      }),
    };
    this.bars = new Bars();
    this.panels = el("div", { className: "rp-panels" }, [
      this.heatmaps.scores0.node, this.heatmaps.A0.node, this.heatmaps.A1.node, this.bars.node,
    ]);
    root.appendChild(controls);
    root.appendChild(this.prediction);
    root.appendChild(this.timing);
    root.appendChild(this.panels);

    this.bind();
    this.update();
  }

  /** A logarithmic slider over range = [lo, hi] (log10 steps of 0.05), set to value. */
  function logSlider(id, range, value) {
    var exp = function (x) {
      return String(Number(Math.log10(x).toFixed(6)));
    };
    return el("input", { type: "range", id: id, min: exp(range[0]), max: exp(range[1]), step: "0.05", value: exp(value) });
  }

  /** 10^(slider value) to three significant digits, kept within range. */
  function sliderValue(slider, range) {
    var x = roundSig(Math.pow(10, Number(slider.value)));
    return Math.min(range[1], Math.max(range[0], x));
  }

  /** The settings the controls show now. */
  Playground.prototype.readControls = function () {
    var head = DATA.DEFAULTS.head;
    this.heads.forEach(function (radio) {
      if (radio.checked) head = radio.value;
    });
    return {
      text: this.input.value,
      alpha: sliderValue(this.alpha, DATA.ALPHA_RANGE),
      base: sliderValue(this.base, DATA.BASE_RANGE),
      head: head,
    };
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
    var check = MODEL.checkText(state.text);
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
    var config = { alpha: state.alpha, base: state.base, head: state.head };
    var trace = MODEL.forward(text, config);
    this.state = { text: text, alpha: state.alpha, base: state.base, head: state.head, valid: check.ok };
    this.trace = trace;
    this.heatmaps.scores0.setData(trace);
    this.heatmaps.A0.setData(trace);
    this.heatmaps.A1.setData(trace);
    this.bars.setData(trace);
    this.showPrediction(text, trace);
    this.renders += 1;
    this.lastUpdateMs = performance.now() - t0;
    this.timing.textContent = "Recomputed and redrawn for " + (trace.T - 1) + " letters in " +
      this.lastUpdateMs.toFixed(1) + " ms.";
    return this.lastUpdateMs;
  };

  Playground.prototype.showPrediction = function (text, trace) {
    var p = this.prediction;
    p.textContent = "";
    var pb = trace.probs[(trace.T - 1) * V + trace.predictionIndex];
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
  };

  Playground.prototype.load = function (text, head) {
    this.input.value = text;
    this.heads.forEach(function (radio) {
      radio.checked = radio.value === head;
    });
    this.update();
  };

  Playground.prototype.bind = function () {
    var self = this;
    var later = function () {
      self.schedule();
    };
    this.input.addEventListener("input", later);
    this.alpha.addEventListener("input", later);
    this.base.addEventListener("input", later);
    this.heads.forEach(function (radio) {
      radio.addEventListener("change", later);
    });
    this.openBtn.addEventListener("click", function () {
      self.load(DATA.OPENING_PROMPT, DATA.DEFAULTS.head);
    });
    this.failBtn.addEventListener("click", function () {
      self.load(DATA.RANK1_FAILS_PROMPT, DATA.RANK1_HEAD);
    });
    this.longBtn.addEventListener("click", function () {
      self.load(DATA.LONG_PROMPT, DATA.DEFAULTS.head);
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
