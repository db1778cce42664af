/*
 * "Paste your model's config", the maths: a Hugging Face config.json read as RoPE frequencies
 * (rope_explained.hf.from_config, recomputed in the browser), and the same scaling recipe
 * applied to the site's hand-built circuit (rope_explained.extension.recipe_on_circuit), run
 * by the playground's model (window.RopePlaygroundModel.predictLast with given frequencies).
 * No DOM.
 *
 * Reads window.RopeConfigData (data.js, written from the package while the site builds): the
 * rope types, the keys refused and why, the constants of each recipe, the limits and the
 * circuit's settings come from there, never from this file. Defines window.RopeConfigModel.
 *
 * Notation (the site's): head dimension head_dim, rotary width r = int(head_dim *
 * partial_rotary_factor), frequencies theta_i = base^(-2i/r), wavelengths lambda_i =
 * 2 pi / theta_i, original context L, extension factor s.
 */
(function () {
  "use strict";

  var DATA = window.RopeConfigData;
  var MODEL = window.RopePlaygroundModel;
  if (!DATA || !MODEL) throw new Error("RopeConfig: load both data.js files and model.js before hf.js");
  var LIMITS = DATA.LIMITS;

  function isObject(x) {
    return x !== null && typeof x === "object" && !Array.isArray(x);
  }

  function show(x) {
    if (x === undefined) return "nothing";
    var text = JSON.stringify(x);
    if (text === undefined) text = String(x);
    return text.length > 60 ? text.slice(0, 57) + "..." : text;
  }

  /** A RangeError naming the key, what it may be, and what it was. */
  function refuse(key, allowed, value) {
    return new RangeError(key + " must be " + allowed + "; got " + show(value));
  }

  function integer(key, x, lo, hi) {
    if (typeof x !== "number" || !Number.isInteger(x) || x < lo || x > hi) {
      throw refuse(key, "an integer in [" + lo + ", " + hi + "]", x);
    }
    return x;
  }

  function real(key, x, lo, hi, loOpen) {
    if (typeof x !== "number" || !isFinite(x) || (loOpen ? x <= lo : x < lo) || x > hi) {
      throw refuse(key, "a number in " + (loOpen ? "(" : "[") + lo + ", " + hi + "]", x);
    }
    return x;
  }

  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== null && obj[key] !== undefined;
  }

  /** A RangeError for an input rope_explained.hf.REFUSED lists, saying why (as from_config). */
  function refused(key, detail) {
    return new RangeError(detail + ". Refused (" + key + "): " + DATA.REFUSED[key]);
  }

  function number(key, x, lo, hi, loOpen) {
    if (typeof x !== "number") throw new TypeError(key + " must be a number; got " + show(x));
    return real(key, x, lo, hi, loOpen);
  }

  function whole(key, x, lo, hi) {
    if (typeof x !== "number" || !Number.isInteger(x)) {
      throw new TypeError(key + " must be an integer in [" + lo + ", " + hi + "]; got " + show(x));
    }
    return integer(key, x, lo, hi);
  }

  /**
   * The rope parameters as transformers reads them: rope_scaling before rope_parameters (the
   * first that is set and not empty); Gemma 3's older fields (rope_local_base_freq, a
   * rope_scaling for the full-attention layers only) as a dictionary nested by layer type.
   */
  function ropeParameters(config) {
    var rope = (has(config, "rope_scaling") && truthy(config.rope_scaling) && config.rope_scaling) ||
      (has(config, "rope_parameters") && truthy(config.rope_parameters) && config.rope_parameters) || {};
    if (!isObject(rope)) throw new TypeError("rope_parameters / rope_scaling must be a mapping; got " + show(rope));
    if (Object.prototype.hasOwnProperty.call(config, "rope_local_base_freq") && !truthy(rope.full_attention)) {
      var full = Object.assign({ rope_type: "default" }, rope);
      if (Object.prototype.hasOwnProperty.call(config, "rope_theta") && !Object.prototype.hasOwnProperty.call(full, "rope_theta")) {
        full.rope_theta = config.rope_theta;
      }
      return {
        full_attention: full,
        sliding_attention: { rope_type: "default", rope_theta: config.rope_local_base_freq },
      };
    }
    return rope;
  }

  /** Python's truth of a JSON value (an empty object or list, 0, "" and null are false). */
  function truthy(x) {
    if (Array.isArray(x)) return x.length > 0;
    if (isObject(x)) return Object.keys(x).length > 0;
    return Boolean(x);
  }

  /** The layer types of rope parameters nested by layer type ([] for flat ones). */
  function layerTypes(config) {
    if (!isObject(config)) return [];
    var c = configOf(config);
    var rope = ropeParameters(c);
    var keys = Object.keys(rope);
    var nested = keys.length > 0 && keys.every(function (k) {
      return rope[k] === null || isObject(rope[k]);
    });
    return nested ? keys.filter(function (k) { return rope[k] !== null; }).sort() : [];
  }

  /**
   * A multimodal config's text_config, when the top level has none of the fields RoPE is read
   * from (rope_parameters, rope_scaling, rope_theta), as rope_explained.hf.from_config.
   */
  function configOf(config) {
    var text = config.text_config;
    var top = ["rope_parameters", "rope_scaling", "rope_theta"].some(function (k) {
      return Object.prototype.hasOwnProperty.call(config, k);
    });
    return isObject(text) && !top ? text : config;
  }

  /**
   * rope_explained.hf.from_config: what a config.json gives RoPE, or an error naming the key.
   * seqLen (optional) is the text length, for the types that depend on it ("dynamic" grows its
   * frequencies past max_position_embeddings, "longrope" takes its long factors past the
   * original context); layerType chooses among rope parameters nested by layer type.
   * Returns {rope_type, head_dim, rotary_dim, base, factor, inv_freq, attention_factor,
   * original_max_position, max_position, layer_type, wavelengths, context, completes}:
   * completes[i] says whether pair i turns fully between the first and the last position of
   * context = original_max_position (else max_position_embeddings), as HFRope.turns_within.
   */
  function fromConfig(config, seqLen, layerType) {
    if (!isObject(config)) {
      throw new TypeError("config must be a mapping (a config.json read as a dict); got " + show(config));
    }
    config = configOf(config);
    var rope = ropeParameters(config);
    var types = layerTypes(config);
    if (types.length) {
      if (types.indexOf(layerType) < 0) {
        throw new RangeError("the rope parameters are nested by layer type: choose one with layer_type, " +
          "one of " + types.map(function (t) { return "'" + t + "'"; }).join(", ") +
          (layerType === undefined || layerType === null ? "" : "; got " + show(layerType)));
      }
      rope = rope[layerType];
    } else if (layerType !== undefined && layerType !== null) {
      throw new RangeError("layer_type=" + show(layerType) + " was given, but the rope parameters are not " +
        "nested by layer type; leave layer_type as None");
    } else {
      layerType = null;
    }
    if (!isObject(rope)) throw new TypeError("the rope parameters must be a mapping; got " + show(rope));
    var ropeType = Object.prototype.hasOwnProperty.call(rope, "rope_type") ? rope.rope_type :
      Object.prototype.hasOwnProperty.call(rope, "type") ? rope.type : "default";
    if (ropeType === "su") ropeType = "longrope"; // Phi-3's first name for LongRoPE
    if (DATA.ROPE_TYPES.indexOf(ropeType) < 0) {
      throw new RangeError("rope_type must be one of " + DATA.ROPE_TYPES.map(function (t) {
        return "'" + t + "'";
      }).join(", ") + "; got " + show(ropeType));
    }
    var allowed = DATA.ALLOWED_KEYS[ropeType];
    var unknown = Object.keys(rope).filter(function (k) { return allowed.indexOf(k) < 0; }).sort();
    if (unknown.length) {
      throw refused("unrecognised key", "rope_type '" + ropeType + "' takes the keys " +
        allowed.slice().sort().join(", ") + "; got also " + unknown.map(function (k) {
          return "'" + k + "'";
        }).join(", "));
    }
    var where = "rope parameters (" + ropeType + ")";

    var base = has(rope, "rope_theta") ? rope.rope_theta : config.rope_theta;
    if (base === undefined || base === null) throw refused("no rope_theta", "rope_theta is missing");
    base = number("rope_theta", base, 1, LIMITS.max_base, true);
    var p = Object.prototype.hasOwnProperty.call(rope, "partial_rotary_factor") ? rope.partial_rotary_factor :
      Object.prototype.hasOwnProperty.call(config, "partial_rotary_factor") ? config.partial_rotary_factor : 1;
    p = number("partial_rotary_factor", p === null ? 1 : p, 0, 1, true);

    var headDim = truthy(config.qk_rope_head_dim) ? config.qk_rope_head_dim : config.head_dim;
    if (headDim === undefined || headDim === null) {
      if (!has(config, "hidden_size") || !has(config, "num_attention_heads")) {
        throw new RangeError("the head dimension is missing: give head_dim, or hidden_size and " +
          "num_attention_heads");
      }
      var hidden = whole("hidden_size", config.hidden_size, 1, Number.MAX_SAFE_INTEGER);
      var heads = whole("num_attention_heads", config.num_attention_heads, 1, Number.MAX_SAFE_INTEGER);
      if (hidden % heads) {
        throw new RangeError("hidden_size (" + hidden + ") must be a multiple of num_attention_heads (" +
          heads + ") for the head dimension hidden_size // num_attention_heads");
      }
      headDim = hidden / heads;
    }
    headDim = whole("head_dim", headDim, 2, LIMITS.max_head_dim);
    if (headDim % 2) throw new RangeError("head_dim must be even (RoPE turns pairs); got " + headDim);
    var rotaryDim = headDim;
    if (ropeType !== "proportional") {
      rotaryDim = Math.trunc(headDim * p);
      if (rotaryDim % 2) {
        throw refused("odd rotary width", "partial_rotary_factor=" + p + " with head_dim=" + headDim +
          " gives an odd rotary width " + rotaryDim);
      }
      if (rotaryDim < 2) throw refuse("partial_rotary_factor", "large enough that 2 coordinates turn", p);
    }

    if (!has(config, "max_position_embeddings")) {
      throw new RangeError("max_position_embeddings is missing: an integer in [1, " + LIMITS.max_context + "]");
    }
    var maxPos = whole("max_position_embeddings", config.max_position_embeddings, 1, LIMITS.max_context);
    var L = null;
    if (ropeType === "llama3" || ropeType === "yarn" || ropeType === "longrope") {
      L = has(config, "original_max_position_embeddings") ? config.original_max_position_embeddings :
        Object.prototype.hasOwnProperty.call(rope, "original_max_position_embeddings") ?
          rope.original_max_position_embeddings : maxPos;
      L = whole("original_max_position_embeddings", L, 1, LIMITS.max_context);
    } else if (ropeType === "dynamic") {
      L = maxPos;
    }
    if (seqLen !== undefined && seqLen !== null) seqLen = whole("seq_len", seqLen, 1, LIMITS.max_context);
    else seqLen = null;

    if ((ropeType === "linear" || ropeType === "dynamic" || ropeType === "llama3") && !has(rope, "factor")) {
      throw new RangeError(where + ": factor is missing: a number >= 1");
    }
    var s = has(rope, "factor") ? rope.factor : null;
    if (s === null && (ropeType === "yarn" || ropeType === "longrope")) s = maxPos / L;
    if (s !== null) {
      number("factor", s, -Infinity, Infinity);
      if (s < 1) throw refused("factor below 1", where + ": factor=" + s);
      s = real("factor", s, 1, LIMITS.max_factor);
    }
    var af = null;
    if (has(rope, "attention_factor")) {
      af = number("attention_factor", rope.attention_factor, -Infinity, Infinity);
      if (af <= 0) throw refused("attention_factor not positive", where + ": attention_factor=" + af);
      af = real("attention_factor", af, 0, LIMITS.max_factor, true);
    }

    var out;
    switch (ropeType) {
      case "default":
        out = { theta: powers(rotaryDim, base), af: 1 };
        break;
      case "linear":
        out = { theta: powers(rotaryDim, base).map(function (t) { return t / s; }), af: 1 };
        break;
      case "dynamic": {
        if (rotaryDim < 4) throw refuse("partial_rotary_factor", "a rotary width of at least 4 for 'dynamic'", p);
        var ell = Math.max(seqLen || L, L);
        out = ell <= L ? { theta: powers(rotaryDim, base), af: 1 } : {
          theta: powers(rotaryDim, base * Math.pow(s * ell / L - (s - 1), rotaryDim / (rotaryDim - 2))), af: 1,
        };
        break;
      }
      case "yarn":
        out = yarn(rope, where, rotaryDim, base, L, s, af);
        break;
      case "longrope":
        out = longrope(rope, where, rotaryDim, base, L, s, af, seqLen);
        break;
      case "llama3":
        out = llama3(rope, where, rotaryDim, base, L, s);
        break;
      default: // proportional
        out = proportional(headDim, p, base, s === null ? 1 : s);
    }
    var invFreq = out.theta;
    var context = L === null ? maxPos : L;
    var wavelengths = new Float64Array(invFreq.length);
    var completes = [];
    for (var i = 0; i < invFreq.length; i++) {
      wavelengths[i] = invFreq[i] > 0 ? (2 * Math.PI) / invFreq[i] : Infinity;
      completes.push(invFreq[i] * (context - 1) >= 2 * Math.PI);
    }
    return {
      rope_type: ropeType, head_dim: headDim, rotary_dim: rotaryDim, base: base,
      factor: s === null ? 1 : s, inv_freq: invFreq, attention_factor: out.af,
      original_max_position: L, max_position: maxPos, layer_type: layerType,
      seq_len: ropeType === "dynamic" || ropeType === "longrope" ? seqLen : null,
      wavelengths: wavelengths, context: context, completes: completes,
    };
  }

  /** theta_i = base^(-2i/w), i < w/2, as 1 / base^(2i/w) (transformers' order of operations). */
  function powers(w, base) {
    var theta = new Float64Array(w / 2);
    for (var i = 0; i < w / 2; i++) theta[i] = Math.pow(base, (-2 * i) / w);
    return theta;
  }

  function yarn(rope, where, w, base, L, s, af) {
    var Y = DATA.YARN;
    var fast = truthy(rope.beta_fast) ? number("beta_fast", rope.beta_fast, -Infinity, Infinity) : Y.beta_fast;
    var slow = truthy(rope.beta_slow) ? number("beta_slow", rope.beta_slow, -Infinity, Infinity) : Y.beta_slow;
    if (fast <= slow) {
      throw refused("beta_fast not above beta_slow", where + ": beta_fast=" + show(rope.beta_fast) +
        ", beta_slow=" + show(rope.beta_slow));
    }
    real("beta_fast", fast, 0, LIMITS.max_factor, true);
    real("beta_slow", slow, 0, LIMITS.max_factor, true);
    var m = has(rope, "mscale") ? number("mscale", rope.mscale, 0, LIMITS.max_factor) : null;
    var mAll = has(rope, "mscale_all_dim") ? number("mscale_all_dim", rope.mscale_all_dim, 0, LIMITS.max_factor) : null;
    var truncate = Object.prototype.hasOwnProperty.call(rope, "truncate") ? rope.truncate : true;
    if (typeof truncate !== "boolean") throw new TypeError("truncate must be true or false; got " + show(truncate));
    if (af === null) {
      var g = function (k) {
        return s <= 1 ? 1 : Y.attention_slope * k * Math.log(s) + 1;
      };
      af = m && mAll ? g(m) / g(mAll) : g(1);
    }
    var dim = function (rotations) {
      return (w * Math.log(L / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
    };
    var low = dim(fast);
    var high = dim(slow);
    if (truncate) {
      low = Math.floor(low);
      high = Math.ceil(high);
    }
    low = Math.max(low, 0);
    high = Math.min(high, w - 1);
    if (low === high) high += Y.min_ramp;
    var theta = powers(w, base);
    for (var i = 0; i < w / 2; i++) {
      var x = (i - low) / (high - low);
      var keep = 1 - (x < 0 ? 0 : x > 1 ? 1 : x);
      theta[i] = (theta[i] / s) * (1 - keep) + theta[i] * keep;
    }
    return { theta: theta, af: af };
  }

  function longrope(rope, where, w, base, L, s, af, seqLen) {
    var lists = {};
    ["short_factor", "long_factor"].forEach(function (key) {
      var v = rope[key];
      if (!Array.isArray(v) || !v.every(function (x) { return typeof x === "number"; })) {
        throw new TypeError(where + ": " + key + " must be a list of numbers; got " + show(v));
      }
      if (v.length !== w / 2) {
        throw refused("factor list of the wrong length", where + ": " + key + " has " + v.length +
          " numbers; the " + w / 2 + " pairs need one each");
      }
      v.forEach(function (x, i) {
        real(key + "[" + i + "]", x, 0, LIMITS.max_factor, true);
      });
      lists[key] = v;
    });
    if (af === null) {
      if (L < 2) throw refuse("original_max_position_embeddings", "at least 2 for 'longrope'", L);
      af = s <= 1 ? 1 : Math.sqrt(1 + Math.log(s) / Math.log(L));
    }
    var ext = seqLen !== null && seqLen > L ? lists.long_factor : lists.short_factor;
    var theta = powers(w, base);
    for (var i = 0; i < w / 2; i++) theta[i] /= ext[i];
    return { theta: theta, af: af };
  }

  function llama3(rope, where, w, base, L, s) {
    ["low_freq_factor", "high_freq_factor"].forEach(function (key) {
      if (!has(rope, key)) throw new RangeError(where + ": " + key + " is missing: a number > 0");
      number(key, rope[key], 0, LIMITS.max_factor, true);
    });
    var lo = rope.low_freq_factor;
    var hi = rope.high_freq_factor;
    if (hi <= lo) {
      throw refused("high_freq_factor not above low_freq_factor", where + ": low_freq_factor=" + lo +
        ", high_freq_factor=" + hi);
    }
    var theta = powers(w, base);
    for (var i = 0; i < w / 2; i++) {
      var t = theta[i];
      var wavelen = (2 * Math.PI) / t;
      var mu = (L / wavelen - lo) / (hi - lo);
      var smooth = (1 - mu) * t / s + mu * t;
      theta[i] = wavelen < L / hi ? t : wavelen > L / lo ? t / s : smooth;
    }
    return { theta: theta, af: 1 };
  }

  function proportional(d, p, base, s) {
    var k = Math.trunc(Math.floor((p * d) / 2)); // the pairs that turn
    var theta = new Float64Array(d / 2); // the others: frequency 0
    var full = powers(d, base);
    for (var i = 0; i < k; i++) theta[i] = full[i] / s;
    return { theta: theta, af: 1 };
  }

  // ---------------------------------------------------------------------------------------
  // The recipe on the circuit
  // ---------------------------------------------------------------------------------------

  var C = DATA.CIRCUIT; // {d, base, original_max_position, max_positions, prompts, seed, recipe_keys}

  /**
   * The pasted config's scaling recipe on the circuit: its rope type and the keys of its rope
   * parameters that DATA.CIRCUIT.recipe_keys lists (the factor, YaRN's and Llama 3's constants,
   * the proportional type's share of pairs that turn), on the circuit's head (head_dim d, base)
   * with the circuit's original context L; what belongs to the pasted model's own head (its
   * rope_theta, head_dim, rotary width, contexts, LongRoPE's per-pair lists) stays behind.
   * Returns {config, factor, lengths}: the circuit's config.json, the extension factor s (as
   * pasted), and the text lengths T (start token included) the circuit is measured at: prompts
   * whose two A's lie DATA.CIRCUIT.distance_share of 2^k L apart, for 2^k = 1, 2, 4, ... up to
   * s, and at most as long as the longest text the circuit reads.
   */
  function recipeOnCircuit(config, layerType) {
    var hf = fromConfig(config, null, layerType);
    if (hf.rope_type === "longrope") {
      throw new RangeError("rope_type 'longrope' does not carry over to the circuit: its " +
        "short_factor and long_factor give one factor to each of the " + hf.inv_freq.length +
        " pairs of this model's head, and the circuit's head has " + C.d / 2);
    }
    var c = configOf(config);
    var rope = ropeParameters(c);
    if (hf.layer_type !== null) rope = rope[hf.layer_type];
    var recipe = { rope_type: hf.rope_type };
    C.recipe_keys.forEach(function (key) {
      // the rotary share is the proportional type's recipe, and the model's own head otherwise
      if (key === "partial_rotary_factor" && hf.rope_type !== "proportional") return;
      if (Object.prototype.hasOwnProperty.call(rope, key) && rope[key] !== null) recipe[key] = rope[key];
    });
    if (hf.rope_type === "proportional" && !has(recipe, "partial_rotary_factor") &&
        has(c, "partial_rotary_factor")) {
      recipe.partial_rotary_factor = c.partial_rotary_factor;
    }
    var s = hf.factor;
    var L = C.original_max_position;
    if (hf.rope_type === "yarn" || hf.rope_type === "llama3") recipe.original_max_position_embeddings = L;
    var lengths = [];
    for (var k = 1; k <= s; k *= 2) {
      var T = Math.min(Math.round(C.distance_share * k * L), C.max_positions - 2) + 2;
      if (lengths.indexOf(T) < 0) lengths.push(T);
    }
    return {
      config: {
        head_dim: C.d, rope_theta: C.base, rope_parameters: recipe,
        // the dynamic type takes its original context from max_position_embeddings
        max_position_embeddings: hf.rope_type === "dynamic" ? L : Math.round(s * L),
      },
      factor: s,
      lengths: lengths,
    };
  }

  /** A small seeded generator (mulberry32): the same prompts on every browser. */
  function generator(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /**
   * n prompts "A B ... A" of T positions (T - 1 letters after the start token): A first and
   * last, every other letter uniform over the 25 others; the answer is B, the second letter.
   */
  function prompts(T, n, seed) {
    var VOCAB = window.RopePlaygroundData.VOCAB;
    var V = VOCAB.length;
    var rand = generator(seed);
    var out = [];
    for (var p = 0; p < n; p++) {
      var a = Math.floor(rand() * V);
      var letters = new Array(T - 1);
      for (var k = 0; k < T - 1; k++) {
        var j = Math.floor(rand() * (V - 1));
        letters[k] = VOCAB[j >= a ? j + 1 : j];
      }
      letters[0] = letters[T - 2] = VOCAB[a];
      out.push({ text: letters.join(""), answer: letters[1] });
    }
    return out;
  }

  /**
   * The circuit at each length of recipeOnCircuit, with the pasted recipe and without any
   * scaling: {recipe, rows: [{T, prompts, scaled: {inv_freq, attention_factor, previous,
   * predictions, probs, right}, plain: {...}}]}. previous is the last query's layer-0 weight
   * one step back; right counts the prompts whose prediction is B.
   */
  function circuit(config, layerType) {
    var recipe = recipeOnCircuit(config, layerType);
    var run = function (list, rope) {
      var out = { predictions: [], probs: [], right: 0, previous: null };
      list.forEach(function (p) {
        var r = rope ? MODEL.predictLast(p.text, {}, rope) : MODEL.predictLast(p.text, {});
        out.predictions.push(r.prediction);
        out.probs.push(Array.from(r.probs));
        if (r.prediction === p.answer) out.right += 1;
        out.previous = r.previous[r.previous.length - 1];
      });
      return out;
    };
    var plainFreq = Array.from(MODEL.frequencies(C.d, C.base));
    var rows = recipe.lengths.map(function (T) {
      var hf = fromConfig(recipe.config, T);
      var list = prompts(T, C.prompts, C.seed);
      var scaled = run(list, { theta: hf.inv_freq, attentionFactor: hf.attention_factor });
      scaled.inv_freq = Array.from(hf.inv_freq);
      scaled.attention_factor = hf.attention_factor;
      var plain = run(list, null);
      plain.inv_freq = plainFreq;
      return { T: T, prompts: list, scaled: scaled, plain: plain };
    });
    return { recipe: recipe, rows: rows };
  }

  window.RopeConfigModel = Object.freeze({
    fromConfig: fromConfig, layerTypes: layerTypes, recipeOnCircuit: recipeOnCircuit, prompts: prompts,
    circuit: circuit,
  });
})();
