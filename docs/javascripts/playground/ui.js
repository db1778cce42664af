/*
 * RoPE playground: the two-layer transformer of rope_explained.forward, recomputed in the
 * browser for the reader's own text.
 *
 * Plain JavaScript, no framework, nothing loaded from elsewhere. Two parts:
 *
 *   1. window.RopePlayground.forward(text, config): the forward pass of the Python package
 *      (rope_explained/model.py), written out for the few residual slots the hand-built heads
 *      touch. tests/test_playground.py checks it against the package to 1e-9.
 *   2. The page: controls, three canvas heatmaps and an SVG bar chart, built inside every
 *      element with class "rope-playground" and rebuilt after each instant navigation.
 *
 * Notation (the site's): T positions m, n = 0..T-1 (the start token <s> at 0), head
 * dimension d, frequencies theta_i = base^(-2i/d), letter angles a_t = idx(t) pi/13.
 */
(function () {
  "use strict";

  var VOCAB = "abcdefghijklmnopqrstuvwxyz";
  var V = VOCAB.length;
  var LETTER_STEP = Math.PI / 13; // a_t = idx(t) * pi / 13 (embedding.LETTER_STEP)
  var MAX_LETTERS = 256;
  var HEADS = ["induction", "rank1"];
  // The defaults of rope_explained.model.Config.
  var DEFAULTS = Object.freeze({
    d: 64, D: 256, base: 10000, alpha: 10, offset: 1, head: "induction",
    beta: 1000, gamma: 100, bos: true,
  });
  // A prompt on which the working head copies the right letter ("...he" -> "a", as in "heads"),
  // and one on which the document's rank-1 head visibly fails ("...efg" -> "h" expected).
  var OPENING = "inductionheadsinductionhe";
  var RANK1_FAILS = "abcdefghijabcdefg";
  // 256 random letters in which the last letter, "y", occurs once before, followed by "b"
  // (rope_explained.experiments.induction_prompts(1, 256, 256, seed=7)).
  var LONG = (
    "prwotufbhhvwamudtcluhigrgzllmonmzutrpizlfvevpybladmzluwuplmgmjgzacezrwfsjmapuqdngzwemxvrp" +
    "bslcgnsmpvrjqocbqjoifdjukjozjokplpnqxdolifbkuckzxfaqahmvcqndvvmxpwzohdoesxgnbejwzqoobjzkff" +
    "razvoltnlilsbasjuawdkzcqskbnkvribogrviwmnttwzdkxhaossuqdvkvuzavpmtxmcsffeewjy"
  );

  // ---------------------------------------------------------------------------------------
  // Model
  // ---------------------------------------------------------------------------------------

  function isFiniteNumber(x) {
    return typeof x === "number" && isFinite(x);
  }

  /** The settings of Config, with the same checks (a RangeError names value and range). */
  function makeConfig(overrides) {
    var cfg = {};
    var key;
    for (key in DEFAULTS) cfg[key] = DEFAULTS[key];
    if (overrides) {
      for (key in overrides) {
        if (!Object.prototype.hasOwnProperty.call(overrides, key)) continue;
        if (!Object.prototype.hasOwnProperty.call(DEFAULTS, key)) {
          throw new RangeError("unknown setting '" + key + "'; allowed: " +
            Object.keys(DEFAULTS).join(", "));
        }
        cfg[key] = overrides[key];
      }
    }
    if (!Number.isInteger(cfg.d) || cfg.d < 2 || cfg.d % 2) {
      throw new RangeError("d must be an even integer >= 2; got " + cfg.d);
    }
    if (!Number.isInteger(cfg.D) || cfg.D < 3 * cfg.d + 1) {
      throw new RangeError("D must be an integer in [" + (3 * cfg.d + 1) + ", inf]; got " + cfg.D);
    }
    if (!isFiniteNumber(cfg.base) || cfg.base <= 1) {
      throw new RangeError("base must be a finite number > 1; got " + cfg.base);
    }
    ["alpha", "beta", "gamma"].forEach(function (name) {
      if (!isFiniteNumber(cfg[name]) || cfg[name] <= 0) {
        throw new RangeError(name + " must be a finite number > 0; got " + cfg[name]);
      }
    });
    if (!Number.isInteger(cfg.offset) || cfg.offset < 0) {
      throw new RangeError("offset must be an integer in [0, inf]; got " + cfg.offset);
    }
    if (HEADS.indexOf(cfg.head) < 0) {
      throw new RangeError("unknown head '" + cfg.head + "'; allowed: " + HEADS.join(", "));
    }
    if (typeof cfg.bos !== "boolean") {
      throw new RangeError("bos must be true or false; got " + cfg.bos);
    }
    return cfg;
  }

  /**
   * Letter indices of text, as rope_explained.embedding.tokenize: A-Z folded to a-z, anything
   * else refused with a RangeError naming the character and its position (counted in
   * characters, as Python counts them).
   */
  function tokenize(text) {
    if (typeof text !== "string") throw new TypeError("text must be a string; got " + typeof text);
    if (text.length === 0) throw new RangeError("text is empty; give at least one letter a-z");
    var out = [];
    var pos = 0;
    for (var ch of text) {
      var code = ch.length === 1 ? ch.charCodeAt(0) : -1;
      if (code >= 65 && code <= 90) code += 32; // fold A-Z
      if (code < 97 || code > 122) {
        throw new RangeError("character '" + ch + "' at position " + pos +
          " is outside the vocabulary: only the letters a-z are allowed");
      }
      out.push(code - 97);
      pos += 1;
    }
    return out;
  }

  /** theta_i = base^(-2i/d), i = 0..d/2-1 (rope.frequencies). */
  function frequencies(d, base) {
    var theta = new Float64Array(d / 2);
    for (var i = 0; i < d / 2; i++) theta[i] = Math.pow(base, (-2 * i) / d);
    return theta;
  }

  /**
   * Causal softmax over each row (model.causal_softmax):
   * A[m, n] = exp(s[m, n] - max_{n' <= m} s[m, n']) / sum_{n' <= m} (...) for n <= m, else 0.
   */
  function causalSoftmax(S, T) {
    var A = new Float64Array(T * T);
    for (var m = 0; m < T; m++) {
      var row = m * T;
      var mx = -Infinity;
      var n;
      for (n = 0; n <= m; n++) if (S[row + n] > mx) mx = S[row + n];
      var sum = 0;
      for (n = 0; n <= m; n++) {
        var e = Math.exp(S[row + n] - mx);
        A[row + n] = e;
        sum += e;
      }
      for (n = 0; n <= m; n++) A[row + n] /= sum;
    }
    return A;
  }

  /**
   * The forward pass of rope_explained.model.forward(text, **config).
   *
   * The heads write and read only a few coordinates of the residual stream, so each quantity
   * is computed from those coordinates alone; the results equal the package's dense products
   * up to rounding (checked to 1e-9 by tests/test_playground.py).
   *
   * Returns {config, tokens, T, theta, scores0, A0, k1, q1, scores1, A1, logits, probs,
   * prediction}; matrices are Float64Array in row-major order (T*T, T*2, T*26).
   */
  function forward(text, config) {
    var cfg = makeConfig(config);
    var letters = tokenize(text);
    var bos = cfg.bos ? 1 : 0;
    var T = letters.length + bos;
    var half = cfg.d / 2;
    var theta = frequencies(cfg.d, cfg.base);
    var m, n, i;

    // Tokens and the embedding read through the plane reader P:
    // p_n = P E[t_n] = (cos a_t, sin a_t) for a letter, (0, 0) for <s> (zero embedding).
    var tokens = new Array(T);
    var px = new Float64Array(T);
    var py = new Float64Array(T);
    if (bos) tokens[0] = "<s>";
    for (m = bos; m < T; m++) {
      var idx = letters[m - bos];
      tokens[m] = VOCAB[idx];
      px[m] = Math.cos(idx * LETTER_STEP);
      py[m] = Math.sin(idx * LETTER_STEP);
    }

    // Layer 0, previous-token head. k_n = R_n c and q_m = alpha R_{m-offset} c, so
    //   q_m^T k_n = alpha c^T R_{n-m+offset} c = alpha sum_i cos((n - m + offset) theta_i)
    // depends on n - m only: 2T-1 distinct values, O(T d) instead of O(T^2 d).
    var diag = new Float64Array(2 * T - 1); // diag[n - m + T - 1]
    for (var delta = -(T - 1); delta <= T - 1; delta++) {
      var u = delta + cfg.offset;
      var s = 0;
      for (i = 0; i < half; i++) s += Math.cos(u * theta[i]);
      diag[delta + T - 1] = cfg.alpha * s;
    }
    var scores0 = new Float64Array(T * T); // unmasked, as Trace.scores0
    for (m = 0; m < T; m++) {
      var off = T - 1 - m;
      for (n = 0; n < T; n++) scores0[m * T + n] = diag[n + off];
    }
    var A0 = causalSoftmax(scores0, T);

    // Layer-0 output o_m = sum_n A0[m, n] V h_n lands in the "prev" slot; layer 1 reads it
    // only through P: P h1[prev]_n = sum_j A0[n, j] p_j.
    var prevx = new Float64Array(T);
    var prevy = new Float64Array(T);
    for (n = 0; n < T; n++) {
      var sx = 0;
      var sy = 0;
      for (var j = 0; j <= n; j++) {
        var a = A0[n * T + j];
        sx += a * px[j];
        sy += a * py[j];
      }
      prevx[n] = sx;
      prevy[n] = sy;
    }

    // Layer 1 lives in the slowest RoPE pair (coordinates d-2, d-1), angle m * theta_{d/2-1}.
    //   working head: q_pre = beta P h[tok]     = beta (cos a_m, sin a_m),
    //                 k_pre = P h[prev]         = sum_j A0[n, j] p_j;
    //   rank-1 head:  q_pre = beta (v_q^T h, 0) = beta (cos a_m, 0),
    //                 k_pre = (v_k^T h, 0)      = (sum_j A0[n, j] cos a_j, 0).
    // Then q_m = R_m q_pre, k_n = R_n k_pre and scores1[m, n] = q_m . k_n (a 2-D dot product).
    var slow = theta[half - 1];
    var rank1 = cfg.head === "rank1";
    var q1 = new Float64Array(2 * T);
    var k1 = new Float64Array(2 * T);
    for (m = 0; m < T; m++) {
      var ang = m * slow;
      var c = Math.cos(ang);
      var sn = Math.sin(ang);
      var qa = cfg.beta * px[m];
      var qb = rank1 ? 0 : cfg.beta * py[m];
      var ka = prevx[m];
      var kb = rank1 ? 0 : prevy[m];
      q1[2 * m] = qa * c - qb * sn;
      q1[2 * m + 1] = qa * sn + qb * c;
      k1[2 * m] = ka * c - kb * sn;
      k1[2 * m + 1] = ka * sn + kb * c;
    }
    var scores1 = new Float64Array(T * T);
    for (m = 0; m < T; m++) {
      var qx = q1[2 * m];
      var qy = q1[2 * m + 1];
      for (n = 0; n < T; n++) scores1[m * T + n] = qx * k1[2 * n] + qy * k1[2 * n + 1];
    }
    var A1 = causalSoftmax(scores1, T);

    // Layer-1 output copies E[t_n] into the "out" slot; the readout
    // logits_v = gamma (cos a_v, sin a_v) . P h2[out] = gamma (cos a_v, sin a_v) . sum_n A1[m, n] p_n
    // (b_out = 0), and probs = softmax(logits) per row.
    var cosv = new Float64Array(V);
    var sinv = new Float64Array(V);
    for (var v = 0; v < V; v++) {
      cosv[v] = Math.cos(v * LETTER_STEP);
      sinv[v] = Math.sin(v * LETTER_STEP);
    }
    var logits = new Float64Array(T * V);
    var probs = new Float64Array(T * V);
    for (m = 0; m < T; m++) {
      var X = 0;
      var Y = 0;
      for (n = 0; n <= m; n++) {
        var w = A1[m * T + n];
        X += w * px[n];
        Y += w * py[n];
      }
      var mx = -Infinity;
      for (v = 0; v < V; v++) {
        var l = cfg.gamma * (cosv[v] * X + sinv[v] * Y);
        logits[m * V + v] = l;
        if (l > mx) mx = l;
      }
      var sum = 0;
      for (v = 0; v < V; v++) {
        var e = Math.exp(logits[m * V + v] - mx);
        probs[m * V + v] = e;
        sum += e;
      }
      for (v = 0; v < V; v++) probs[m * V + v] /= sum;
    }

    // Trace.prediction: argmax of the last row (the first maximum, as numpy.argmax).
    var best = 0;
    var last = (T - 1) * V;
    for (v = 1; v < V; v++) if (probs[last + v] > probs[last + best]) best = v;

    return {
      config: cfg, tokens: tokens, T: T, theta: theta,
      scores0: scores0, A0: A0, q1: q1, k1: k1, scores1: scores1, A1: A1,
      logits: logits, probs: probs, prediction: VOCAB[best], predictionIndex: best,
    };
  }

  /**
   * What the reader typed, checked for the page: {ok, text, message, note}. Upper case is
   * folded as tokenize does (and said so in a note); anything else is refused with a message.
   */
  function checkText(raw) {
    var chars = Array.from(raw);
    if (chars.length === 0) {
      return { ok: false, message: "Type at least one letter a\u2013z." };
    }
    var bad = [];
    var upper = false;
    for (var i = 0; i < chars.length; i++) {
      var ch = chars[i];
      if (ch >= "A" && ch <= "Z" && ch.length === 1) upper = true;
      else if (!(ch >= "a" && ch <= "z" && ch.length === 1)) bad.push(i);
    }
    if (bad.length) {
      var first = chars[bad[0]];
      var shown = /\s/.test(first) ? "a space" : "\u201c" + first + "\u201d";
      if (first === "\t" || first === "\n") shown = "a tab or line break";
      return {
        ok: false,
        message: "Only the letters a\u2013z can be read: " + shown + " (character " +
          (bad[0] + 1) + ")" + (bad.length > 1 ? " and " + (bad.length - 1) + " more" : "") +
          " cannot. The panels still show the last valid text.",
      };
    }
    if (chars.length > MAX_LETTERS) {
      return {
        ok: false,
        message: "That is " + chars.length + " letters; the playground takes at most " +
          MAX_LETTERS + ". The panels still show the last valid text.",
      };
    }
    return {
      ok: true,
      text: raw.toLowerCase(),
      note: upper ? "Upper-case letters are read as lower case, as the package\u2019s tokenize does." : "",
    };
  }

  /** The letter a copying rule predicts: the one after the latest earlier copy of the last letter. */
  function copiedLetter(text) {
    var last = text[text.length - 1];
    var j = text.lastIndexOf(last, text.length - 2);
    return j >= 0 ? text[j + 1] : null;
  }

  // ---------------------------------------------------------------------------------------
  // Colour maps: the 256-entry tables of matplotlib's viridis and RdBu_r (bytes=True), indexed
  // as matplotlib does: i = min(255, floor(256 x)) for x in [0, 1].
  // ---------------------------------------------------------------------------------------

  var LUT_HEX = {
    viridis: "44015444025544035745055845065a45085b46095c460b5e460c5f460e61470f6247116347126547146647156747166947186a48196b481a6c481c6e481d6f481e70482071482172482273482374472575472676472777472878472a79472b7a472c7b462d7c462f7c46307d46317e45327f45347f453580453681443781443982433a83433b83433c84423d84423e854240854141864142864043874044873f45873f47883e48883e49893d4a893d4b893d4c893c4d8a3c4e8a3b508a3b518a3a528b3a538b39548b39558b38568b38578c37588c37598c365a8c365b8c355c8c355d8c345e8d345f8d33608d33618d32628d32638d31648d31658d31668d30678d30688d2f698d2f6a8d2e6b8e2e6c8e2e6d8e2d6e8e2d6f8e2c708e2c718e2c728e2b738e2b748e2a758e2a768e2a778e29788e29798e287a8e287a8e287b8e277c8e277d8e277e8e267f8e26808e26818e25828e25838d24848d24858d24868d23878d23888d23898d22898d228a8d228b8d218c8d218d8c218e8c208f8c20908c20918c1f928c1f938b1f948b1f958b1f968b1e978a1e988a1e998a1e998a1e9a891e9b891e9c891e9d881e9e881e9f881ea0871fa1871fa2861fa38620a48520a58521a68521a78422a78423a88323a98224aa8225ab8126ac8127ad8028ae7f29af7f2ab07e2bb17d2cb17d2eb27c2fb37b30b47a32b57a33b67935b77836b87738b97639b9763bba753dbb743ebc7340bd7242be7144be7045bf6f47c06e49c16d4bc26c4dc26b4fc36951c46853c56755c66657c66559c7645bc8625ec96160c96062ca5f64cb5d67cc5c69cc5b6bcd596dce5870ce5672cf5574d05477d05279d1517cd24f7ed24e81d34c83d34b86d44988d5478bd5468dd64490d64392d74195d73f97d83e9ad83c9dd93a9fd938a2da37a5da35a7db33aadb32addc30afdc2eb2dd2cb5dd2bb7dd29bade27bdde26bfdf24c2df22c5df21c7e01fcae01ecde01dcfe11cd2e11bd4e11ad7e219dae218dce218dfe318e1e318e4e318e7e419e9e419ece41aeee51bf1e51cf3e51ef6e61ff8e621fae622fde724",
    RdBu_r: "05306106326307346608366909386c0a3a6f0b3c720c3e750d40780e437b0f457e114781124984134b87144d8a154f8d1651901754931856951958981a5a9b1c5c9e1d5ea11e60a41f62a72064aa2166ac2368ad246aae256caf276db0286fb02971b12b73b22c75b32d76b42f78b5307ab6317cb7337db8347fb93581b93783ba3884bb3986bc3b88bd3c8abe3d8bbf3f8dc0408fc14191c24393c34694c44996c54c98c64f9ac7529cc8559ec958a0ca5ba2cb5ea4cc61a6cd65a8ce68aacf6bacd06eaed171b0d274b2d377b4d57ab6d67db8d780bad884bcd987beda8ac0db8dc2dc90c4dd93c5de95c6df98c8df9ac9e09dcae19fcbe1a2cde2a4cee3a7cfe4a9d0e4abd2e5aed3e6b0d4e6b3d5e7b5d7e8b8d8e8bad9e9bddaeabfdcebc2ddebc4deecc7dfedc9e1edcce2eecee3efd1e5f0d2e5f0d3e6f0d5e7f0d6e7f1d8e8f1d9e9f1dbe9f1dceaf2deebf2dfecf2e1ecf3e2edf3e4eef3e5eef3e7eff4e8f0f4eaf1f4ebf1f4edf2f5eef3f5f0f3f5f1f4f6f3f5f6f4f5f6f6f6f6f7f6f6f7f5f4f7f4f2f7f3f0f8f2eef8f0ecf8efeaf8eee8f9ede7f9ece5f9ebe3f9eae1f9e9dffae8ddfae7dbfae5d9fae4d7fbe3d6fbe2d4fbe1d2fbe0d0fcdfcefcdeccfcddcafcdcc8fddbc7fcd8c4fcd6c1fbd4befbd2bcfbd0b9faceb6faccb4facab1f9c7aef9c5abf9c3a9f8c1a6f8bfa3f8bda1f7bb9ef7b99bf7b799f6b496f6b293f5b090f5ae8ef5ac8bf4aa88f4a886f4a683f3a380f2a07ef19e7cef9b7aee9878ed9676ec9374eb9072ea8e70e88b6ee7886ce6856ae58368e48065e27d63e17b61e0785fdf755dde725bdd7059db6d57da6a55d96853d86551d7624fd6604dd45d4bd35a4ad15749d05447ce5146cd4f45cc4c43ca4942c94641c7433fc6403ec53e3cc33b3bc2383ac03538bf3237be3036bc2d34bb2a33b92732b82431b6212fb51f2eb41c2db2192bb0172aad162aaa1529a71429a41328a112289e11279b1027991027960f26930e26900d258d0c258a0b24870a248409238108237e07227b06227805217504217203206f02206c011f69001f67001f",
  };
  var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([0x01020304]).buffer)[0] === 0x04;

  function makeLut(hex) {
    var rgb = new Uint8Array(768);
    for (var i = 0; i < 768; i++) rgb[i] = parseInt(hex.substr(2 * i, 2), 16);
    var packed = new Uint32Array(256);
    for (i = 0; i < 256; i++) packed[i] = pack(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], 255);
    return { rgb: rgb, packed: packed };
  }

  function pack(r, g, b, a) {
    return LITTLE_ENDIAN ?
      ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 :
      ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
  }

  var LUTS = { viridis: makeLut(LUT_HEX.viridis), RdBu_r: makeLut(LUT_HEX.RdBu_r) };

  function lutIndex(x) {
    if (!(x > 0)) return 0;
    var i = Math.floor(x * 256);
    return i > 255 ? 255 : i;
  }

  function cssColor(lut, i) {
    return "rgb(" + lut.rgb[3 * i] + "," + lut.rgb[3 * i + 1] + "," + lut.rgb[3 * i + 2] + ")";
  }

  function gradient(lut) {
    var stops = [];
    for (var k = 0; k <= 16; k++) {
      var i = Math.min(255, Math.round((k * 255) / 16));
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
    var barLut = LUTS[opts.map];
    var lo = el("span", { text: opts.map === "RdBu_r" ? "\u2212max" : "0" });
    this.hiLabel = el("span", { text: "1" });
    this.loLabel = lo;
    var bar = el("div", { className: "rp-cbar-bar" });
    bar.style.background = gradient(barLut);
    this.node = el("div", { className: "rp-panel", "data-panel": opts.name }, [
      el("p", { className: "rp-panel-title", text: opts.title }),
      el("p", { className: "rp-panel-sub", text: opts.subtitle }),
      el("div", { className: "rp-plot" }, [this.canvas, this.tip]),
      el("div", { className: "rp-cbar" }, [lo, bar, this.hiLabel]),
      this.readout,
    ]);
    this.bind();
  }

  /** Fill the T x T image from the trace: values, colour map and causal mask. */
  Heatmap.prototype.setData = function (trace) {
    var T = trace.T;
    var o = this.opts;
    var values = trace[o.name];
    this.trace = trace;
    this.T = T;
    this.values = values;
    var lut = LUTS[o.map].packed;
    var span = 1;
    if (o.map === "RdBu_r") {
      span = 0;
      for (var k = 0; k < values.length; k++) {
        var ab = Math.abs(values[k]);
        if (ab > span) span = ab;
      }
      span = span || 1;
      this.loLabel.textContent = fmtLabel(-span);
      this.hiLabel.textContent = fmtLabel(span);
    }
    this.span = span;
    if (this.src.width !== T) {
      this.src.width = T;
      this.src.height = T;
      this.image = null;
    }
    var ctx = this.src.getContext("2d");
    if (!this.image) this.image = ctx.createImageData(T, T);
    var px = new Uint32Array(this.image.data.buffer);
    var m, n, x;
    if (o.map === "RdBu_r") {
      // centred norm: x = 1/2 + s / (2 span), as style.centred_norm (TwoSlopeNorm at 0).
      // Cells the causal mask hides are drawn faded towards white.
      var faded = this.fadedLut || (this.fadedLut = fade(LUTS.RdBu_r.rgb, 0.3));
      for (m = 0; m < T; m++) {
        for (n = 0; n < T; n++) {
          x = 0.5 + values[m * T + n] / (2 * span);
          px[m * T + n] = (n <= m ? lut : faded)[lutIndex(x)];
        }
      }
    } else {
      for (m = 0; m < T; m++) {
        for (n = 0; n < T; n++) px[m * T + n] = n <= m ? lut[lutIndex(values[m * T + n])] : MASKED;
      }
    }
    ctx.putImageData(this.image, 0, 0);
    if (this.cursor && (this.cursor[0] >= T || this.cursor[1] >= T)) this.cursor = null;
    this.draw();
    if (this.cursor) this.showCell(this.cursor[0], this.cursor[1], this.keyboard);
  };

  function fade(rgb, keep) {
    var out = new Uint32Array(256);
    for (var i = 0; i < 256; i++) {
      var f = function (c) {
        return Math.round(255 - keep * (255 - c));
      };
      out[i] = pack(f(rgb[3 * i]), f(rgb[3 * i + 1]), f(rgb[3 * i + 2]), 255);
    }
    return out;
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
    var what = this.opts.symbol + " = " + fmtLabel(value);
    if (n > m) what += "  (masked: n > m)";
    return where + "\n" + what;
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
    if (keyboard) this.readout.textContent = text.replace("\n", ": ");
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
    this.input.value = OPENING;
    this.msg = el("p", { className: "rp-msg", id: id + "-msg", role: "status", "aria-live": "polite" });
    this.alpha = el("input", { type: "range", id: id + "-alpha", min: "-1", max: "3", step: "0.05", value: "1" });
    this.alphaOut = el("output", { for: id + "-alpha" });
    this.base = el("input", { type: "range", id: id + "-base", min: "1", max: "6", step: "0.05", value: "4" });
    this.baseOut = el("output", { for: id + "-base" });
    this.headWorking = el("input", { type: "radio", name: id + "-head", value: "induction" });
    this.headWorking.checked = true;
    this.headRank1 = el("input", { type: "radio", name: id + "-head", value: "rank1" });
    this.openBtn = el("button", { type: "button", className: "md-button", text: "Load the induction prompt" });
    this.failBtn = el("button", {
      type: "button", className: "md-button md-button--primary", text: "Load a prompt where rank-1 fails",
    });
    this.longBtn = el("button", { type: "button", className: "md-button", text: "Load 256 letters" });

    var controls = el("div", { className: "rp-controls" }, [
      el("div", { className: "rp-wide" }, [
        el("label", { className: "rp-label", for: id + "-text", text: "Text: lower-case letters a\u2013z, at most 256" }),
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
      el("fieldset", {}, [
        el("legend", { text: "Layer-1 head" }),
        el("label", {}, [this.headWorking, document.createTextNode(" working head (rank 2, slowest pair)")]),
        el("label", {}, [this.headRank1, document.createTextNode(" the document\u2019s rank-1 head")]),
      ]),
      el("div", { className: "rp-buttons rp-wide" }, [this.openBtn, this.failBtn, this.longBtn]),
    ]);

    this.prediction = el("p", { className: "rp-prediction", "aria-live": "polite" });
    this.timing = el("p", { className: "rp-timing" });
    this.heatmaps = {
      scores0: new Heatmap({
        name: "scores0", map: "RdBu_r", symbol: "q\u2098\u1d40k\u2099",
        title: "Layer 0: scores q\u2098\u1d40k\u2099",
        subtitle: "rows: query m, columns: key n; diverging map centred on 0; faded: hidden by the causal mask",
      }),
      A0: new Heatmap({
        name: "A0", map: "viridis", symbol: "A\u207d\u2070\u207e",
        title: "Layer 0: attention A\u207d\u2070\u207e = softmax",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
      }),
      A1: new Heatmap({
        name: "A1", map: "viridis", symbol: "A\u207d\u00b9\u207e",
        title: "Layer 1: attention A\u207d\u00b9\u207e",
        subtitle: "rows: query m, columns: key n; grey: masked (n > m)",
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

  /** The settings the controls show now. */
  Playground.prototype.readControls = function () {
    return {
      text: this.input.value,
      alpha: roundSig(Math.pow(10, Number(this.alpha.value))),
      base: roundSig(Math.pow(10, Number(this.base.value))),
      head: this.headRank1.checked ? "rank1" : "induction",
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
    var check = checkText(state.text);
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
    var text = this.validText || OPENING;
    var config = { alpha: state.alpha, base: state.base, head: state.head };
    var trace = forward(text, config);
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
    var copied = copiedLetter(text);
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
    (head === "rank1" ? this.headRank1 : this.headWorking).checked = true;
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
    this.headWorking.addEventListener("change", later);
    this.headRank1.addEventListener("change", later);
    this.openBtn.addEventListener("click", function () {
      self.load(OPENING, "induction");
    });
    this.failBtn.addEventListener("click", function () {
      self.load(RANK1_FAILS, "rank1");
    });
    this.longBtn.addEventListener("click", function () {
      self.load(LONG, "induction");
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

  var api = {
    forward: forward, tokenize: tokenize, makeConfig: makeConfig, checkText: checkText,
    frequencies: frequencies, copiedLetter: copiedLetter,
    DEFAULTS: DEFAULTS, OPENING: OPENING, RANK1_FAILS: RANK1_FAILS, LONG: LONG, MAX_LETTERS: MAX_LETTERS,
    LUTS: LUTS, current: null, Playground: Playground,
  };
  window.RopePlayground = api;

  function init() {
    var root = document.querySelector(".rope-playground");
    if (api.current && api.current.root === root) return;
    if (api.current) api.current.destroy();
    api.current = null;
    if (!root) return;
    try {
      api.current = new Playground(root);
    } catch (err) {
      root.textContent = "The playground could not start: " + err.message;
    }
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
