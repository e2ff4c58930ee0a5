/* Dossier's build-time experience checks, mirrored in the browser for the editor: the door
 * graph, image sizes, the size budget and sound levels, with the same numbers and the same
 * messages as `dossier experiences validate` (Sources/Experiences/Graph.swift, Media.swift;
 * definitions in docs/experience-analysis.md). Tests/e2e/test_experiences_checks.py runs
 * both over the same experiences and media and compares every message.
 *
 * DossierChecks.graph(x) → [{severity, message, path}]
 * DossierChecks.media(x, media, fileBytes) → [{severity, message, path}]
 *   x: the experience object; media: {path: Uint8Array} for the files whose bytes are
 *   known; fileBytes: the size of the experience file as it would be saved.
 * DossierChecks.wavLevel(bytes) → {sampleRate, channels, bitsPerSample, frames, rmsDBFS,
 *   peakDBFS} (levels null for silence) or throws an Error with the build's message.
 * DossierChecks.imageSize(bytes) → {width, height} or null. */
(function (global) {
  "use strict";

  var LIMITS = { safeTextureWidth: 4096, budgetBytes: 40 * 1000000, loudnessOutlierDB: 10 };

  function panoramas(x) { return Array.isArray(x.panoramas) ? x.panoramas.filter(function (p) { return p && typeof p === "object"; }) : []; }
  function triggers(p) { return Array.isArray(p.triggers) ? p.triggers.filter(function (t) { return t && typeof t === "object"; }) : []; }
  function warning(path, message) { return { severity: "warning", path: path, message: message }; }

  // MARK: The door graph (GraphAnalysis)

  function graph(x) {
    var ps = panoramas(x), nodes = ps.map(function (p) { return p.id; });
    var ids = {};
    nodes.forEach(function (id) { ids[id] = true; });
    var adj = {};
    ps.forEach(function (p) {
      triggers(p).forEach(function (t) {
        if (t.kind === "door" && typeof t.target === "string" && ids[t.target]) (adj[p.id] = adj[p.id] || []).push(t.target);
      });
    });
    var first = typeof x.firstPanorama === "string" ? x.firstPanorama : (nodes[0] || "");
    var fin = typeof x.finalPanorama === "string" ? x.finalPanorama : (nodes.length ? nodes[nodes.length - 1] : "");
    var reach = {};
    if (ids[first]) {
      var queue = [first], head = 0;
      reach[first] = true;
      while (head < queue.length) {
        (adj[queue[head++]] || []).forEach(function (m) { if (!reach[m]) { reach[m] = true; queue.push(m); } });
      }
    }
    function where(id) { return "panoramas." + nodes.indexOf(id); }
    var out = [];
    nodes.forEach(function (id) {
      if (!reach[id]) out.push(warning(where(id), "panorama \"" + id + "\" cannot be reached from the first panorama \"" + first + "\""));
    });
    nodes.forEach(function (id) {
      if (reach[id] && id !== fin && !(adj[id] || []).length) {
        out.push(warning(where(id), "panorama \"" + id + "\" is a dead end: it has no door and is not the final panorama \"" + fin + "\""));
      }
    });
    if (nodes.length && !reach[fin]) {
      out.push(warning("finalPanorama", "the final panorama \"" + fin + "\" cannot be reached, so the experience can never be finished"));
    }
    return out;
  }

  // MARK: Media (MediaReport)

  /* Width and height from a PNG IHDR or the first JPEG SOFn marker (ImageInfo.dimensions). */
  function imageSize(b) {
    var png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];
    if (b.length >= 24 && png.every(function (v, i) { return b[i] === v; }) && String.fromCharCode(b[12], b[13], b[14], b[15]) === "IHDR") {
      return { width: u32be(b, 16), height: u32be(b, 20) };
    }
    if (b.length < 4 || b[0] !== 0xFF || b[1] !== 0xD8) return null;
    var i = 2;
    while (i + 3 < b.length) {
      if (b[i] !== 0xFF) return null;
      var marker = b[i + 1];
      if (marker === 0xFF) { i += 1; continue; }
      if (marker === 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { i += 2; continue; }
      var len = b[i + 2] << 8 | b[i + 3];
      if (marker >= 0xC0 && marker <= 0xCF && marker !== 0xC4 && marker !== 0xC8 && marker !== 0xCC) {
        if (!(i + 8 < b.length)) return null;
        return { width: b[i + 7] << 8 | b[i + 8], height: b[i + 5] << 8 | b[i + 6] };
      }
      if (marker === 0xDA) return null;
      i += 2 + len;
    }
    return null;
  }
  function u32be(b, i) { return ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3]; }
  function u32(b, i) { return (b[i] | b[i + 1] << 8 | b[i + 2] << 16) + b[i + 3] * 16777216; }
  function u16(b, i) { return b[i] | b[i + 1] << 8; }

  /* Level of a PCM or IEEE-float WAV clip (WAVAnalyzer.analyze). */
  function wavLevel(b) {
    function tag(i) { return String.fromCharCode(b[i], b[i + 1], b[i + 2], b[i + 3]); }
    if (b.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a RIFF/WAVE file");
    var i = 12, format = -1, channels = 0, rate = 0, bits = 0, data = null;
    while (i + 8 <= b.length) {
      var id = tag(i), size = u32(b, i + 4), body = i + 8;
      if (id === "fmt ") {
        if (!(size >= 16 && body + 16 <= b.length)) throw new Error("fmt chunk too short");
        format = u16(b, body); channels = u16(b, body + 2); rate = u32(b, body + 4); bits = u16(b, body + 14);
        if (format === 0xFFFE && size >= 40 && body + 26 <= b.length) format = u16(b, body + 24);
      } else if (id === "data") {
        data = [body, Math.min(b.length, body + size)];
      }
      i = body + size + (size % 2);
    }
    if (format < 0) throw new Error("no fmt chunk");
    if (!data) throw new Error("no data chunk");
    if (!(channels > 0 && rate > 0)) throw new Error("invalid channel count or sample rate");
    var isFloat;
    if (format === 1 && (bits === 8 || bits === 16 || bits === 24 || bits === 32)) isFloat = false;
    else if (format === 3 && (bits === 32 || bits === 64)) isFloat = true;
    else throw new Error("unsupported WAV encoding (format " + format + ", " + bits + " bit); only PCM and IEEE float can be measured");
    var per = bits / 8, n = Math.floor((data[1] - data[0]) / per);
    var view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    var sum = 0, peak = 0, p = data[0], v;
    for (var k = 0; k < n; k++, p += per) {
      if (!isFloat && bits === 8) v = (b[p] - 128) / 128;
      else if (!isFloat && bits === 16) v = view.getInt16(p, true) / 32768;
      else if (!isFloat && bits === 24) v = ((b[p] | b[p + 1] << 8 | b[p + 2] << 16) << 8 >> 8) / 8388608;
      else if (!isFloat) v = view.getInt32(p, true) / 2147483648;
      else if (bits === 32) v = view.getFloat32(p, true);
      else v = view.getFloat64(p, true);
      sum += v * v;
      if (Math.abs(v) > peak) peak = Math.abs(v);
    }
    var rms = n > 0 ? Math.sqrt(sum / n) : 0;
    return { sampleRate: rate, channels: channels, bitsPerSample: bits, frames: Math.floor(n / channels),
             rmsDBFS: rms > 0 ? 20 * Math.log10(rms) : null, peakDBFS: peak > 0 ? 20 * Math.log10(peak) : null };
  }
  function isWAV(b) {
    return b.length >= 12 && String.fromCharCode(b[0], b[1], b[2], b[3]) === "RIFF" && String.fromCharCode(b[8], b[9], b[10], b[11]) === "WAVE";
  }

  /* C's "%.1f": correctly rounded, exact ties (only .25 and .75 are exact in binary) to even. */
  function f1(v) {
    var s = v.toFixed(1);
    if (Number.isInteger(v * 4) && !Number.isInteger(v * 2) && Math.abs(v * 4) % 4 === 1) {
      s = (v < 0 ? "-" : "") + (Math.floor(Math.abs(v) * 10) / 10).toFixed(1);
    }
    return s;
  }

  /* Roles and the path of the first place each media file is used, images first (Experience.mediaPaths). */
  function mediaUses(x) {
    var uses = [], seen = {};
    panoramas(x).forEach(function (p, i) {
      if (typeof p.image === "string" && !seen[p.image]) { seen[p.image] = true; uses.push({ path: p.image, role: "image", at: "panoramas." + i + ".image" }); }
    });
    panoramas(x).forEach(function (p, i) {
      triggers(p).forEach(function (t, j) {
        if (typeof t.media === "string" && !seen[t.media]) { seen[t.media] = true; uses.push({ path: t.media, role: t.kind, at: "panoramas." + i + ".triggers." + j + ".media" }); }
      });
    });
    return uses;
  }

  function media(x, files, fileBytes) {
    var out = [], total = fileBytes || 0, measured = [];
    mediaUses(x).forEach(function (u) {
      var b = files[u.path];
      if (!b) return;
      total += b.length;
      if (u.role === "image") {
        var d = imageSize(b);
        if (d && d.width > LIMITS.safeTextureWidth) {
          out.push(warning(u.at, "image \"" + u.path + "\" is " + d.width + " px wide; above " + LIMITS.safeTextureWidth +
            " px some devices cannot show it (dossier build gives the viewer a copy fitted to " + LIMITS.safeTextureWidth + " px)"));
        }
        if (d && d.width !== 2 * d.height) {
          out.push(warning(u.at, "image \"" + u.path + "\" is " + d.width + "×" + d.height + "; an equirectangular panorama is twice as wide as high"));
        }
      } else if ((u.role === "sound" || u.role === "video") && isWAV(b)) {
        try {
          var level = wavLevel(b);
          if (level.rmsDBFS !== null) measured.push({ use: u, rms: level.rmsDBFS });
        } catch (e) { /* not measurable: the build lists it, no warning */ }
      }
    });
    if (measured.length >= 2) {
      measured.forEach(function (m) {
        var others = measured.filter(function (o) { return o !== m; }).map(function (o) { return o.rms; }).sort(function (a, c) { return a - c; });
        var h = others.length >> 1;
        var median = others.length % 2 === 1 ? others[h] : (others[h - 1] + others[h]) / 2;
        if (m.rms - median > LIMITS.loudnessOutlierDB) {
          out.push(warning(m.use.at, "sound \"" + m.use.path + "\" is " + f1(m.rms - median) + " dB louder (RMS " + f1(m.rms) +
            " dBFS) than the median of the other clips (" + f1(median) + " dBFS)"));
        }
      });
    }
    if (total > LIMITS.budgetBytes) {
      out.push(warning("panoramas", "the experience uses " + total + " bytes, over the budget of " + LIMITS.budgetBytes + " bytes (40 MB)"));
    }
    return out;
  }

  global.DossierChecks = { graph: graph, media: media, wavLevel: wavLevel, imageSize: imageSize, formatOneDecimal: f1, limits: LIMITS };
})(window);
