/* Dossier experience rules, mirrored in the browser for the editor.
 *
 * The same rules and the same messages as `dossier experiences validate`
 * (Sources/Experiences/Loader.swift, Collection.swift, Rules.swift); one table of invalid
 * cases (Tests/ExperiencesTests/Fixtures/invalid-cases.json) is checked against both, so
 * they cannot drift. Media files are checked for a safe path and an allowed type here;
 * their content is checked when they are added (see editor.js) and again by the build.
 *
 * DossierRules.validate(experience, others) → [{severity, message, path}]
 *   experience: the parsed JSON object; others: [{file, title, kind, owner}] checked before it. */
(function (global) {
  "use strict";

  var R = {
    titleMin: 4, titleMax: 16, descriptionMax: 128, maxCustomPerOwner: 10,
    labelMax: 40, panoramaTitleMax: 60, noteTextMax: 500, sizeMin: 0.5, sizeMax: 3,
    defaultTitlePrefix: "experience ",
    imageTypes: ["jpeg", "jpg", "png"],
    soundTypes: ["aac", "flac", "m4a", "mp3", "oga", "ogg", "opus", "wav"],
    videoTypes: ["m4v", "mp4", "webm"]
  };

  /* Characters as Swift counts them (user-perceived characters). */
  function count(s) {
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      var n = 0, it = new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s);
      for (var x of it) { n++; } // eslint-disable-line no-unused-vars
      return n;
    }
    return Array.from(s).length;
  }
  /* Swift's `.whitespaces` trim (spaces and tabs and other horizontal spaces). */
  function trimSpaces(s) { return s.replace(/^[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+|[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+$/g, ""); }
  /* Numbers in messages: whole numbers without ".0", else like C's %.3g. */
  function fmt(v) {
    if (v === Math.round(v) && Math.abs(v) < 1e15) return String(v);
    var e = Math.floor(Math.log10(Math.abs(v)));
    if (e < -4 || e >= 3) {
      var m = v.toExponential(2).split("e");
      var mant = m[0].indexOf(".") >= 0 ? m[0].replace(/0+$/, "").replace(/\.$/, "") : m[0];
      var ex = Number(m[1]);
      return mant + "e" + (ex < 0 ? "-" : "+") + (Math.abs(ex) < 10 ? "0" : "") + Math.abs(ex);
    }
    var t = v.toPrecision(3);
    return t.indexOf(".") >= 0 ? t.replace(/0+$/, "").replace(/\.$/, "") : t;
  }
  function typeName(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "a list";
    switch (typeof v) {
      case "string": return "text";
      case "number": return "a number";
      case "boolean": return "true/false";
      default: return "an object";
    }
  }
  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function isValidID(s) { return typeof s === "string" && s.length <= 64 && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(s); }
  function isSafeRelativePath(s) {
    if (!s || s[0] === "/" || !/^[A-Za-z0-9._\/-]+$/.test(s)) return false;
    return !s.split("/").some(function (c) { return c === "" || c === "." || c === ".."; });
  }
  function ext(p) { var i = p.lastIndexOf("."), s = p.lastIndexOf("/"); return i > s && i >= 0 ? p.slice(i + 1).toLowerCase() : ""; }

  function validate(x, others) {
    var out = [];
    function err(path, m) { out.push({ severity: "error", message: m, path: path }); }
    function warn(path, m) { out.push({ severity: "warning", message: m, path: path }); }
    if (!isObject(x)) { err("", "expected an object at the top, found " + typeName(x)); return out; }
    function checkKeys(o, allowed, what, path) {
      Object.keys(o).forEach(function (k) {
        if (allowed.indexOf(k) < 0) err(path + k, "unknown " + what + " key \"" + k + "\" (known: " + allowed.slice().sort().join(", ") + ")");
      });
    }
    function text(o, k, name, path) {
      if (!has(o, k) || o[k] === null) return null;
      if (typeof o[k] !== "string") { err(path + k, name + " must be text, found " + typeName(o[k])); return null; }
      return o[k];
    }
    function checkMedia(p, allowed, what, path) {
      if (!isSafeRelativePath(p)) {
        err(path, what + " \"" + p + "\" must be a relative path inside the experience's folder, using only ASCII letters (a–z, A–Z), digits, '-', '_', '.' and '/'");
        return;
      }
      if (allowed.indexOf(ext(p)) < 0) err(path, what + " \"" + p + "\" is not a playable type (use " + allowed.join(", ") + ")");
    }
    function angle(o, k, lo, hi, path) {
      if (!has(o, k) || o[k] === null) return null;
      if (typeof o[k] !== "number") { err(path + k, k + " must be a number, found " + typeName(o[k])); return null; }
      if (o[k] < lo || o[k] > hi) { err(path + k, k + " " + fmt(o[k]) + " is out of range " + fmt(lo) + "…" + fmt(hi)); return null; }
      return o[k];
    }

    checkKeys(x, ["title", "description", "kind", "owner", "firstPanorama", "finalPanorama", "panoramas"], "experience", "");
    var title = text(x, "title", "title", "");
    if (title !== null && trimSpaces(title) === "") title = null;
    if (title !== null && (count(title) < R.titleMin || count(title) > R.titleMax)) {
      err("title", "title \"" + title + "\" has " + count(title) + " characters; it must have 4 to 16 (spaces count)");
    }
    var description = text(x, "description", "description", "") || "";
    if (count(description) > R.descriptionMax) err("description", "description has " + count(description) + " characters; at most 128 are allowed");
    var kind = "premade";
    var k = text(x, "kind", "kind", "");
    if (k !== null) { if (k === "premade" || k === "custom") kind = k; else err("kind", "kind must be \"premade\" or \"custom\", not \"" + k + "\""); }
    var owner = text(x, "owner", "owner", "");
    if (owner === "") owner = null;
    if (kind === "custom" && owner === null) err("kind", "a custom experience needs an owner");

    if (!has(x, "panoramas")) { err("panoramas", "missing \"panoramas\": an experience needs at least one panorama"); return out; }
    var list = x.panoramas;
    if (!Array.isArray(list)) { err("panoramas", "panoramas must be a list, found " + typeName(list)); return out; }
    if (!list.length) err("panoramas", "an experience needs at least one panorama");
    var seen = {}, ids = [], doors = [];
    list.forEach(function (p, i) {
      var pp = "panoramas." + i + ".";
      if (!isObject(p)) { err(pp, "panorama " + (i + 1) + " must be an object, found " + typeName(p)); return; }
      checkKeys(p, ["id", "title", "image", "triggers", "startYaw", "startPitch"], "panorama", pp);
      var id = text(p, "id", "panorama id", pp);
      if (id === null) id = "p" + (i + 1);
      if (has(p, "id") && !isValidID(id)) err(pp + "id", "panorama id \"" + id + "\" may use only ASCII letters (a–z, A–Z), digits, '-' and '_'");
      if (seen[id]) err(pp + "id", "panorama id \"" + id + "\" is used twice");
      seen[id] = true;
      ids.push(id);
      var pt = text(p, "title", "panorama title", pp) || "";
      if (count(pt) < 1 || count(pt) > R.panoramaTitleMax) err(pp + "title", "panorama \"" + id + "\" needs a title of 1 to 60 characters");
      var image = text(p, "image", "image", pp);
      if (image === null && !has(p, "image")) err(pp + "image", "panorama \"" + id + "\" has no image");
      if (image) checkMedia(image, R.imageTypes, "image", pp + "image");
      if (has(p, "triggers") && p.triggers !== null) {
        if (!Array.isArray(p.triggers)) err(pp + "triggers", "triggers must be a list, found " + typeName(p.triggers));
        else {
          var tids = {};
          p.triggers.forEach(function (t, j) {
            var tr = trigger(t, j, id, pp + "triggers." + j + ".");
            if (!tr) return;
            if (tids[tr.id]) err(pp + "triggers." + j, "trigger id \"" + tr.id + "\" is used twice in panorama \"" + id + "\"");
            tids[tr.id] = true;
            if (tr.kind === "door" && tr.target !== null) doors.push({ from: id, label: tr.label, target: tr.target, path: pp + "triggers." + j + ".target" });
          });
        }
      }
      angle(p, "startYaw", -180, 180, pp);
      angle(p, "startPitch", -90, 90, pp);
    });

    function trigger(t, j, pano, tp) {
      if (!isObject(t)) { err(tp, "trigger " + (j + 1) + " of panorama \"" + pano + "\" must be an object, found " + typeName(t)); return null; }
      checkKeys(t, ["id", "kind", "yaw", "pitch", "size", "label", "media", "target", "targetYaw", "targetPitch", "text"], "trigger", tp);
      var id = typeof t.id === "string" ? t.id : "t" + (j + 1);
      if (has(t, "id") && !isValidID(id)) err(tp + "id", "trigger id \"" + id + "\" may use only ASCII letters (a–z, A–Z), digits, '-' and '_'");
      if (typeof t.kind !== "string") { err(tp + "kind", "trigger " + (j + 1) + " of panorama \"" + pano + "\" needs a kind: sound, video, door or note"); return null; }
      var kind = t.kind;
      if (["sound", "video", "door", "note"].indexOf(kind) < 0) { err(tp + "kind", "trigger kind must be sound, video, door or note, not \"" + kind + "\""); return null; }
      function num(key, lo, hi, required) {
        if (!has(t, key)) { if (required) err(tp + key, "trigger " + (j + 1) + " of panorama \"" + pano + "\" needs " + key); return; }
        if (typeof t[key] !== "number") { err(tp + key, key + " must be a number, found " + typeName(t[key])); return; }
        if (t[key] < lo || t[key] > hi) err(tp + key, key + " " + fmt(t[key]) + " is out of range " + fmt(lo) + "…" + fmt(hi));
      }
      num("yaw", -180, 180, true);
      num("pitch", -90, 90, true);
      num("size", R.sizeMin, R.sizeMax, false);
      var label = typeof t.label === "string" ? t.label : "";
      if (count(trimSpaces(label)) < 1 || count(label) > R.labelMax) {
        err(tp + "label", "trigger " + (j + 1) + " of panorama \"" + pano + "\" needs a text label of 1 to 40 characters");
      }
      if (kind !== "door") ["targetYaw", "targetPitch"].forEach(function (key) { if (has(t, key)) err(tp + key, "only a door has " + key); });
      if (kind !== "note" && has(t, "text")) err(tp + "text", "only a note has text");
      var target = null;
      if (kind === "note") {
        if (has(t, "media")) err(tp + "media", "a note has no media; use text");
        if (has(t, "target")) err(tp + "target", "a note has no target; use text");
        var body = typeof t.text === "string" ? t.text : "";
        if (body.trim() === "" || count(body) > R.noteTextMax) err(tp + "text", "note \"" + label + "\" needs a text of 1 to 500 characters");
      } else if (kind === "door") {
        if (has(t, "media")) err(tp + "media", "a door has no media; use target");
        if (typeof t.target === "string") target = t.target; else err(tp + "target", "door \"" + label + "\" needs a target panorama");
      } else {
        if (has(t, "target")) err(tp + "target", "a " + kind + " trigger has no target; use media");
        if (typeof t.media === "string") checkMedia(t.media, kind === "sound" ? R.soundTypes : R.videoTypes, kind + " file", tp + "media");
        else err(tp + "media", kind + " trigger \"" + label + "\" needs a media file");
      }
      if (kind === "door") { angle(t, "targetYaw", -180, 180, tp); angle(t, "targetPitch", -90, 90, tp); }
      return { id: id, kind: kind, label: label, target: target };
    }

    doors.forEach(function (d) {
      if (ids.indexOf(d.target) < 0) err(d.path, "door \"" + d.label + "\" leads to panorama \"" + d.target + "\", which is not in this experience");
      else if (d.target === d.from) warn(d.path, "door \"" + d.label + "\" leads back to its own panorama \"" + d.from + "\"");
    });
    var f = text(x, "firstPanorama", "firstPanorama", "");
    if (f !== null && ids.indexOf(f) < 0) err("firstPanorama", "firstPanorama \"" + f + "\" is not a panorama of this experience");
    var fin = text(x, "finalPanorama", "finalPanorama", "");
    if (fin !== null && ids.indexOf(fin) < 0) err("finalPanorama", "finalPanorama \"" + fin + "\" is not a panorama of this experience");

    // Rules over the owner's collection (docs/experience-format.md).
    others = others || [];
    function norm(s) { return trimSpaces(s).toLowerCase(); }
    var mine = others.filter(function (o) { return kind === "premade" || o.kind === "premade" || o.owner === owner; });
    if (title !== null) {
      var same = mine.filter(function (o) { return o.title !== undefined && o.title !== null && norm(o.title) === norm(title); })[0];
      if (same) {
        var whose = kind === "custom" ? (owner || "") + "'s collection" : "the premade experiences";
        err("title", "title \"" + title + "\" is already used in " + whose + " by " + same.file);
      }
    }
    if (kind === "custom") {
      var n = others.filter(function (o) { return o.kind === "custom" && (o.owner || "") === (owner || ""); }).length;
      if (n >= R.maxCustomPerOwner) err("kind", (owner || "") + " already has 10 custom experiences; at most 10 are allowed");
    }
    return out;
  }

  /* The default title (F16): "experience N", N the smallest whole number ≥ 1 not taken. */
  function defaultTitle(others, owner) {
    var taken = {};
    (others || []).forEach(function (o) {
      if (o.title && (o.kind === "premade" || !owner || o.owner === owner)) taken[trimSpaces(o.title).toLowerCase()] = true;
    });
    var n = 1;
    while (taken[(R.defaultTitlePrefix + n).toLowerCase()]) n++;
    return R.defaultTitlePrefix + n;
  }

  global.DossierRules = {
    limits: R, validate: validate, defaultTitle: defaultTitle, count: count, fmt: fmt,
    isSafeRelativePath: isSafeRelativePath, isValidID: isValidID, extension: ext
  };
})(typeof window !== "undefined" ? window : this);
