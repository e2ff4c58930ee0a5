/* The experience editor's live checks: the experience as it would be saved, and the problems the build would report about it (docs/experience-editor.md). */
(function (global) {
  "use strict";
  var R = global.DossierRules, C = global.DossierChecks;

  /* others: the site's other experiences ({file, title, kind, owner}); files: media path →
   * {bytes, ok, …} chosen or read back in this session; base: where a site experience's media are. */
  /* The experience as it would be saved (keys in the file format's order). */
  function serialize(doc, others, titleFallback) {
    var out = {};
    var title = doc.title || "";
    if (titleFallback) {
      var bad = R.validate({ title: title, panoramas: [] }, others).some(function (m) { return m.path === "title"; });
      if (bad || !title.trim()) title = R.defaultTitle(others, doc.owner);
    }
    if (title.trim()) out.title = title;
    if (doc.description) out.description = doc.description;
    out.kind = doc.kind || "custom";
    if (doc.owner) out.owner = doc.owner;
    if (doc.panoramas.length) out.firstPanorama = doc.panoramas[0].id;
    if (doc.finalPanorama && doc.panoramas.some(function (p) { return p.id === doc.finalPanorama; })) out.finalPanorama = doc.finalPanorama;
    out.panoramas = doc.panoramas.map(function (p) {
      var q = { id: p.id, title: p.title, image: p.image };
      if (p.startYaw || p.startPitch) { q.startYaw = p.startYaw || 0; q.startPitch = p.startPitch || 0; }
      q.triggers = p.triggers.map(function (t) {
        var u = { id: t.id, kind: t.kind, yaw: t.yaw, pitch: t.pitch };
        ["size", "label", "media", "target", "targetYaw", "targetPitch", "text"].forEach(function (k) { if (t[k] !== undefined) u[k] = t[k]; });
        return u;
      });
      return q;
    });
    return out;
  }
  function problems(x, others, openedErrors, files, base) {
    var list = R.validate(x, others);
    openedErrors.forEach(function (m) {
      if (list.some(function (n) { return n.message === m.message; })) return;
      list.push({ severity: "warning", path: m.path, message: "In the file as opened (saving writes it corrected): " + m.message });
    });
    x.panoramas.forEach(function (p, i) {
      [["image", p.image]].concat(p.triggers.map(function (t, j) { return ["triggers." + j + ".media", t.media]; })).forEach(function (m) {
        var f = m[1] && files[m[1]];
        if (!m[1]) return;
        if (f && f.ok === false) list.push({ severity: "error", path: "panoramas." + i + "." + m[0], message: "\"" + m[1] + "\" is not a playable ." + R.extension(m[1]) + " file (its content does not match its name)" });
        if (!f && !base) list.push({ severity: "warning", path: "panoramas." + i + "." + m[0], message: "\"" + m[1] + "\" was not chosen with the experience file, so it is not in the download: add it beside the file" });
      });
    });
    // The build's own checks: door graph, image sizes, size budget, sound levels.
    var known = {};
    Object.keys(files).forEach(function (path) { if (files[path] && files[path].bytes) known[path] = files[path].bytes; });
    var size = new TextEncoder().encode(JSON.stringify(x, null, 2) + "\n").length;
    return list.concat(C.graph(x), C.media(x, known, size));
  }

  global.DossierEditorProblems = { serialize: serialize, problems: problems };
})(window);
