/*
 * "Paste your model's config", the page: a menu of released configurations, a text box for a
 * config.json, and what it gives RoPE (a summary, a plot and a table of the pairs), then the
 * same recipe on the site's circuit. Built inside the element with class "rope-your-config" and
 * rebuilt after each instant navigation of mkdocs-material (its document$).
 *
 * Plain JavaScript, nothing loaded from elsewhere. Reads window.RopeConfigData (data.js) and
 * window.RopeConfigModel (hf.js); defines window.RopeConfigPage ({current, starts}).
 */
(function () {
  "use strict";

  var DATA = window.RopeConfigData;
  var HF = window.RopeConfigModel;
  if (!DATA || !HF) throw new Error("RopeConfig: load data.js and hf.js before page.js");
  if (window.RopeConfigPage) return;
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    return node;
  }

  /** A number for reading: four significant digits, a thousands separator, "∞" for Infinity. */
  function fmt(x) {
    if (x === Infinity) return "\u221e";
    if (x === 0) return "0";
    var a = Math.abs(x);
    if (a >= 1e7 || a < 1e-3) {
      var e = x.toExponential(3).split("e");
      return e[0] + "\u00d710" + superscript(e[1].replace("+", ""));
    }
    if (a >= 1000) return Math.round(x).toLocaleString("en");
    return String(Number(x.toPrecision(4)));
  }

  function superscript(text) {
    var map = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074",
      5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };
    return text.split("").map(function (c) { return map[c]; }).join("");
  }

  function subscript(text) {
    return text.split("").map(function (c) { return String.fromCharCode(0x2080 + Number(c)); }).join("");
  }

  var OWN = "Your own (edit the box)";

  function Page(root) {
    this.root = root;
    root.textContent = "";
    var id = "rope-your-config";
    this.pick = el("select", { id: id + "-pick" });
    var names = DATA.FIXTURES.map(function (m) { return m.name; });
    names.forEach(function (name) {
      this.pick.appendChild(el("option", { value: name, text: name }));
    }, this);
    this.pick.appendChild(el("option", { value: "", text: OWN }));
    this.layer = el("select", { id: id + "-layer" });
    this.layerRow = el("p", { className: "ryc-row", hidden: "" }, [
      el("label", { for: id + "-layer", text: "Layer type " }), this.layer,
    ]);
    this.box = el("textarea", {
      id: id + "-box", rows: "12", spellcheck: "false", autocomplete: "off",
      "aria-describedby": id + "-msg",
    });
    this.msg = el("p", { className: "ryc-msg", id: id + "-msg", role: "status", "aria-live": "polite" });
    this.source = el("p", { className: "ryc-source" });
    this.summary = el("table", { className: "ryc-grid-table ryc-summary" });
    this.plot = el("div", { className: "ryc-plot" });
    this.tableBox = el("div", { className: "ryc-table ryc-pairs", tabindex: "0", role: "region",
      "aria-label": "frequency of each pair" });
    this.circuitOut = el("div", { className: "ryc-circuit", "aria-live": "polite" });
    root.appendChild(el("p", { className: "ryc-row" }, [
      el("label", { for: id + "-pick", text: "Released configuration " }), this.pick,
    ]));
    root.appendChild(el("p", {}, [el("label", { for: id + "-box", text: "config.json (or its RoPE fields)" })]));
    root.appendChild(this.box);
    root.appendChild(this.layerRow);
    root.appendChild(this.msg);
    root.appendChild(refusals());
    root.appendChild(this.source);
    root.appendChild(this.summary);
    root.appendChild(this.plot);
    root.appendChild(this.tableBox);
    root.appendChild(el("h2", { className: "ryc-heading", text: "This recipe on the circuit" }));
    root.appendChild(this.circuitOut);
    this.result = null;
    this.circuit = null;
    this.timer = null;
    this.runs = 0;
    this.updates = 0; // how many times the box was read (the tests wait on it)
    this.bind();
    this.choose(names[0]);
  }

  /** What the package refuses although transformers accepts it, and why (hf.REFUSED). */
  function refusals() {
    var list = el("ul");
    Object.keys(DATA.REFUSED).forEach(function (key) {
      list.appendChild(el("li", {}, [el("strong", { text: key + ": " }), DATA.REFUSED[key]]));
    });
    return el("details", { className: "ryc-refused" }, [
      el("summary", { text: "What transformers accepts and this page refuses" }), list,
    ]);
  }

  Page.prototype.bind = function () {
    var self = this;
    this.pick.addEventListener("change", function () {
      if (self.pick.value) self.choose(self.pick.value);
    });
    this.box.addEventListener("input", function () {
      self.pick.value = "";
      self.schedule();
    });
    this.layer.addEventListener("change", function () {
      self.schedule();
    });
    if (window.ResizeObserver) {
      var width = 0;
      this.resizer = new ResizeObserver(function () {
        var w = self.plot.clientWidth;
        if (w === width || !self.result) return;
        width = w;
        self.drawPlot(self.result);
      });
      this.resizer.observe(this.plot);
    }
  };

  function fixtureNamed(name) {
    for (var k = 0; k < DATA.FIXTURES.length; k++) if (DATA.FIXTURES[k].name === name) return DATA.FIXTURES[k];
    return null;
  }

  Page.prototype.choose = function (name) {
    this.pick.value = name;
    var fixture = fixtureNamed(name);
    this.box.value = JSON.stringify(fixture.config, null, 2);
    this.update();
  };

  Page.prototype.schedule = function () {
    var self = this;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(function () {
      self.update();
    }, 150);
  };

  /** Read the box; show what it gives, or the message naming what is wrong. */
  Page.prototype.update = function () {
    var config;
    this.updates += 1;
    this.circuit = null;
    try {
      config = JSON.parse(this.box.value);
    } catch (err) {
      return this.fail("The box does not hold JSON: " + err.message);
    }
    var types;
    try {
      types = HF.layerTypes(config);
    } catch (err) {
      return this.fail(err.message);
    }
    this.showLayers(types);
    var layerType = types.length ? this.layer.value : null;
    var hf;
    try {
      hf = HF.fromConfig(config, null, layerType);
    } catch (err) {
      return this.fail(err.message);
    }
    this.result = hf;
    this.config = config;
    this.layerType = layerType;
    this.msg.textContent = "";
    this.msg.classList.remove("ryc-error");
    this.showSource(fixtureNamed(this.pick.value));
    this.drawSummary(hf);
    this.drawPlot(hf);
    this.drawTable(hf);
    this.runCircuit();
  };

  /** Where the chosen configuration's values come from, as links. */
  Page.prototype.showSource = function (m) {
    this.source.textContent = "";
    if (!m) return;
    this.source.appendChild(document.createTextNode("Source: "));
    this.source.appendChild(el("a", { href: m.source, text: m.source.replace(/^https:\/\//, "") }));
    if (m.copy) {
      this.source.appendChild(document.createTextNode(", read from "));
      this.source.appendChild(el("a", { href: m.copy, text: "this copy" }));
    }
    if (m.note) this.source.appendChild(document.createTextNode(" (" + m.note + ")"));
    this.source.appendChild(document.createTextNode("."));
  };

  Page.prototype.fail = function (message) {
    this.result = null;
    var end = /[.)]$/.test(message) ? " " : ". ";
    this.msg.textContent = message + (this.config ? end + "Below: the last configuration that could be read." : "");
    this.msg.classList.add("ryc-error");
    return null;
  };

  Page.prototype.showLayers = function (types) {
    var current = this.layer.value;
    if (!types.length) {
      this.layerRow.hidden = true;
      this.layer.textContent = "";
      return;
    }
    var same = Array.from(this.layer.options).map(function (o) { return o.value; }).join() === types.join();
    if (!same) {
      this.layer.textContent = "";
      types.forEach(function (t) {
        this.layer.appendChild(el("option", { value: t, text: t }));
      }, this);
      this.layer.value = types.indexOf(current) >= 0 ? current : types[0];
    }
    this.layerRow.hidden = false;
  };

  Page.prototype.drawSummary = function (hf) {
    var n = hf.inv_freq.length;
    var turning = 0;
    var never = 0;
    for (var i = 0; i < n; i++) {
      if (hf.completes[i]) turning += 1;
      if (hf.inv_freq[i] === 0) never += 1;
    }
    var rows = [
      ["rope type", hf.rope_type + (hf.layer_type ? " (" + hf.layer_type + ")" : ""), "rope_type"],
      ["head dimension / rotary width", hf.head_dim + " / " + hf.rotary_dim, "head_dim"],
      ["base b", fmt(hf.base), "base"],
      ["attention factor", String(Number(hf.attention_factor.toPrecision(6))), "attention_factor"],
      ["original context L", hf.original_max_position === null ? "not used by this type" :
        hf.original_max_position.toLocaleString("en"), "original_max_position"],
      ["max_position_embeddings", hf.max_position.toLocaleString("en"), "max_position"],
      ["pairs that turn fully within " + hf.context.toLocaleString("en") + " positions",
        turning + " of " + n, "completes"],
      ["pairs that never turn", never ? never + " (frequency 0)" : "none", "never"],
    ];
    this.summary.textContent = "";
    var body = el("tbody");
    rows.forEach(function (r) {
      var td = el("td", { text: r[1] });
      td.setAttribute("data-key", r[2]);
      if (typeof hf[r[2]] === "number") td.setAttribute("data-value", String(hf[r[2]]));
      body.appendChild(el("tr", {}, [el("th", { scope: "row", text: r[0] }), td]));
    });
    this.summary.appendChild(body);
  };

  /** Wavelength of each pair against its index, log scale, with the context as a line. */
  Page.prototype.drawPlot = function (hf) {
    // drawn at the width it is shown at (between 300 and 640 user units), so that its text
    // keeps its size on a phone
    var W = Math.max(300, Math.min(640, this.plot.clientWidth || 640));
    var H = W < 480 ? 240 : 260;
    var left = 62;
    var right = 12;
    var top = 12;
    var bottom = 40;
    var n = hf.inv_freq.length;
    var finite = Array.from(hf.wavelengths).filter(isFinite);
    var lo = Math.log10(Math.min.apply(null, finite.concat([hf.context])));
    var hi = Math.log10(Math.max.apply(null, finite.concat([hf.context])));
    lo = Math.floor(lo);
    hi = Math.ceil(hi);
    if (hi === lo) hi += 1;
    var x = function (i) {
      return left + ((W - left - right) * (i + 0.5)) / n;
    };
    var y = function (v) {
      return top + ((H - top - bottom) * (hi - Math.log10(v))) / (hi - lo);
    };
    var g = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "Wavelength of each of the " + n + " pairs, in positions, on a logarithmic axis, " +
        "with the context of " + hf.context + " positions as a horizontal line" });
    var step = Math.max(1, Math.ceil((hi - lo) / 6));
    for (var e = lo; e <= hi; e += step) {
      g.appendChild(svg("line", { x1: left, x2: W - right, y1: y(Math.pow(10, e)), y2: y(Math.pow(10, e)),
        class: "ryc-grid" }));
      var t = svg("text", { x: left - 6, y: y(Math.pow(10, e)) + 4, class: "ryc-tick", "text-anchor": "end" });
      t.textContent = "10" + superscript(String(e));
      g.appendChild(t);
    }
    var yc = y(hf.context);
    g.appendChild(svg("line", { x1: left, x2: W - right, y1: yc, y2: yc, class: "ryc-context" }));
    var label = svg("text", { x: W - right - 4, y: yc - 5, class: "ryc-tick", "text-anchor": "end" });
    label.textContent = "context " + hf.context.toLocaleString("en");
    g.appendChild(label);
    var r = Math.max(1.5, Math.min(4, 200 / n));
    for (var i = 0; i < n; i++) {
      var v = hf.wavelengths[i];
      if (!isFinite(v)) {
        g.appendChild(svg("path", { d: "M" + (x(i) - r) + "," + (top + r) + "l" + r + "," + -r + "l" + r + "," + r,
          class: "ryc-never" }));
        continue;
      }
      g.appendChild(svg("circle", { cx: x(i), cy: y(v), r: r,
        class: hf.completes[i] ? "ryc-turns" : "ryc-slow" }));
    }
    var xl = svg("text", { x: (left + W - right) / 2, y: H - 8, class: "ryc-tick", "text-anchor": "middle" });
    xl.textContent = "pair i (0 fastest, " + (n - 1) + " slowest)";
    g.appendChild(xl);
    var yl = svg("text", { x: 14, y: (top + H - bottom) / 2, class: "ryc-tick", "text-anchor": "middle",
      transform: "rotate(-90 14 " + (top + H - bottom) / 2 + ")" });
    yl.textContent = "wavelength (positions)";
    g.appendChild(yl);
    this.plot.textContent = "";
    this.plot.appendChild(g);
    this.plot.appendChild(el("p", { className: "ryc-legend", text: "Filled: the pair turns fully within " +
      hf.context.toLocaleString("en") + " positions; hollow: it does not" +
      (finite.length < n ? "; chevrons at the top: frequency 0, it never turns." : ".") }));
  };

  Page.prototype.drawTable = function (hf) {
    var head = el("tr", {}, ["i", "\u03b8\u1d62 (rad/pos.)", "\u03bb\u1d62 (pos.)",
      "turns in " + hf.context.toLocaleString("en"), "full turn"].map(function (t) {
      return el("th", { scope: "col", text: t });
    }));
    var body = el("tbody");
    for (var i = 0; i < hf.inv_freq.length; i++) {
      var theta = hf.inv_freq[i];
      var lam = hf.wavelengths[i];
      var turns = (theta * (hf.context - 1)) / (2 * Math.PI);
      var cells = [
        [String(i), i], [fmt(theta), theta], [fmt(lam), lam], [fmt(turns), turns],
        [theta === 0 ? "never turns" : hf.completes[i] ? "yes" : "no", null],
      ];
      body.appendChild(el("tr", {}, cells.map(function (c, k) {
        var td = el("td", { text: c[0] });
        if (c[1] !== null) td.setAttribute("data-value", String(c[1]));
        if (k === 1) td.className = "ryc-theta";
        if (k === 2) td.className = "ryc-wavelength";
        return td;
      })));
    }
    this.tableBox.textContent = "";
    this.tableBox.appendChild(el("table", { className: "ryc-grid-table" }, [el("thead", {}, [head]), body]));
  };

  /** The recipe on the circuit: computed a moment later, so that the rest is shown first. */
  Page.prototype.runCircuit = function () {
    var self = this;
    var config = this.config;
    var layerType = this.layerType;
    var out = this.circuitOut;
    out.textContent = "";
    var recipe;
    try {
      recipe = HF.recipeOnCircuit(config, layerType);
    } catch (err) {
      out.appendChild(el("p", { className: "ryc-note", text: err.message }));
      return;
    }
    out.appendChild(el("p", { className: "ryc-note", text: "Running the circuit on " + DATA.CIRCUIT.prompts +
      " prompts at each of " + recipe.lengths.length + " lengths\u2026" }));
    var run = ++this.runs;
    window.setTimeout(function () {
      if (run !== self.runs) return;
      var c;
      try {
        c = HF.circuit(config, layerType);
      } catch (err) {
        out.textContent = "";
        out.appendChild(el("p", { className: "ryc-note", text: err.message }));
        return;
      }
      self.circuit = c;
      self.drawCircuit(c);
    }, 30);
  };

  Page.prototype.drawCircuit = function (c) {
    var C = DATA.CIRCUIT;
    var out = this.circuitOut;
    out.textContent = "";
    var s = c.recipe.factor;
    var V = window.RopePlaygroundData.VOCAB.length;
    var last = "\u03b8" + subscript(String(C.d / 2 - 1));
    var slowest = function (r) {
      return r.inv_freq[r.inv_freq.length - 1];
    };
    var reach = function (r) {
      var t = slowest(r);
      return t > 0 ? fmt(Math.PI / (V * t)) : "no limit (the pair does not turn)";
    };
    var first = c.rows[0];
    out.appendChild(el("p", { text: "Recipe " + c.recipe.config.rope_parameters.rope_type + ", s = " +
      Number(s.toPrecision(6)) + ", on the circuit's head (d = " + C.d + ", base " + fmt(C.base) +
      ", built for L = " + C.original_max_position.toLocaleString("en") + " positions). Its slowest pair " +
      last + " turns at " + fmt(slowest(first.plain)) + " radians a position unscaled and at " +
      fmt(slowest(first.scaled)) + " with the recipe" + (c.recipe.config.rope_parameters.rope_type === "dynamic" ?
        " (at the first length below; dynamic NTK changes it with the length)" : "") +
      ", so the induction head's predicted reach \u03c0/(" + V + " " + last + ") goes from " +
      reach(first.plain) + " to " + reach(first.scaled) + " tokens. Attention factor: " +
      String(Number(first.scaled.attention_factor.toPrecision(6))) + "." }));
    var head = ["A\u2026A", "plain: B", "plain: m\u22121", "recipe: B", "recipe: m\u22121"];
    var table = el("table", { className: "ryc-grid-table ryc-compare" }, [
      el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { scope: "col", text: h }); }))]),
      el("tbody", {}, c.rows.map(function (r) {
        return el("tr", {}, [
          el("th", { scope: "row", text: (r.T - 2).toLocaleString("en") }),
          el("td", { text: r.plain.right + " of " + C.prompts }),
          el("td", { text: r.plain.previous.toFixed(3) }),
          el("td", { text: r.scaled.right + " of " + C.prompts }),
          el("td", { text: r.scaled.previous.toFixed(3) }),
        ]);
      })),
    ]);
    out.appendChild(el("div", { className: "ryc-table ryc-short", tabindex: "0", role: "region",
      "aria-label": "the circuit with and without the recipe" }, [table]));
    out.appendChild(el("p", { className: "ryc-note", text: "A\u2026A: the distance between the two A's " +
      "of " + C.prompts + " prompts A B \u2026 A. Plain: the circuit without scaling; recipe: with it. " +
      "B: how many prompts end in B. m\u22121: layer 0's weight one step back, for the last query." }));
  };

  // Start-up: once per page, again after every instant navigation of mkdocs-material.
  var api = { current: null, Page: Page, starts: 0 };
  window.RopeConfigPage = api;

  function init() {
    var root = document.querySelector(".rope-your-config");
    if (api.current && api.current.root === root) return;
    if (api.current && api.current.resizer) api.current.resizer.disconnect();
    api.current = null;
    if (!root) return;
    try {
      api.current = new Page(root);
      api.starts += 1;
    } catch (err) {
      root.textContent = "The page could not start: " + err.message;
    }
  }

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
