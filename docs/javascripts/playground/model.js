/*
 * RoPE playground, the model: the two-layer transformer of rope_explained.model.forward_tokens,
 * recomputed in the browser. No DOM: tokenize, the checks of Config, the frequencies (with the
 * context extensions of rope.scaled_frequencies and the ablations unrotated_fast,
 * unrotated_slow, layer1_rotary, rotary_pct), the causal softmax, the forward pass, the
 * prediction alone for long texts (predictLast, as model.predict_last), and the check of what
 * the reader typed.
 *
 * It computes each quantity from the few coordinates the hand-built heads use (layer 0 reads
 * the bias coordinate, layer 1 sits in the slowest pair, the readout reads the plane of the
 * letter angles, b_out = 0), as heads.py writes them; tests/test_playground.py holds it to the
 * package over every setting Config accepts (hypothesis), so a change of the heads that this
 * reading misses fails there. The one setting it does not model, weights_layout other than the
 * layout, it refuses by name; every other value outside Config's ranges too.
 *
 * It also runs any weights of the trained model's form (rope_explained.trained): forwardWeights
 * computes trained.forward densely, every product of the equations, for the trained seeds (their
 * weights files, weights-seed-N.js, add them to window.RopePlaygroundWeights) or the hand-built
 * weights written in that form (trained.hand_built). Both paths take zero_pairs, trained.forward's
 * pairs zeroed in one layer's queries and keys.
 *
 * Reads window.RopePlaygroundData (data.js, written from the package while the site builds):
 * the defaults and upper limits of Config, YaRN's and Llama 3.1's constants, the vocabulary and
 * its letter step, the head names, the scaling methods and the input limits come from there,
 * never from this file. Defines window.RopePlaygroundModel.
 *
 * Notation (the site's): T positions m, n = 0..T-1 (the start token <s> at 0), head
 * dimension d, rotary width r = int(d * rotary_pct), frequencies theta_i = base^(-2i/r), letter
 * angles a_t = idx(t) * LETTER_STEP.
 */
(function () {
  "use strict";

  var DATA = window.RopePlaygroundData;
  if (!DATA) throw new Error("RopePlayground: load data.js before model.js");
  var VOCAB = DATA.VOCAB;
  var V = VOCAB.length;
  var LETTER_STEP = DATA.LETTER_STEP;
  var DEFAULTS = DATA.DEFAULTS;
  var HEADS = DATA.HEADS;
  var FIRST = VOCAB[0];
  var LAST = VOCAB[V - 1];
  var INDEX = Object.create(null); // letter -> idx(t)
  VOCAB.forEach(function (t, i) {
    INDEX[t] = i;
  });

  var MAX = DATA.CONFIG_MAX; // the largest value of each numeric setting (model.CONFIG_MAX)

  function isFiniteNumber(x) {
    return typeof x === "number" && isFinite(x);
  }

  function isInteger(x) {
    return typeof x === "number" && Number.isInteger(x);
  }

  /** A RangeError naming the setting, its allowed range and the value it got. */
  function refuse(name, allowed, value) {
    return new RangeError(name + " must be " + allowed + "; got " + String(value));
  }

  function checkInteger(cfg, name, lo, hi, why) {
    var x = cfg[name];
    if (!isInteger(x) || x < lo || x > hi) {
      throw refuse(name, "an integer in [" + lo + ", " + hi + "]" + (why || ""), x);
    }
  }

  function checkNumber(cfg, name, lo, hi, loOpen, why) {
    var x = cfg[name];
    if (!isFiniteNumber(x) || (loOpen ? x <= lo : x < lo) || x > hi) {
      throw refuse(name, "a finite number in " + (loOpen ? "(" : "[") + lo + ", " + hi + "]" + (why || ""), x);
    }
  }

  function checkChoice(cfg, name, allowed) {
    if (allowed.indexOf(cfg[name]) < 0) throw refuse(name, "one of " + allowed.join(", "), cfg[name]);
  }

  function checkBoolean(cfg, name) {
    if (typeof cfg[name] !== "boolean") throw refuse(name, "true or false", cfg[name]);
  }

  /**
   * The settings of Config (rope_explained.model.Config), each checked against the same range
   * (from DATA.CONFIG_MAX and Config's comments), or a RangeError naming the setting. One setting
   * Config takes is refused here because this file does not model it: weights_layout other than
   * null or the layout (weights run under the other pairing, whose scores this file's reading of
   * the heads does not cover). Adds r, the rotary width int(d * rotary_pct), as a property that
   * is not enumerated.
   */
  function makeConfig(overrides) {
    var cfg = {};
    var key;
    for (key in DEFAULTS) cfg[key] = DEFAULTS[key];
    if (overrides) {
      for (key in overrides) {
        if (!Object.prototype.hasOwnProperty.call(overrides, key) || key === "zero_pairs") continue;
        if (!Object.prototype.hasOwnProperty.call(DEFAULTS, key)) {
          throw new RangeError("unknown setting '" + key + "'; allowed: " +
            Object.keys(DEFAULTS).join(", "));
        }
        cfg[key] = overrides[key];
      }
    }
    if (!isInteger(cfg.d) || cfg.d < 2 || cfg.d > MAX.d || cfg.d % 2) {
      throw refuse("d", "an even integer in [2, " + MAX.d + "]", cfg.d);
    }
    checkInteger(cfg, "D", 3 * cfg.d + 1, MAX.D);
    checkNumber(cfg, "base", 1, MAX.base, true);
    ["alpha", "beta", "gamma"].forEach(function (name) {
      checkNumber(cfg, name, 0, MAX[name], true);
    });
    checkInteger(cfg, "offset", 0, MAX.offset);
    checkChoice(cfg, "head", HEADS);
    checkBoolean(cfg, "bos");
    checkChoice(cfg, "layout", DATA.LAYOUTS);
    if (cfg.weights_layout !== null) {
      checkChoice(cfg, "weights_layout", DATA.LAYOUTS);
      if (cfg.weights_layout !== cfg.layout) {
        throw new RangeError("weights_layout " + JSON.stringify(cfg.weights_layout) + " with layout " +
          JSON.stringify(cfg.layout) + " is not modelled here: the playground runs the weights in " +
          "the layout they were written for (weights_layout null or equal to layout)");
      }
    }
    checkNumber(cfg, "rotary_pct", 0, 1, true);
    var r = Math.trunc(cfg.d * cfg.rotary_pct);
    if (r < 2 || r % 2) {
      throw refuse("rotary_pct", "such that int(d * rotary_pct) is an even number >= 2 (d = " +
        cfg.d + ")", cfg.rotary_pct);
    }
    checkInteger(cfg, "unrotated_fast", 0, r / 2);
    checkInteger(cfg, "unrotated_slow", 0, r / 2);
    if (cfg.unrotated_fast + cfg.unrotated_slow > r / 2) {
      throw refuse("unrotated_fast + unrotated_slow", "at most the " + r / 2 + " rotary pairs",
        cfg.unrotated_fast + cfg.unrotated_slow);
    }
    checkBoolean(cfg, "layer1_rotary");
    if (cfg.scaling === null) {
      ["factor", "original_max_position"].forEach(function (name) {
        if (cfg[name] !== null) {
          throw new RangeError(name + " has an effect only with a scaling; got scaling=null");
        }
      });
    } else {
      if (DATA.SCALING_METHODS.indexOf(cfg.scaling) < 0) {
        throw refuse("scaling", "null or one of " + DATA.SCALING_METHODS.join(", "), cfg.scaling);
      }
      var scaling = " (scaling " + JSON.stringify(cfg.scaling) + " needs it)";
      checkNumber(cfg, "factor", 1, MAX.factor, false, scaling);
      checkInteger(cfg, "original_max_position", 1, MAX.original_max_position, scaling);
      if ((cfg.scaling === "ntk" || cfg.scaling === "dynamic-ntk") && r < 4) {
        throw refuse("scaling", "other than '" + cfg.scaling + "' with fewer than 4 rotary " +
          "coordinates (it scales the base by a power r/(r-2))", cfg.scaling);
      }
    }
    // zero_pairs is an argument of rope_explained.trained.forward, whose hand-built weights
    // (trained.hand_built) take the settings that make the weights and run them with the
    // defaults of every other setting: so zero_pairs comes with those defaults only.
    var zero = overrides && overrides.zero_pairs != null ? overrides.zero_pairs : null;
    if (zero !== null) {
      RUN_SETTINGS.forEach(function (name) {
        if (cfg[name] !== DEFAULTS[name]) {
          throw new RangeError("zero_pairs with " + name + " " + JSON.stringify(cfg[name]) + " is not " +
            "modelled here: the package zeroes pairs of the hand-built weights (trained.hand_built) run " +
            "with " + name + " " + JSON.stringify(DEFAULTS[name]));
        }
      });
    }
    var keep = keptPairs(zero, cfg.d / 2);
    // r, keep0 and keep1 ride along unlisted, so that a config given back (trace.config) reads
    // as the settings
    Object.defineProperty(cfg, "r", { value: r, enumerable: false });
    Object.defineProperty(cfg, "keep0", { value: keep.keep0, enumerable: false });
    Object.defineProperty(cfg, "keep1", { value: keep.keep1, enumerable: false });
    Object.defineProperty(cfg, "zero_pairs", { value: keep.zero_pairs, enumerable: false });
    return cfg;
  }

  /** The settings of Config that say how the hand-built weights are run rather than what they
   * are: trained.hand_built refuses them, so zero_pairs is modelled at their defaults only. */
  var RUN_SETTINGS = ["bos", "layout", "weights_layout", "rotary_pct", "unrotated_fast", "unrotated_slow",
    "layer1_rotary"];

  /**
   * zero_pairs as rope_explained.trained.forward takes it: an object mapping a layer (0 or 1) to
   * the pair indices (integers in [0, pairs - 1], 0 the fastest) whose coordinates are zeroed in
   * that layer's queries and keys; null or undefined zeroes none. Returns {keep0, keep1}, one
   * entry per pair (1 kept, 0 zeroed), and zero_pairs as {0: [...], 1: [...]} (sorted, once
   * each), or throws an Error naming the argument and the range.
   */
  function keptPairs(zero, pairs) {
    var keep = [new Float64Array(pairs).fill(1), new Float64Array(pairs).fill(1)];
    var out = { 0: [], 1: [] };
    if (zero != null) {
      if (typeof zero !== "object" || Array.isArray(zero)) {
        throw new TypeError("zero_pairs must map a layer (0 or 1) to the pair indices to zero; got " +
          JSON.stringify(zero));
      }
      Object.keys(zero).forEach(function (layer) {
        if (layer !== "0" && layer !== "1") {
          throw refuse("zero_pairs' layer", "an integer in [0, 1]", layer);
        }
        var indices = zero[layer];
        var allowed = "pair indices in [0, " + (pairs - 1) + "]";
        if (!Array.isArray(indices)) {
          throw new TypeError("zero_pairs[" + layer + "] must be an array of " + allowed + "; got " +
            JSON.stringify(indices));
        }
        indices.forEach(function (i) {
          if (!isInteger(i) || i < 0 || i >= pairs) {
            throw refuse("zero_pairs[" + layer + "]", "an array of " + allowed, JSON.stringify(i));
          }
          keep[layer][i] = 0;
        });
      });
      for (var layer = 0; layer < 2; layer++) {
        for (var i = 0; i < pairs; i++) if (!keep[layer][i]) out[layer].push(i);
      }
    }
    return { keep0: keep[0], keep1: keep[1], zero_pairs: out };
  }

  // Characters shown only by their code point: control, format, surrogate, private-use,
  // unassigned (C), combining marks (M) and separators (Z), as embedding._describe_char.
  var INVISIBLE = /^[\p{C}\p{M}\p{Z}]$/u;

  /**
   * One character (one code point) for a message: "U+XXXX", then, if it is visible, the
   * character itself between Unicode isolates (U+2068 ... U+2069), so that it cannot reorder
   * the text around it (a right-to-left override, say).
   */
  function describeCharacter(ch) {
    var code = "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    return INVISIBLE.test(ch) ? code : code + " (\u2068" + ch + "\u2069)";
  }

  /** The index of a vocabulary letter, folding A-Z to a-z when fold is true; -1 otherwise. */
  function letterIndex(ch, fold) {
    var t = fold && ch.length === 1 && ch >= "A" && ch <= "Z" ? ch.toLowerCase() : ch;
    return Object.prototype.hasOwnProperty.call(INDEX, t) ? INDEX[t] : -1;
  }

  /**
   * Letter indices of text, as rope_explained.embedding.tokenize: A-Z folded to a-z, anything
   * else refused with a RangeError naming the character (describeCharacter) and its position
   * (counted in code points from 0, as Python counts them).
   */
  function tokenize(text) {
    if (typeof text !== "string") throw new TypeError("text must be a string; got " + typeof text);
    if (text.length === 0) {
      throw new RangeError("text is empty; give at least one letter " + FIRST + "-" + LAST);
    }
    if (text.length > DATA.MODEL_MAX_LETTERS) {
      throw new RangeError("text has " + text.length + " characters; the model takes at most " +
        DATA.MODEL_MAX_LETTERS + " letters (MAX_LETTERS)");
    }
    var out = [];
    var pos = 0;
    for (var ch of text) {
      var idx = letterIndex(ch, true);
      if (idx < 0) {
        throw new RangeError("text: character " + describeCharacter(ch) + " at position " + pos +
          " is not a letter " + FIRST + "-" + LAST + " (outside the vocabulary)");
      }
      out.push(idx);
      pos += 1;
    }
    return out;
  }

  /** theta_i = base^(-2i/r), i = 0..r/2-1 (rope.frequencies of an r-wide rotary part). */
  function frequencies(r, base) {
    var theta = new Float64Array(r / 2);
    for (var i = 0; i < r / 2; i++) theta[i] = Math.pow(base, (-2 * i) / r);
    return theta;
  }

  /**
   * The frequencies the rotary part (r = int(d * rotary_pct) coordinates) turns by for a text
   * of T positions, and YaRN's attention factor (1 otherwise), as
   * rope_explained.model.rope_frequencies(config, T) computes them from rope.scaled_frequencies:
   *   linear:      theta_i / s
   *   ntk:         base' = base s^(r/(r-2))
   *   dynamic-ntk: base' = base (s T / L - (s - 1))^(r/(r-2)) when T > L, else no change
   *   yarn:        blend of theta_i and theta_i / s by the reference code's ramp over the pair
   *                index (yarnKeep); attention factor 1 + YARN.attention_slope ln s
   *   llama3:      theta_i kept below wavelength L / high, theta_i / s above L / low, smooth between
   * then the unrotated_fast fastest and unrotated_slow slowest pairs get frequency 0.
   * Returns {theta, attentionFactor}.
   */
  function ropeFrequencies(cfg, T) {
    var out = scaledFrequencies(cfg, T);
    var theta = out.theta;
    for (var i = 0; i < cfg.unrotated_fast; i++) theta[i] = 0;
    for (i = theta.length - cfg.unrotated_slow; i < theta.length; i++) theta[i] = 0;
    return out;
  }

  function scaledFrequencies(cfg, T) {
    var r = cfg.r;
    var s = cfg.factor;
    var L = cfg.original_max_position;
    var theta = frequencies(r, cfg.base);
    var i;
    switch (cfg.scaling) {
      case null:
        return { theta: theta, attentionFactor: 1 };
      case "linear":
        for (i = 0; i < r / 2; i++) theta[i] = theta[i] / s;
        return { theta: theta, attentionFactor: 1 };
      case "ntk":
        return { theta: frequencies(r, cfg.base * Math.pow(s, r / (r - 2))), attentionFactor: 1 };
      case "dynamic-ntk":
        if (T <= L) return { theta: theta, attentionFactor: 1 };
        return {
          theta: frequencies(r, cfg.base * Math.pow(s * T / L - (s - 1), r / (r - 2))),
          attentionFactor: 1,
        };
      case "yarn": {
        var keep = yarnKeep(r, cfg.base, L, DATA.YARN.beta_fast, DATA.YARN.beta_slow);
        for (i = 0; i < r / 2; i++) theta[i] = (theta[i] / s) * (1 - keep[i]) + theta[i] * keep[i];
        return { theta: theta, attentionFactor: DATA.YARN.attention_slope * Math.log(s) + 1 };
      }
      case "llama3": {
        var lo = DATA.LLAMA3.low_freq_factor;
        var hi = DATA.LLAMA3.high_freq_factor;
        for (i = 0; i < r / 2; i++) {
          var t = theta[i];
          var wavelen = (2 * Math.PI) / t;
          var mu = (L / wavelen - lo) / (hi - lo);
          var f = wavelen < L / hi ? t : (1 - mu) * t / s + mu * t;
          theta[i] = wavelen > L / lo ? t / s : f;
        }
        return { theta: theta, attentionFactor: 1 };
      }
    }
    throw new RangeError("unknown scaling '" + cfg.scaling + "'");
  }

  /**
   * YaRN's weight on each pair's own frequency (rope.yarn_keep, ramp="code"): 1 for the pairs
   * that turn more than betaFast times over L, 0 below betaSlow, linear in the pair index i
   * between the indices where the turn count r_i = L theta_i / 2 pi crosses the two.
   */
  function yarnKeep(r, base, L, betaFast, betaSlow) {
    var dim = function (rotations) {
      return (r * Math.log(L / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
    };
    var low = Math.max(Math.floor(dim(betaFast)), 0);
    var high = Math.min(Math.ceil(dim(betaSlow)), r - 1);
    if (low === high) high += DATA.YARN.min_ramp;
    var keep = new Float64Array(r / 2);
    for (var i = 0; i < r / 2; i++) {
      var x = (i - low) / (high - low);
      keep[i] = 1 - (x < 0 ? 0 : x > 1 ? 1 : x);
    }
    return keep;
  }

  // Tokens and the embedding read through the plane reader P:
  // p_n = P E[t_n] = (cos a_t, sin a_t) for a letter, (0, 0) for <s> (zero embedding).
  function readTokens(letters, bos, T) {
    var tokens = new Array(T);
    var px = new Float64Array(T);
    var py = new Float64Array(T);
    if (bos) tokens[0] = "<s>";
    for (var m = bos; m < T; m++) {
      var idx = letters[m - bos];
      tokens[m] = VOCAB[idx];
      px[m] = Math.cos(idx * LETTER_STEP);
      py[m] = Math.sin(idx * LETTER_STEP);
    }
    return { tokens: tokens, px: px, py: py };
  }

  /**
   * The layer-0 score for key n and query m, a function of n - m alone. Layer 0 reads only the
   * bias coordinate: k_n = a R'_n c and q_m = a R'_m alpha R_{-offset} c, with c = (1, 0, 1, 0,
   * ..., 1, 0) (heads.constant_key_vector), R' the rotation at the frequencies theta' the model
   * runs at, R_{-offset} built into W_q at the unscaled ones theta, a the attention factor. The
   * r rotary coordinates give one cosine per pair; the d - r that do not turn hold (d - r)/2
   * ones of c, each adding 1; a pair zeroed in layer 0 (cfg.keep0[i] = 0, zero_pairs) adds nothing:
   *   q_m^T k_n = a^2 alpha (sum_{i < r/2, kept} cos((n - m) theta'_i + offset theta_i) + (d - r)/2).
   * Returns a function of delta = n - m.
   */
  function layer0Score(cfg, rope) {
    var half = cfg.r / 2;
    var theta = rope.theta;
    var back = frequencies(cfg.r, cfg.base);
    for (var i = 0; i < half; i++) back[i] *= cfg.offset;
    var still = (cfg.d - cfg.r) / 2;
    var scale = rope.attentionFactor * rope.attentionFactor * cfg.alpha;
    var kept = [];
    for (var i = 0; i < half; i++) if (cfg.keep0[i]) kept.push(i);
    return function (delta) {
      var s = still;
      for (var j = 0; j < kept.length; j++) s += Math.cos(delta * theta[kept[j]] + back[kept[j]]);
      return scale * s;
    };
  }

  /**
   * The angle per position of layer 1's pair. Both layer-1 heads live in the slowest pair of the
   * head, coordinates (d-2, d-1) as written (heads.induction_weights); it turns at the slowest
   * rotary frequency when it is part of the rotary width (r = d), layer 1 runs with RoPE
   * (layer1_rotary) and that pair was not stopped (unrotated_slow, unrotated_fast): else 0.
   */
  function layer1Step(cfg, theta) {
    return cfg.r === cfg.d && cfg.layer1_rotary ? theta[cfg.r / 2 - 1] : 0;
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
   * prediction, predictionIndex}; matrices are Float64Array in row-major order (T*T, T*2, T*V).
   */
  function forward(text, config) {
    var cfg = makeConfig(config);
    var letters = tokenize(text);
    var bos = cfg.bos ? 1 : 0;
    var T = letters.length + bos;
    var rope = ropeFrequencies(cfg, T);
    var theta = rope.theta;
    var af = rope.attentionFactor;
    var m, n;

    var read = readTokens(letters, bos, T);
    var tokens = read.tokens, px = read.px, py = read.py;

    // Layer 0, previous-token head. k_n = R_n c and q_m = alpha R_{m-offset} c, so
    //   q_m^T k_n = alpha c^T R_{n-m+offset} c = alpha sum_i cos((n - m + offset) theta_i)
    // depends on n - m only (layer0Score, which also covers scaling): 2T-1 distinct values,
    // O(T d) instead of O(T^2 d).
    var score0 = layer0Score(cfg, rope);
    var diag = new Float64Array(2 * T - 1); // diag[n - m + T - 1]
    for (var delta = -(T - 1); delta <= T - 1; delta++) diag[delta + T - 1] = score0(delta);
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

    // Layer 1 lives in the slowest pair (coordinates d-2, d-1), angle m * layer1Step.
    //   working head: q_pre = beta P h[tok]     = beta (cos a_m, sin a_m),
    //                 k_pre = P h[prev]         = sum_j A0[n, j] p_j;
    //   rank-1 head:  q_pre = beta (v_q^T h, 0) = beta (cos a_m, 0),
    //                 k_pre = (v_k^T h, 0)      = (sum_j A0[n, j] cos a_j, 0).
    // Then q_m = R_m q_pre, k_n = R_n k_pre and scores1[m, n] = q_m . k_n (a 2-D dot product).
    // (Both are multiplied by the attention factor af, 1 unless the scaling is YaRN, and by 0
    // when zero_pairs zeroes the slowest pair in layer 1.)
    var slow = layer1Step(cfg, theta);
    var a1 = af * cfg.keep1[cfg.d / 2 - 1]; // layer 1's factor on queries and keys
    var rank1 = cfg.head === DATA.RANK1_HEAD;
    var q1 = new Float64Array(2 * T);
    var k1 = new Float64Array(2 * T);
    for (m = 0; m < T; m++) {
      var ang = m * slow;
      var c = Math.cos(ang);
      var sn = Math.sin(ang);
      var qa = a1 * cfg.beta * px[m];
      var qb = rank1 ? 0 : a1 * cfg.beta * py[m];
      var ka = a1 * prevx[m];
      var kb = rank1 ? 0 : a1 * prevy[m];
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
      config: cfg, tokens: tokens, T: T, theta: theta, attentionFactor: af,
      scores0: scores0, A0: A0, q1: q1, k1: k1, scores1: scores1, A1: A1,
      logits: logits, probs: probs, prediction: VOCAB[best], predictionIndex: best,
    };
  }

  // ---------------------------------------------------------------------------------------
  // Any weights of the trained model's form (rope_explained.trained): the trained seeds, whose
  // files weights-seed-N.js add them to window.RopePlaygroundWeights, or the hand-built weights
  // written in that form (trained.hand_built). Dense: every product of the equations, as
  // trained.forward_ids computes it.
  // ---------------------------------------------------------------------------------------

  var DECODED = new WeakMap(); // a weights payload -> its decoded weights

  /** One array of a weights payload ({shape, f4 | f8: base64 of little-endian IEEE bytes}) as
   * a Float64Array, checked against the shape it must have. */
  function decodeArray(name, a, shape) {
    if (!a || typeof a !== "object" || JSON.stringify(a.shape) !== JSON.stringify(shape)) {
      throw new RangeError("weights: array " + name + " must have shape [" + shape.join(", ") + "]; got " +
        (a && a.shape ? "[" + a.shape.join(", ") + "]" : String(a)));
    }
    var size = shape.reduce(function (x, y) { return x * y; }, 1);
    var wide = typeof a.f8 === "string";
    var bytes = atob(wide ? a.f8 : a.f4 || "");
    if (bytes.length !== size * (wide ? 8 : 4)) {
      throw new RangeError("weights: array " + name + " holds " + bytes.length + " bytes, not " + size +
        " entries of " + (wide ? "float64" : "float32"));
    }
    var view = new DataView(new ArrayBuffer(bytes.length));
    for (var b = 0; b < bytes.length; b++) view.setUint8(b, bytes.charCodeAt(b));
    var out = new Float64Array(size);
    for (var i = 0; i < size; i++) out[i] = wide ? view.getFloat64(8 * i, true) : view.getFloat32(4 * i, true);
    for (i = 0; i < size; i++) {
      if (!isFinite(out[i])) throw new RangeError("weights: array " + name + " holds a non-finite number");
    }
    return out;
  }

  /**
   * Weights of the trained model's form, decoded once: a payload as docs/hooks/playground.py
   * writes it ({name, d, D, base, length, arrays}) or the name of one that a weights file has
   * loaded ("seed-0"). Returns {name, d, D, base, length, E (V+1 x D), L0 and L1 ({W_q, W_k,
   * W_v}: d x D, W_o: D x d), W_out (V x D), b_out (V)}, matrices row-major.
   */
  function weights(payload) {
    if (typeof payload === "string") {
      var loaded = window.RopePlaygroundWeights || {};
      if (!Object.prototype.hasOwnProperty.call(loaded, payload)) {
        throw new RangeError("weights " + JSON.stringify(payload) + " are not loaded; loaded: " +
          (Object.keys(loaded).join(", ") || "none"));
      }
      payload = loaded[payload];
    }
    if (!payload || typeof payload !== "object" || !payload.arrays) {
      throw new TypeError("weights must be the name of loaded weights or a weights payload; got " +
        String(payload));
    }
    if (DECODED.has(payload)) return DECODED.get(payload);
    var d = payload.d;
    var D = payload.D;
    if (!isInteger(d) || d < 2 || d % 2 || d > MAX.d) throw refuse("weights' d", "an even integer in [2, " + MAX.d + "]", d);
    if (!isInteger(D) || D < 1 || D > MAX.D) throw refuse("weights' D", "an integer in [1, " + MAX.D + "]", D);
    if (!isFiniteNumber(payload.base) || payload.base <= 1 || payload.base > MAX.base) {
      throw refuse("weights' base", "a finite number in (1, " + MAX.base + "]", payload.base);
    }
    var length = payload.length;
    if (length !== null && (!isInteger(length) || length < 2 || length > DATA.MODEL_MAX_LETTERS + 1)) {
      throw refuse("weights' length", "null or an integer in [2, " + (DATA.MODEL_MAX_LETTERS + 1) + "]", length);
    }
    var arrays = payload.arrays;
    var head = function (layer) {
      var p = "L" + layer + ".";
      return {
        W_q: decodeArray(p + "W_q", arrays[p + "W_q"], [d, D]),
        W_k: decodeArray(p + "W_k", arrays[p + "W_k"], [d, D]),
        W_v: decodeArray(p + "W_v", arrays[p + "W_v"], [d, D]),
        W_o: decodeArray(p + "W_o", arrays[p + "W_o"], [D, d]),
      };
    };
    var w = Object.freeze({
      name: String(payload.name), d: d, D: D, base: payload.base, length: length,
      E: decodeArray("embedding", arrays.embedding, [V + 1, D]),
      L0: head(0), L1: head(1),
      W_out: decodeArray("W_out", arrays.W_out, [V, D]),
      b_out: decodeArray("b_out", arrays.b_out, [V]),
    });
    DECODED.set(payload, w);
    return w;
  }

  var RUN_OPTIONS = ["zero_pairs", "scaling", "factor", "original_max_position"];

  /**
   * The options of forwardWeights, checked as rope_explained.trained.forward checks them:
   * zero_pairs (keptPairs), scaling null or one of SCALING_METHODS with factor in [1, max] and
   * original_max_position an integer in [1, max] (default: the weights' training length). The
   * one option of the package it does not model, cut, is refused by name.
   */
  function runOptions(options, w) {
    var o = options || {};
    Object.keys(o).forEach(function (key) {
      if (key === "cut") {
        throw new RangeError("cut is not modelled here: the playground runs layer 1 on the residual stream " +
          "layer 0 wrote into (cut null)");
      }
      if (RUN_OPTIONS.indexOf(key) < 0) {
        throw new RangeError("unknown option '" + key + "'; allowed: " + RUN_OPTIONS.join(", "));
      }
    });
    var run = {
      scaling: o.scaling == null ? null : o.scaling,
      factor: o.factor == null ? null : o.factor,
      original_max_position: o.original_max_position == null ? null : o.original_max_position,
      r: w.d, base: w.base,
    };
    if (run.scaling !== null) {
      if (DATA.SCALING_METHODS.indexOf(run.scaling) < 0) {
        throw refuse("scaling", "null or one of " + DATA.SCALING_METHODS.join(", "), run.scaling);
      }
      var needs = " (scaling " + JSON.stringify(run.scaling) + " needs it)";
      if (run.factor === null) throw refuse("factor", "a number in [1, " + MAX.factor + "]" + needs, run.factor);
      if (run.original_max_position === null) {
        if (w.length === null) {
          throw refuse("original_max_position", "an integer in [1, " + MAX.original_max_position + "]" + needs +
            " (the weights " + JSON.stringify(w.name) + " have no training length to default to)", null);
        }
        run.original_max_position = w.length;
      }
      checkNumber(run, "factor", 1, MAX.factor, false, needs);
      checkInteger(run, "original_max_position", 1, MAX.original_max_position, needs);
    } else {
      ["factor", "original_max_position"].forEach(function (name) {
        if (run[name] !== null) throw new RangeError(name + " has an effect only with a scaling; got scaling=null");
      });
    }
    var keep = keptPairs(o.zero_pairs, w.d / 2);
    run.keep0 = keep.keep0;
    run.keep1 = keep.keep1;
    run.zero_pairs = keep.zero_pairs;
    return run;
  }

  /** x W^T for x of T rows of width cols and W of shape (rows, cols): (T, rows), row-major. */
  function project(x, W, T, rows, cols) {
    var out = new Float64Array(T * rows);
    for (var m = 0; m < T; m++) {
      var xm = m * cols;
      for (var i = 0; i < rows; i++) {
        var wi = i * cols;
        var s = 0;
        for (var j = 0; j < cols; j++) s += W[wi + j] * x[xm + j];
        out[m * rows + i] = s;
      }
    }
    return out;
  }

  /** a keep_i R_{Theta,m} x_m in place, for x of T rows of d coordinates, interleaved pairs
   * (2i, 2i+1) turned by m theta_i (rope.apply_rope), each pair times a keep[i] (a the
   * attention factor, keep[i] 0 for a pair zeroed). */
  function rotate(x, T, d, theta, a, keep) {
    for (var m = 0; m < T; m++) {
      for (var i = 0; i < d / 2; i++) {
        var angle = m * theta[i];
        var c = Math.cos(angle);
        var s = Math.sin(angle);
        var p = m * d + 2 * i;
        var x0 = x[p];
        var x1 = x[p + 1];
        var f = a * keep[i];
        x[p] = f * (x0 * c - x1 * s);
        x[p + 1] = f * (x0 * s + x1 * c);
      }
    }
  }

  /**
   * One attention head: q = a keep R W_q hq, k = a keep R W_k hk, v = W_v hv, scores = q k^T,
   * A = causal softmax, and its output o = (A v) W_o^T, which the residual stream adds.
   */
  function attend(W, hq, hk, hv, T, w, theta, a, keep) {
    var d = w.d;
    var D = w.D;
    var q = project(hq, W.W_q, T, d, D); // (T, d)
    var k = project(hk, W.W_k, T, d, D); // (T, d)
    var v = project(hv, W.W_v, T, d, D); // (T, d)
    rotate(q, T, d, theta, a, keep);
    rotate(k, T, d, theta, a, keep);
    var scores = new Float64Array(T * T); // [m, n] = q_m^T k_n, unmasked as Trace.scores0
    for (var m = 0; m < T; m++) {
      for (var n = 0; n < T; n++) {
        var s = 0;
        for (var i = 0; i < d; i++) s += q[m * d + i] * k[n * d + i];
        scores[m * T + n] = s;
      }
    }
    var A = causalSoftmax(scores, T);
    var mixed = new Float64Array(T * d); // (T, d): sum_n A[m, n] v_n
    for (m = 0; m < T; m++) {
      for (n = 0; n <= m; n++) {
        var an = A[m * T + n];
        for (i = 0; i < d; i++) mixed[m * d + i] += an * v[n * d + i];
      }
    }
    return { q: q, k: k, v: v, scores: scores, A: A, o: project(mixed, W.W_o, T, D, d) };
  }

  /**
   * The forward pass of rope_explained.trained.forward(weights, text, zero_pairs, scaling,
   * factor, original_max_position) for weights of the trained model's form (weights()):
   *   h0_m = E[t_m];  q_m = a keep R_m W_q h_m,  k_n = a keep R_n W_k h_n;
   *   A = causal softmax(q_m^T k_n);  h_{l+1} = h_l + W_o sum_n A[m, n] W_v h_n;
   *   probs = softmax(W_out h2 + b_out).
   * Returns {config, tokens, T, theta, attentionFactor, h0, q0, k0, v0, scores0, A0, h1, q1, k1,
   * v1, scores1, A1, h2, logits, probs, prediction, predictionIndex}, row-major Float64Arrays.
   */
  function forwardWeights(weightsOrName, text, options) {
    var w = weights(weightsOrName);
    var run = runOptions(options, w);
    var letters = tokenize(text);
    var T = letters.length + 1;
    var D = w.D;
    var rope = scaledFrequencies(run, T);
    var theta = rope.theta;
    var af = rope.attentionFactor;
    var tokens = ["<s>"];
    var h0 = new Float64Array(T * D); // (T, D): row 0 of E for <s>, row 1 + idx(t) for t
    h0.set(w.E.subarray(0, D), 0);
    for (var m = 1; m < T; m++) {
      tokens.push(VOCAB[letters[m - 1]]);
      h0.set(w.E.subarray((letters[m - 1] + 1) * D, (letters[m - 1] + 2) * D), m * D);
    }
    var l0 = attend(w.L0, h0, h0, h0, T, w, theta, af, run.keep0);
    var h1 = new Float64Array(T * D);
    for (var j = 0; j < T * D; j++) h1[j] = h0[j] + l0.o[j];
    var l1 = attend(w.L1, h1, h1, h1, T, w, theta, af, run.keep1);
    var h2 = new Float64Array(T * D);
    for (j = 0; j < T * D; j++) h2[j] = h1[j] + l1.o[j];
    var logits = project(h2, w.W_out, T, V, D); // (T, V)
    var probs = new Float64Array(T * V);
    for (m = 0; m < T; m++) {
      var row = m * V;
      var mx = -Infinity;
      var v;
      for (v = 0; v < V; v++) {
        logits[row + v] += w.b_out[v];
        if (logits[row + v] > mx) mx = logits[row + v];
      }
      var sum = 0;
      for (v = 0; v < V; v++) {
        probs[row + v] = Math.exp(logits[row + v] - mx);
        sum += probs[row + v];
      }
      for (v = 0; v < V; v++) probs[row + v] /= sum;
    }
    var best = 0;
    var last = (T - 1) * V;
    for (v = 1; v < V; v++) if (probs[last + v] > probs[last + best]) best = v;
    return {
      config: {
        weights: w.name, d: w.d, r: w.d, base: w.base, zero_pairs: run.zero_pairs, scaling: run.scaling,
        factor: run.factor, original_max_position: run.original_max_position,
      },
      tokens: tokens, T: T, theta: theta, attentionFactor: af,
      h0: h0, q0: l0.q, k0: l0.k, v0: l0.v, scores0: l0.scores, A0: l0.A, h1: h1,
      q1: l1.q, k1: l1.k, v1: l1.v, scores1: l1.scores, A1: l1.A, h2: h2,
      logits: logits, probs: probs, prediction: VOCAB[best], predictionIndex: best,
    };
  }

  /**
   * The prediction after text, computing only what it needs: rope_explained.model.predict_last.
   *
   * Every position's layer-0 row is needed (each key of layer 1 holds its previous letter), but
   * never as a T x T matrix: the scores of row m are s(n - m) (layer0Score), so row m's
   * exponentials are those of row m - 1, one step further back, plus one new one; when the new
   * one beats the row's best so far, the old ones are multiplied by exp(old best - new best),
   * which is the shift the package's softmax applies. Weights below 1e-18 of the row's best are
   * left out of the weighted sum (at most T of them: under 1e-14 in all). From the row whose
   * best is the best of all on, the weights stay the same; when many count, the sums of all
   * those rows are one convolution, computed by FFT (convolve). Layer 1 and the readout run for
   * the last query only.
   *
   * rope, optional, gives the frequencies instead: {theta (r/2 numbers >= 0), attentionFactor
   * (> 0)}, as rope_explained.extension.predict_last_at takes them (then config may set no
   * scaling and no unrotated pairs).
   *
   * Returns {config, tokens, T, theta, attentionFactor, probs (V), attention1 (T), previous
   * (T-1: A0[m, m-1]), peak (T: argmax_n A0[m, n]), prediction, predictionIndex}.
   */
  function predictLast(text, config, rope) {
    var cfg = makeConfig(config);
    var letters = tokenize(text);
    var bos = cfg.bos ? 1 : 0;
    var T = letters.length + bos;
    rope = rope === undefined ? ropeFrequencies(cfg, T) : givenFrequencies(cfg, rope);
    var af = rope.attentionFactor;
    var read = readTokens(letters, bos, T);
    var tokens = read.tokens, px = read.px, py = read.py;
    var m, n, k;

    // Layer 0, row by row. back[j] = score of the key j steps back, w[j] its exponential
    // relative to the row's best so far, big: the j whose w is not negligible.
    var score0 = layer0Score(cfg, rope);
    var back = new Float64Array(T);
    for (k = 0; k < T; k++) back[k] = score0(-k);
    var w = new Float64Array(T);
    var big = new Int32Array(T);
    var nBig = 1;
    var TINY = 1e-18;
    var best = back[0];
    var bestJ = 0;
    var Z = 1;
    w[0] = 1;
    big[0] = 0;
    var prevx = new Float64Array(T);
    var prevy = new Float64Array(T);
    var previous = new Float64Array(Math.max(T - 1, 0));
    var peak = new Int32Array(T);
    prevx[0] = px[0];
    prevy[0] = py[0];
    // Once the row's best is the best of all (G), every later row has the same shift, so its
    // weights are fixed: exp(back[j] - G). Then, if many of them count, the weighted sums of all
    // remaining rows are one convolution, done by FFT (O(T log T) instead of O(T^2)).
    var G = -Infinity;
    for (k = 0; k < T; k++) if (back[k] > G) G = back[k];
    var wG = new Float64Array(T);
    var counted = 0;
    for (k = 0; k < T; k++) {
      wG[k] = Math.exp(back[k] - G);
      if (wG[k] >= TINY) counted += 1;
    }
    for (m = 1; m < T; m++) {
      if (best === G && counted * (T - m) > FFT_WORTH) {
        var num = convolve(wG, px, py);
        Z = 0;
        for (k = 0; k < m; k++) Z += wG[k];
        for (; m < T; m++) {
          Z += wG[m];
          if (back[m] === G) bestJ = m;
          prevx[m] = num.x[m] / Z;
          prevy[m] = num.y[m] / Z;
          previous[m - 1] = wG[1] / Z;
          peak[m] = m - bestJ;
        }
        break;
      }
      var v = back[m];
      if (v >= best) {
        // a new best, m steps back (on a tie the earlier key wins, as numpy.argmax's first)
        var f = Math.exp(best - v);
        if (f !== 1) {
          Z *= f;
          var kept = 0;
          for (k = 0; k < m; k++) {
            w[k] *= f;
            if (w[k] >= TINY) big[kept++] = k;
          }
          nBig = kept;
        }
        best = v;
        bestJ = m;
        w[m] = 1;
      } else {
        w[m] = Math.exp(v - best);
      }
      Z += w[m];
      if (w[m] >= TINY) big[nBig++] = m;
      var sx = 0;
      var sy = 0;
      if (nBig > m >> 1) {
        // most weights count: one pass over the whole row (no index list to follow)
        for (var j = 0, i = m; j <= m; j++, i--) {
          sx += w[j] * px[i];
          sy += w[j] * py[i];
        }
      } else {
        for (var b = 0; b < nBig; b++) {
          var jb = big[b];
          sx += w[jb] * px[m - jb];
          sy += w[jb] * py[m - jb];
        }
      }
      prevx[m] = sx / Z;
      prevy[m] = sy / Z;
      previous[m - 1] = w[1] / Z;
      peak[m] = m - bestJ;
    }

    // Layer 1 for the last query: scores (q . k_n) over every key, in the slowest pair (zero
    // when zero_pairs zeroes it in layer 1).
    var slow = layer1Step(cfg, rope.theta);
    var a1 = af * cfg.keep1[cfg.d / 2 - 1]; // layer 1's factor on queries and keys
    var rank1 = cfg.head === DATA.RANK1_HEAD;
    var last = T - 1;
    var c = Math.cos(last * slow);
    var sn = Math.sin(last * slow);
    var qa = a1 * cfg.beta * px[last];
    var qb = rank1 ? 0 : a1 * cfg.beta * py[last];
    var qx = qa * c - qb * sn;
    var qy = qa * sn + qb * c;
    var A1 = new Float64Array(T);
    var mx = -Infinity;
    for (n = 0; n < T; n++) {
      c = Math.cos(n * slow);
      sn = Math.sin(n * slow);
      var ka = a1 * prevx[n];
      var kb = rank1 ? 0 : a1 * prevy[n];
      var sc = qx * (ka * c - kb * sn) + qy * (ka * sn + kb * c);
      A1[n] = sc;
      if (sc > mx) mx = sc;
    }
    var sum = 0;
    for (n = 0; n < T; n++) {
      A1[n] = Math.exp(A1[n] - mx);
      sum += A1[n];
    }
    var X = 0;
    var Y = 0;
    for (n = 0; n < T; n++) {
      A1[n] /= sum;
      X += A1[n] * px[n];
      Y += A1[n] * py[n];
    }
    var probs = readout(cfg, X, Y);
    var top = 0;
    for (var u = 1; u < V; u++) if (probs[u] > probs[top]) top = u;
    return {
      config: cfg, tokens: tokens, T: T, theta: rope.theta, attentionFactor: af,
      probs: probs, attention1: A1, previous: previous, peak: peak,
      prediction: VOCAB[top], predictionIndex: top,
    };
  }

  /** predictLast's rope argument, checked: {theta (a copy), attentionFactor}. */
  function givenFrequencies(cfg, rope) {
    if (cfg.scaling !== null || cfg.unrotated_fast || cfg.unrotated_slow) {
      throw new RangeError("given frequencies replace the scaling and the unrotated pairs: give " +
        "scaling null and unrotated_fast, unrotated_slow 0");
    }
    var theta = rope && rope.theta;
    if (!theta || theta.length !== cfg.r / 2) {
      throw refuse("theta", cfg.r / 2 + " frequencies (one per rotary pair)", theta && theta.length);
    }
    var out = new Float64Array(theta.length);
    for (var i = 0; i < theta.length; i++) {
      if (!isFiniteNumber(theta[i]) || theta[i] < 0) throw refuse("theta[" + i + "]", "a finite number >= 0", theta[i]);
      out[i] = theta[i];
    }
    if (!isFiniteNumber(rope.attentionFactor) || rope.attentionFactor <= 0) {
      throw refuse("attentionFactor", "a finite number > 0", rope.attentionFactor);
    }
    return { theta: out, attentionFactor: rope.attentionFactor };
  }

  /** Work (multiply-adds) above which predictLast's layer 0 uses the FFT. */
  var FFT_WORTH = 2e6;

  /**
   * The first T entries of the convolutions of w with x and with y (all of length T):
   * out.x[m] = sum_{j <= m} w[j] x[m - j], likewise out.y, by one complex FFT of size N >= 2T
   * (w real, x + i y complex; the product of the spectra is the spectrum of both sums).
   */
  var fftCalls = 0;

  function convolve(w, x, y) {
    fftCalls += 1;
    var T = w.length;
    var N = 1;
    while (N < 2 * T) N *= 2;
    var ar = new Float64Array(N);
    var ai = new Float64Array(N);
    var br = new Float64Array(N);
    var bi = new Float64Array(N);
    ar.set(w);
    br.set(x);
    bi.set(y);
    var tw = twiddles(N);
    fft(ar, ai, tw, false);
    fft(br, bi, tw, false);
    for (var k = 0; k < N; k++) {
      var re = ar[k] * br[k] - ai[k] * bi[k];
      bi[k] = ar[k] * bi[k] + ai[k] * br[k];
      br[k] = re;
    }
    fft(br, bi, tw, true);
    var out = { x: new Float64Array(T), y: new Float64Array(T) };
    for (k = 0; k < T; k++) {
      out.x[k] = br[k] / N;
      out.y[k] = bi[k] / N;
    }
    return out;
  }

  var TWIDDLES = {};

  /** cos and sin of 2 pi k / N for k < N / 2, each from Math.cos and Math.sin (no recurrence). */
  function twiddles(N) {
    if (!TWIDDLES[N]) {
      var c = new Float64Array(N / 2);
      var s = new Float64Array(N / 2);
      for (var k = 0; k < N / 2; k++) {
        c[k] = Math.cos((2 * Math.PI * k) / N);
        s[k] = Math.sin((2 * Math.PI * k) / N);
      }
      TWIDDLES[N] = { cos: c, sin: s };
    }
    return TWIDDLES[N];
  }

  /** In-place iterative radix-2 FFT of re + i im (length a power of two); inverse: unscaled. */
  function fft(re, im, tw, inverse) {
    var N = re.length;
    var i, j, t;
    for (i = 1, j = 0; i < N; i++) {
      var bit = N >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        t = re[i]; re[i] = re[j]; re[j] = t;
        t = im[i]; im[i] = im[j]; im[j] = t;
      }
    }
    var sign = inverse ? 1 : -1;
    for (var size = 2; size <= N; size *= 2) {
      var half = size / 2;
      var step = N / size;
      for (var start = 0; start < N; start += size) {
        for (var k = 0; k < half; k++) {
          var wr = tw.cos[k * step];
          var wi = sign * tw.sin[k * step];
          var a = start + k;
          var b = a + half;
          var xr = re[b] * wr - im[b] * wi;
          var xi = re[b] * wi + im[b] * wr;
          re[b] = re[a] - xr;
          im[b] = im[a] - xi;
          re[a] += xr;
          im[a] += xi;
        }
      }
    }
  }

  /** The readout for one position: softmax_v(gamma (cos a_v, sin a_v) . (X, Y)), as forward's. */
  function readout(cfg, X, Y) {
    var probs = new Float64Array(V);
    var mx = -Infinity;
    var v;
    for (v = 0; v < V; v++) {
      probs[v] = cfg.gamma * (Math.cos(v * LETTER_STEP) * X + Math.sin(v * LETTER_STEP) * Y);
      if (probs[v] > mx) mx = probs[v];
    }
    var sum = 0;
    for (v = 0; v < V; v++) {
      probs[v] = Math.exp(probs[v] - mx);
      sum += probs[v];
    }
    for (v = 0; v < V; v++) probs[v] /= sum;
    return probs;
  }

  /**
   * What the reader typed, checked for the page: {ok, text, message, note}. Upper case is
   * folded as tokenize does (and said so in a note); anything else is refused with a message
   * that names the first character outside the vocabulary as tokenize does; more than
   * maxLetters letters (default DATA.HEATMAP_MAX_LETTERS) are refused too.
   */
  function checkText(raw, maxLetters) {
    var limit = maxLetters === undefined ? DATA.HEATMAP_MAX_LETTERS : maxLetters;
    var letters = FIRST + "\u2013" + LAST;
    var chars = Array.from(raw);
    if (chars.length === 0) {
      return { ok: false, message: "Type at least one letter " + letters + "." };
    }
    var bad = [];
    var upper = false;
    for (var i = 0; i < chars.length; i++) {
      if (letterIndex(chars[i], false) >= 0) continue;
      if (letterIndex(chars[i], true) >= 0) upper = true;
      else bad.push(i);
    }
    if (bad.length) {
      var more = bad.length - 1;
      return {
        ok: false,
        position: bad[0],
        message: "Character " + describeCharacter(chars[bad[0]]) + " at position " + bad[0] +
          " (counting from 0) is not a letter " + letters +
          (more ? ", nor " + (more === 1 ? "is 1 other character" : "are " + more + " other characters") : "") +
          ". The panels still show the last valid text.",
      };
    }
    if (chars.length > limit) {
      return {
        ok: false,
        tooLong: true,
        message: "That is " + chars.length.toLocaleString("en") + " letters; the playground takes at most " +
          limit.toLocaleString("en") + ". The panels still show the last valid text.",
      };
    }
    return {
      ok: true,
      text: raw.toLowerCase(),
      note: upper ? "Upper-case letters are read as lower case, as the package\u2019s tokenize does." : "",
    };
  }

  /**
   * The letter a copying rule predicts: the one after the latest earlier copy of the last
   * letter, or null when the last letter has no earlier copy (a one-letter text has none).
   */
  function copiedLetter(text) {
    if (text.length < 2) return null;
    var last = text[text.length - 1];
    var j = text.lastIndexOf(last, text.length - 2);
    return j >= 0 ? text[j + 1] : null;
  }

  /**
   * How often a forward trace predicts what copying gives: over the positions m whose letter
   * occurred exactly once before (at j, the start token aside), the count where the most
   * probable next letter (the first maximum of probs[m], as numpy.argmax) is the letter at
   * j + 1. Returns {right, positions}.
   */
  function copyScore(trace) {
    var T = trace.T;
    var right = 0;
    var positions = 0;
    for (var m = 1; m < T; m++) {
      var j = -1;
      var seen = 0;
      for (var n = 1; n < m; n++) {
        if (trace.tokens[n] === trace.tokens[m]) {
          seen += 1;
          j = n;
        }
      }
      if (seen !== 1) continue;
      positions += 1;
      var best = 0;
      for (var v = 1; v < V; v++) if (trace.probs[m * V + v] > trace.probs[m * V + best]) best = v;
      if (VOCAB[best] === trace.tokens[j + 1]) right += 1;
    }
    return { right: right, positions: positions };
  }

  window.RopePlaygroundModel = Object.freeze({
    forward: forward, predictLast: predictLast, forwardWeights: forwardWeights, weights: weights,
    tokenize: tokenize, makeConfig: makeConfig,
    frequencies: frequencies, ropeFrequencies: ropeFrequencies,
    fftCalls: function () {
      return fftCalls;
    },
    causalSoftmax: causalSoftmax, describeCharacter: describeCharacter, checkText: checkText,
    copiedLetter: copiedLetter, copyScore: copyScore,
  });
})();
