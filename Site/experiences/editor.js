/* Dossier experience editor (seed F16–F28, adapted to a static page that works from
 * file://). Everything stays in the page: pictures, sounds and videos chosen on the device
 * are read with FileReader; saving downloads a ZIP of the experience file and its media.
 * Rules: Site/experiences/rules.js (the same as `dossier experiences validate`).
 * Behaviour: docs/experience-editor.md. Author text is only ever set as textContent. */
(function () {
  "use strict";
  var R = window.DossierRules, Z = window.DossierZip, P = window.DossierPano, C = window.DossierChecks;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function button(iconName, label, cls) {
    var b = el("button", cls);
    b.type = "button";
    b.appendChild(P.icon(iconName));
    b.appendChild(el("span", null, label));
    return b;
  }
  function slugify(s) {
    var t = String(s).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    return t || "experience";
  }
  function readFile(file, how) {
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () { resolve(r.result); };
      r.onerror = function () { reject(r.error); };
      if (how === "url") r.readAsDataURL(file); else r.readAsArrayBuffer(file);
    });
  }

  var site = JSON.parse($("xe-data").textContent);   // {experiences: [{file, slug, title, kind, owner, base, experience}]}
  var root = $("xe");
  var doc = null;          // the experience being edited (the file format's object)
  var files = {};          // media path → {file, url, ok} for media chosen in this session
  var base = null;         // where an opened site experience's media are ("../<slug>/files/")
  var fileName = null;     // the experience file's name when saved
  var editing = null;      // the site file being edited (excluded from the uniqueness check)
  var dirty = false, current = 0, selected = -1, tool = null;
  var openedErrors = []; // errors of the file as opened (validate's messages) until it is saved
  var arrival = null;      // {trigger} while choosing where a door's traveller faces on arriving

  var stage = new window.DossierEditorStage($("xe-stage"), {
    onPlace: place,
    onSelect: function (i) { if (!arrival) { selected = i; renderTrigger(); } },
    onMove: function (i, yaw, pitch) { if (arrival) return; var t = pano().triggers[i]; t.yaw = yaw; t.pitch = pitch; },
    onMoved: function () { changed(false); },
    onDelete: deleteTrigger
  });

  function pano() { return doc.panoramas[current]; }
  function others() {
    return site.experiences.filter(function (x) { return x.file !== editing; })
      .map(function (x) { return { file: x.file, title: x.title, kind: x.kind, owner: x.owner }; });
  }
  function srcOf(path) { return files[path] ? files[path].url : (base ? base + path : null); }
  function uniquePath(name, folder) {
    var dot = name.lastIndexOf("."), ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
    var stem = slugify(dot > 0 ? name.slice(0, dot) : name);
    var path = folder + stem + "." + ext, n = 2;
    while (files[path] || usedPaths().indexOf(path) >= 0) path = folder + stem + "-" + (n++) + "." + ext;
    return path;
  }
  function usedPaths() {
    var out = [];
    doc.panoramas.forEach(function (p) { out.push(p.image); p.triggers.forEach(function (t) { if (t.media) out.push(t.media); }); });
    return out;
  }
  function mediaFolder() { return "media/" + slugify(fileName ? fileName.replace(/\.json$/i, "") : doc.title || "experience") + "/"; }
  function nextID(prefix, list) {
    var n = 1;
    while (list.some(function (x) { return x.id === prefix + n; })) n++;
    return prefix + n;
  }

  // MARK: Starting (F16, F22: new, a site experience, or a file from the device)

  function start(experience, opts) {
    editing = opts.editing || null;
    // The file as opened, through the same rules as `experiences validate`: errors that the
    // editor's own form cannot hold (an unknown key, a bad firstPanorama) stay listed.
    openedErrors = R.validate(JSON.parse(JSON.stringify(experience)), others()).filter(function (m) { return m.severity === "error"; });
    doc = experience;
    doc.panoramas = doc.panoramas || [];
    doc.panoramas.forEach(function (p, i) { p.id = p.id || "p" + (i + 1); p.triggers = p.triggers || []; });
    files = opts.files || {};
    base = opts.base || null;
    fileName = opts.fileName || null;
    editing = opts.editing || null;
    current = 0; selected = -1; tool = null; dirty = false; arrival = null;
    $("xe-start").hidden = true;
    $("xe-work").hidden = false;
    root.setAttribute("data-state", "editing");
    $("xe-title").value = doc.title || "";
    $("xe-description").value = doc.description || "";
    $("xe-owner").value = doc.owner || "";
    renderAll();
    undo.started();
    $("xe-title").focus();
  }
  function defaultOwner() {
    var owners = {};
    site.experiences.forEach(function (x) { if (x.kind === "custom" && x.owner) owners[x.owner] = true; });
    var k = Object.keys(owners);
    return k.length === 1 ? k[0] : "caretaker";
  }
  $("xe-new").addEventListener("click", function () {
    var owner = defaultOwner();
    start({ title: R.defaultTitle(others(), owner), description: "", kind: "custom", owner: owner, panoramas: [] }, {});
  });
  site.experiences.forEach(function (x, i) {
    var o = el("option", null, x.title + " (" + x.file + ")");
    o.value = String(i);
    $("xe-site-list").appendChild(o);
  });
  if (!site.experiences.length) $("xe-open-site").disabled = true;
  $("xe-open-site").addEventListener("click", function () {
    var x = site.experiences[Number($("xe-site-list").value)];
    if (!x) return;
    start(JSON.parse(JSON.stringify(x.experience)), { base: x.base, fileName: x.file, editing: x.file });
    fetchSiteMedia(x.base);
  });
  /* Served over http(s), the site's copies of the media can be read back: they then count
   * in the checks and go into the download with the experience. From file:// a page cannot
   * read files, so they stay where they are (docs/experience-editor.md, Saving). */
  function fetchSiteMedia(from) {
    if (!/^https?:$/.test(location.protocol)) return;
    var opened = doc;
    usedPaths().forEach(function (path) {
      if (files[path]) return;
      fetch(from + path).then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.arrayBuffer(); }).then(function (buf) {
        if (doc !== opened || files[path]) return;
        files[path] = { bytes: new Uint8Array(buf), url: from + path, ok: true, site: true };
        renderProblems();
      }).catch(function () { /* left out of the download and the checks, as from file:// */ });
    });
  }
  $("xe-open-file").addEventListener("change", function () {
    var list = Array.prototype.slice.call(this.files || []);
    var json = list.filter(function (f) { return /\.json$/i.test(f.name); });
    var msg = $("xe-open-message");
    if (json.length !== 1) { msg.textContent = "Choose one experience file (.json) and, with it, its pictures, sounds and videos."; return; }
    readFile(json[0], "text").then(function (buf) {
      var x;
      try { x = JSON.parse(new TextDecoder().decode(buf)); } catch (e) { msg.textContent = json[0].name + ": not valid JSON (" + e.message + ")"; return; }
      if (!x || typeof x !== "object" || Array.isArray(x)) { msg.textContent = json[0].name + ": not an experience file"; return; }
      var byName = {};
      list.forEach(function (f) { byName[f.name] = f; });
      var found = {}, jobs = [];
      (x.panoramas || []).forEach(function (p) {
        [p.image].concat((p.triggers || []).map(function (t) { return t.media; })).forEach(function (path) {
          if (typeof path !== "string" || found[path]) return;
          var f = byName[path.split("/").pop()];
          if (f) { found[path] = true; jobs.push(attach(path, f).then(function (rec) { found[path] = rec; })); }
        });
      });
      Promise.all(jobs).then(function () {
        var map = {};
        Object.keys(found).forEach(function (k) { if (found[k] && found[k].url) map[k] = found[k]; });
        start(x, { files: map, fileName: json[0].name });
      });
    });
  });
  /* Reads a chosen media file: its preview URL and whether its content matches its name. */
  function attach(path, file) {
    return readFile(file).then(function (buf) {
      var bytes = new Uint8Array(buf);
      var url = /\.(jpe?g|png)$/i.test(path) ? "data:" + (/png$/i.test(path) ? "image/png" : "image/jpeg") + ";base64," + b64(bytes) : URL.createObjectURL(file);
      return { file: file, bytes: bytes, url: url, ok: Z.contentMatches(R.extension(path), bytes.subarray(0, 16)) };
    });
  }
  function b64(bytes) {
    var s = "", CH = 0x8000;
    for (var i = 0; i < bytes.length; i += CH) s += String.fromCharCode.apply(null, bytes.subarray(i, i + CH));
    return btoa(s);
  }

  // MARK: Details (F16, F17)

  $("xe-title").addEventListener("input", function () { doc.title = this.value; changed(false); });
  $("xe-description").addEventListener("input", function () { doc.description = this.value; changed(false); });
  $("xe-owner").addEventListener("input", function () { doc.owner = this.value; changed(false); });

  // MARK: Panoramas (F18, F19, F21)

  $("xe-add-pano").addEventListener("change", function () {
    var list = Array.prototype.slice.call(this.files || []);
    this.value = "";
    var jobs = list.map(function (f) {
      var path = uniquePath(f.name, mediaFolder());
      files[path] = { pending: true };
      return attach(path, f).then(function (rec) {
        files[path] = rec;
        doc.panoramas.push({ id: nextID("p", doc.panoramas), title: (f.name.replace(/\.[^.]*$/, "").slice(0, 60) || "Panorama"), image: path, triggers: [] });
      });
    });
    Promise.all(jobs).then(function () { current = doc.panoramas.length - 1; selected = -1; changed(true); });
  });
  function renderPanos() {
    var ol = $("xe-panos");
    while (ol.firstChild) ol.removeChild(ol.firstChild);
    doc.panoramas.forEach(function (p, i) {
      var li = el("li", "xe-pano" + (i === current ? " is-current" : ""));
      li.setAttribute("data-panorama", p.id);
      var img = el("img");
      img.alt = "";
      var src = srcOf(p.image);
      if (src) img.src = src;
      li.appendChild(img);
      var label = el("label", "xe-pano-title");
      label.appendChild(el("span", "visually-hidden", "Title of panorama " + (i + 1)));
      var input = el("input");
      input.type = "text";
      input.value = p.title;
      input.maxLength = 60;
      input.addEventListener("input", function () { p.title = input.value; changed(false); });
      label.appendChild(input);
      li.appendChild(label);
      var actions = el("div", "xe-pano-actions");
      var edit = button("eye", i === current ? "Shown" : "Show", "xe-show");
      edit.setAttribute("aria-pressed", i === current ? "true" : "false");
      edit.addEventListener("click", function () { current = i; selected = -1; renderAll(); });
      var up = button("up", "Earlier", "xe-up"), down = button("down", "Later", "xe-down");
      up.disabled = i === 0; down.disabled = i === doc.panoramas.length - 1;
      up.addEventListener("click", function () { move(i, -1); });
      down.addEventListener("click", function () { move(i, 1); });
      var del = button("trash", "Delete", "xe-delete");
      del.addEventListener("click", function () {
        confirmDialog("Delete this panorama?", "“" + P.cleanText(p.title) + "”, its sounds, videos and the doors leading to it will be removed.",
          "Yes, delete", "No, keep it").then(function (a) {
          if (a !== "yes") return;
          doc.panoramas.splice(i, 1);
          doc.panoramas.forEach(function (q) { q.triggers = q.triggers.filter(function (t) { return !(t.kind === "door" && t.target === p.id); }); });
          current = Math.max(0, Math.min(current, doc.panoramas.length - 1));
          selected = -1;
          changed(true);
        });
      });
      [edit, up, down, del].forEach(function (b) { actions.appendChild(b); });
      li.appendChild(actions);
      ol.appendChild(li);
    });
    if (!doc.panoramas.length) ol.appendChild(el("li", "xe-empty", "No panoramas yet: add 360° photos (2:1 JPEG or PNG)."));
  }
  function move(i, d) {
    var p = doc.panoramas.splice(i, 1)[0];
    doc.panoramas.splice(i + d, 0, p);
    current = i + d;
    changed(true);
  }

  // MARK: Triggers (F24–F27)

  ["sound", "video", "door"].forEach(function (k) {
    $("xe-tool-" + k).addEventListener("click", function () { setTool(tool === k ? null : k); });
  });
  function setTool(k) {
    tool = k;
    ["sound", "video", "door"].forEach(function (x) { $("xe-tool-" + x).setAttribute("aria-pressed", x === k ? "true" : "false"); });
    $("xe-stage").setAttribute("data-tool", k || "look");
    $("xe-tool-hint").textContent = k ? "Click or tap the picture where the " + k + " should be." : "Drag to look around. Choose a button above to place a sound, a video or a door.";
  }
  function place(d) {
    if (arrival || !tool || !doc.panoramas.length) return;
    var p = pano();
    if (tool === "door" && doc.panoramas.length < 2) {
      $("xe-tool-hint").textContent = "Add the panorama the door leads to first.";
      return;
    }
    var names = { sound: "Sound", video: "Video", door: "Door" };
    var t = { id: nextID("t", p.triggers), kind: tool, yaw: d.yaw, pitch: d.pitch, label: names[tool] + " " + (p.triggers.filter(function (x) { return x.kind === tool; }).length + 1) };
    p.triggers.push(t);
    selected = p.triggers.length - 1;
    setTool(null);
    changed(true);
    var focus = t.kind === "door" ? $("xe-trigger").querySelector("select") : $("xe-trigger").querySelector("input[type=file]");
    if (focus) focus.focus({ preventScroll: true });   // the page stays where the caretaker tapped
  }
  function deleteTrigger(i) {
    pano().triggers.splice(i, 1);
    selected = -1;
    changed(true);
  }
  function renderTrigger() {
    var box = $("xe-trigger");
    while (box.firstChild) box.removeChild(box.firstChild);
    var p = doc.panoramas[current], t = p && p.triggers[selected];
    box.hidden = !t;
    stage.select(t ? selected : -1);
    if (!t) return;
    box.setAttribute("data-kind", t.kind);
    box.appendChild(el("h3", null, { sound: "Sound", video: "Video", door: "Door" }[t.kind] + " at " + t.yaw + "°, " + t.pitch + "°"));
    var lab = el("label", "xe-field", "Label (always shown, 1–40 characters)");
    var li = el("input");
    li.type = "text";
    li.id = "xe-trigger-label";
    li.value = t.label;
    li.maxLength = 40;
    li.addEventListener("input", function () { t.label = li.value; changed(false); stage.refresh(); });
    lab.appendChild(li);
    box.appendChild(lab);
    var sl = el("label", "xe-field", "Size");
    var si = el("input");
    si.type = "range"; si.min = "0.5"; si.max = "3"; si.step = "0.25"; si.value = String(t.size || 1);
    si.id = "xe-trigger-size";
    si.addEventListener("input", function () { var v = Number(si.value); if (v === 1) delete t.size; else t.size = v; changed(false); stage.refresh(); });
    sl.appendChild(si);
    box.appendChild(sl);
    if (t.kind === "door") {
      var dl = el("label", "xe-field", "Leads to");
      var sel = el("select");
      sel.id = "xe-trigger-target";
      var none = el("option", null, "Choose a panorama");
      none.value = "";
      sel.appendChild(none);
      doc.panoramas.forEach(function (q) {
        if (q === p) return;
        var o = el("option", null, q.title + " (" + q.id + ")");
        o.value = q.id;
        sel.appendChild(o);
      });
      sel.value = t.target || "";
      sel.addEventListener("change", function () {
        if (sel.value) t.target = sel.value; else delete t.target;
        delete t.targetYaw; delete t.targetPitch;   // a direction chosen in another panorama means nothing here
        changed(false);
        renderTrigger();
      });
      dl.appendChild(sel);
      box.appendChild(dl);
      box.appendChild(arrivalControls(t));
    } else {
      var fl = el("label", "xe-field", "Choose the " + t.kind + " file (" + (t.kind === "sound" ? R.limits.soundTypes : R.limits.videoTypes).join(", ") + ")");
      var fi = el("input");
      fi.type = "file";
      fi.id = "xe-trigger-file";
      fi.accept = (t.kind === "sound" ? R.limits.soundTypes : R.limits.videoTypes).map(function (x) { return "." + x; }).join(",");
      fi.addEventListener("change", function () {
        var f = fi.files && fi.files[0];
        if (!f) return;
        var path = uniquePath(f.name, mediaFolder());
        attach(path, f).then(function (rec) { files[path] = rec; t.media = path; changed(true); });
      });
      fl.appendChild(fi);
      box.appendChild(fl);
      if (t.media) {
        box.appendChild(el("p", "xe-media-name", t.media));
        var src = srcOf(t.media);
        if (src) {
          var m = el(t.kind === "sound" ? "audio" : "video", "xe-preview");
          m.controls = true;
          m.preload = "metadata";
          m.src = src;
          m.setAttribute("aria-label", "Preview of " + t.label);
          box.appendChild(m);
        }
      }
    }
    if (arrival) return;   // while choosing an arrival direction, only Use and Cancel
    var del = button("trash", "Delete this " + t.kind, "xe-trigger-delete");
    del.addEventListener("click", function () { deleteTrigger(selected); });
    box.appendChild(del);
  }
  /* Where the child faces on arriving through door t: the target's start (default) or a
   * direction chosen by turning the target panorama in the stage (targetYaw/targetPitch). */
  function arrivalControls(t) {
    var box = el("div", "xe-arrival"), target = doc.panoramas.filter(function (q) { return q.id === t.target; })[0];
    var chosen = t.targetYaw !== undefined || t.targetPitch !== undefined;
    var text = !target ? "On arrival: choose where the door leads first." :
      chosen ? "On arrival the child faces " + (t.targetYaw || 0) + "°, " + (t.targetPitch || 0) + "° in “" + P.cleanText(target.title) + "”." :
      "On arrival the child faces where “" + P.cleanText(target.title) + "” starts.";
    var p = el("p", "xe-help", text);
    p.id = "xe-arrival-text";
    box.appendChild(p);
    if (arrival && arrival.trigger === t) {
      var use = button("yes", "Use this direction", "xe-arrival-use xp-primary");
      use.id = "xe-arrival-use";
      use.addEventListener("click", function () { endArrival(true); });
      var cancel = button("no", "Cancel", "xe-arrival-cancel");
      cancel.id = "xe-arrival-cancel";
      cancel.addEventListener("click", function () { endArrival(false); });
      box.appendChild(use);
      box.appendChild(cancel);
      return box;
    }
    var choose = button("eye", "Choose the arrival direction", "xe-arrival-choose");
    choose.id = "xe-arrival-choose";
    choose.disabled = !target;
    choose.addEventListener("click", function () { beginArrival(t, target); });
    box.appendChild(choose);
    if (chosen) {
      var clear = button("no", "Face where it starts", "xe-arrival-clear");
      clear.id = "xe-arrival-clear";
      clear.addEventListener("click", function () { delete t.targetYaw; delete t.targetPitch; changed(false); renderTrigger(); });
      box.appendChild(clear);
    }
    return box;
  }
  function beginArrival(t, target) {
    var src = srcOf(target.image);
    if (!src) return;
    setTool(null);
    arrival = { trigger: t };
    var start = { startYaw: t.targetYaw !== undefined ? t.targetYaw : target.startYaw || 0,
                  startPitch: t.targetPitch !== undefined ? t.targetPitch : target.startPitch || 0 };
    stage.show({ image: target.image, startYaw: start.startYaw, startPitch: start.startPitch, triggers: [] }, src);
    $("xe-stage").setAttribute("data-arrival", target.id);
    $("xe-pano-heading").textContent = "Arriving in " + P.cleanText(target.title) + " through “" + P.cleanText(t.label) + "”";
    $("xe-tool-hint").textContent = "Turn the picture to where the child should look on arriving, then press Use this direction.";
    renderTrigger();
    $("xe-stage").focus();
  }
  function endArrival(use) {
    var t = arrival && arrival.trigger;
    if (!t) return;
    if (use) { var v = stage.setStartHere(); t.targetYaw = v.yaw; t.targetPitch = v.pitch; }
    arrival = null;
    $("xe-stage").removeAttribute("data-arrival");
    if (use) changed(true); else renderAll();
    var again = $("xe-arrival-choose");
    if (again) again.focus();
    if (use) $("xe-tool-hint").textContent = "Arriving through this door, the child now faces " + t.targetYaw + "°, " + t.targetPitch + "°.";
  }
  $("xe-start-here").addEventListener("click", function () {
    var v = stage.setStartHere(), p = pano();
    if (!p || arrival) return;
    if (v.yaw || v.pitch) { p.startYaw = v.yaw; p.startPitch = v.pitch; } else { delete p.startYaw; delete p.startPitch; }
    changed(false);
    $("xe-tool-hint").textContent = "This panorama now starts facing " + v.yaw + "°, " + v.pitch + "°.";
  });

  // MARK: Live validation (the same rules as `dossier experiences validate`)

  /* The experience as it would be saved (keys in the file format's order). */
  function serialize(titleFallback) {
    var out = {};
    var title = doc.title || "";
    if (titleFallback) {
      var bad = R.validate({ title: title, panoramas: [] }, others()).some(function (m) { return m.path === "title"; });
      if (bad || !title.trim()) title = R.defaultTitle(others(), doc.owner);
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
  function problems(x) {
    var list = R.validate(x, others());
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
  function renderProblems() {
    var list = problems(serialize(false)), ul = $("xe-problems");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    list.forEach(function (m) {
      var li = el("li", "xe-problem xe-" + m.severity, (m.severity === "warning" ? "Warning: " : "") + m.message);
      li.setAttribute("data-path", m.path);
      ul.appendChild(li);
    });
    var errs = list.filter(function (m) { return m.severity === "error"; });
    $("xe-status").textContent = errs.length ? errs.length + (errs.length === 1 ? " problem" : " problems") + " to fix before saving." : "Ready to save.";
    root.setAttribute("data-errors", String(errs.length));
    var titleMsg = list.filter(function (m) { return m.path === "title"; })[0];
    $("xe-title").setAttribute("aria-invalid", titleMsg ? "true" : "false");
    $("xe-title-help").textContent = titleMsg ? titleMsg.message : "4–16 characters, unique among the experiences.";
    $("xe-description-count").textContent = R.count(doc.description || "") + " of 128 characters";
  }

  // MARK: Saving and leaving (F22, F28)

  function save() {
    var x = serialize(true), list = problems(x).filter(function (m) { return m.severity === "error"; });
    if (list.length) { $("xe-status").textContent = "Not saved: fix the " + list.length + " problem(s) listed first."; $("xe-problems").focus(); return false; }
    var name = fileName || slugify(x.title) + ".json";
    var entries = [{ name: name, bytes: new TextEncoder().encode(JSON.stringify(x, null, 2) + "\n") }];
    usedPaths().forEach(function (path) {
      if (files[path] && files[path].bytes && !entries.some(function (e) { return e.name === path; })) entries.push({ name: path, bytes: files[path].bytes });
    });
    var blob = Z.zip(entries);
    var a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = name.replace(/\.json$/i, "") + ".zip";
    document.body.appendChild(a);
    a.click();
    a.remove();
    dirty = false;
    openedErrors = [];
    undo.saved();
    root.setAttribute("data-saved", a.download);
    $("xe-status").textContent = "Saved " + a.download + " (" + entries.length + " files): unzip it into the experiences folder of your project (e.g. data/experiences/) and build.";
    return true;
  }
  $("xe-save").addEventListener("click", save);
  $("xe-exit").addEventListener("click", function () {
    if (!dirty) { leave(); return; }
    confirmDialog("Save your changes?", "Yes saves the experience (a .zip download); No discards the changes.", "Yes, save", "No, discard", true).then(function (a) {
      if (a === "yes") { if (save()) leave(); } else if (a === "no") leave();
    });
  });
  function leave() {
    doc = null; dirty = false;
    undo.saved();
    $("xe-work").hidden = true;
    $("xe-start").hidden = false;
    root.setAttribute("data-state", "start");
    $("xe-new").focus();
  }

  /* A modal question; resolves "yes", "no" or "cancel". */
  function confirmDialog(title, text, yes, no, withCancel) {
    var d = $("xe-confirm");
    $("xe-confirm-title").textContent = title;
    $("xe-confirm-text").textContent = text;
    $("xe-confirm-yes").querySelector("span").textContent = yes;
    $("xe-confirm-no").querySelector("span").textContent = no;
    $("xe-confirm-cancel").hidden = !withCancel;
    return new Promise(function (resolve) {
      function done(a) {
        ["yes", "no", "cancel"].forEach(function (k) { $("xe-confirm-" + k).onclick = null; });
        d.close();
        resolve(a);
      }
      ["yes", "no", "cancel"].forEach(function (k) { $("xe-confirm-" + k).onclick = function () { done(k); }; });
      d.oncancel = function (e) { e.preventDefault(); done("cancel"); };
      d.showModal();
      $("xe-confirm-no").focus();
    });
  }

  // MARK: Rendering

  function changed(structural) {
    dirty = true;
    if (structural) renderAll(); else { renderProblems(); if (structural === false && doc.panoramas.length) stage.redraw(); }
    undo.edited();
  }

  // MARK: Undo, redo and the draft kept in the browser (editor-history.js)

  var undo = new window.DossierEditorHistory.Controller({
    root: root, attach: attach, leave: function () { leave(); },
    doc: function () { return doc; },
    state: function () {
      return JSON.stringify({ doc: doc, current: current, selected: selected, fileName: fileName, editing: editing, base: base });
    },
    media: function () {
      var o = {};
      Object.keys(files).forEach(function (k) { var f = files[k]; if (f && f.bytes && !f.site) o[k] = f.bytes; });
      return o;
    },
    apply: function (o) {
      doc = o.doc; current = o.current; selected = o.selected; tool = null; arrival = null; dirty = true;
      $("xe-title").value = doc.title || "";
      $("xe-description").value = doc.description || "";
      $("xe-owner").value = doc.owner || "";
      renderAll();
    },
    reopen: function (o, restored) { start(o.doc, { files: restored, base: o.base, fileName: o.fileName, editing: o.editing }); }
  });
  function renderAll() {
    if (arrival) { arrival = null; $("xe-stage").removeAttribute("data-arrival"); }
    renderPanos();
    var p = doc.panoramas[current];
    $("xe-pano-editor").hidden = !p;
    if (p) {
      $("xe-pano-heading").textContent = "Panorama " + (current + 1) + ": " + P.cleanText(p.title);
      var src = srcOf(p.image);
      if (src) stage.show(p, src);
    }
    renderTrigger();
    renderProblems();
  }
  setTool(null);
  root.setAttribute("data-state", "start");
  root.setAttribute("data-editor", "ready");
  undo.resume();
  window.dossierEditor = {
    serialize: function () { return serialize(true); },
    problems: function () { return problems(serialize(false)); },
    /* media path → bytes known to the page (chosen on the device, or read back from the site) */
    known: function () { var o = {}; Object.keys(files).forEach(function (k) { if (files[k] && files[k].bytes) o[k] = files[k].bytes.length; }); return o; }
  };
})();
