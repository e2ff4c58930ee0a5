/* Dossier experience editor (seed F16–F28, adapted to a static page that works from
 * file://). Everything stays in the page: pictures, sounds and videos chosen on the device
 * are read with FileReader; saving downloads a ZIP of the experience file and its media.
 * Rules: Site/experiences/rules.js (the same as `dossier experiences validate`).
 * Behaviour: docs/experience-editor.md. Author text is only ever set as textContent. */
(function () {
  "use strict";
  var R = window.DossierRules, Z = window.DossierZip, P = window.DossierPano;

  var U = window.DossierEditorUtil, EP = window.DossierEditorProblems;
  var $ = U.$, el = U.el, button = U.button, slugify = U.slugify, readFile = U.readFile, attach = U.attach, confirmDialog = U.confirmDialog;

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
    onMoved: function () { changed(false); renderTrigger(); },   // the panel's heading names the new place
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
    // A file or site experience as opened, through the same rules as `experiences validate`: errors
    // the editor's own form cannot hold (an unknown key, a bad firstPanorama) stay listed. A new
    // experience (and its draft) was not opened from a file, so it has none.
    openedErrors = !opts.opened ? [] : R.validate(JSON.parse(JSON.stringify(experience)), others())
      .filter(function (m) { return m.severity === "error"; });
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
  if (!site.experiences.length) {   // nothing to open: say so instead of an empty list and a dead button
    ["xe-open-site", "xe-site-list"].forEach(function (id) { $(id).hidden = true; });
    document.querySelector("label[for=xe-site-list]").hidden = true;
    $("xe-site-none").hidden = false;
  }
  $("xe-open-site").addEventListener("click", function () {
    var x = site.experiences[Number($("xe-site-list").value)];
    if (!x) return;
    start(JSON.parse(JSON.stringify(x.experience)), { base: x.base, fileName: x.file, editing: x.file, opened: true });
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
        start(x, { files: map, fileName: json[0].name, opened: true });
      });
    });
  });

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

  var TOOLS = { sound: "Sound", video: "Video", door: "Door", note: "Note" };
  Object.keys(TOOLS).forEach(function (k) {
    $("xe-tool-" + k).addEventListener("click", function () { setTool(tool === k ? null : k); });
  });
  function setTool(k) {
    tool = k;
    Object.keys(TOOLS).forEach(function (x) { $("xe-tool-" + x).setAttribute("aria-pressed", x === k ? "true" : "false"); });
    $("xe-stage").setAttribute("data-tool", k || "look");
    $("xe-tool-hint").textContent = k ? "Click or tap the picture where the " + k + " should be." :
      "Drag to look around. Choose a button above to place a sound, a video, a door or a note.";
  }
  function place(d) {
    if (arrival || !tool || !doc.panoramas.length) return;
    var p = pano();
    if (tool === "door" && doc.panoramas.length < 2) {
      $("xe-tool-hint").textContent = "Add the panorama the door leads to first.";
      return;
    }
    var n = p.triggers.filter(function (x) { return x.kind === tool; }).length + 1;
    var t = { id: nextID("t", p.triggers), kind: tool, yaw: d.yaw, pitch: d.pitch, label: TOOLS[tool] + " " + n };
    p.triggers.push(t);
    selected = p.triggers.length - 1;
    setTool(null);
    changed(true);
    var focus = $("xe-trigger").querySelector({ door: "select", note: "textarea" }[t.kind] || "input[type=file]");
    if (focus) focus.focus({ preventScroll: true });   // the page stays where the caretaker tapped
  }
  function deleteTrigger(i) {
    pano().triggers.splice(i, 1);
    selected = -1;
    changed(true);
  }
  var triggerPanel = {
    doc: function () { return doc; }, current: function () { return current; }, selected: function () { return selected; },
    arrival: function () { return arrival; }, files: function () { return files; },
    stage: stage, changed: changed, render: renderTrigger, srcOf: srcOf, uniquePath: uniquePath, mediaFolder: mediaFolder,
    deleteTrigger: deleteTrigger, setTool: setTool, renderAll: renderAll,
    setArrival: function (a) { arrival = a; }
  };
  /* The selected trigger's panel (editor-trigger.js). */
  function renderTrigger() { window.DossierEditorTrigger.render(triggerPanel); }
  $("xe-start-here").addEventListener("click", function () {
    var v = stage.setStartHere(), p = pano();
    if (!p || arrival) return;
    if (v.yaw || v.pitch) { p.startYaw = v.yaw; p.startPitch = v.pitch; } else { delete p.startYaw; delete p.startPitch; }
    changed(false);
    $("xe-tool-hint").textContent = "This panorama now starts facing " + U.degrees(v.yaw) + ", " + U.degrees(v.pitch) + ".";
  });

  // MARK: Live validation (the same rules as `dossier experiences validate`)

  /* The experience as it would be saved, and its problems (editor-problems.js). */
  function serialize(titleFallback) { return EP.serialize(doc, others(), titleFallback); }
  function problems(x) { return EP.problems(x, others(), openedErrors, files, base); }
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
    reopen: function (o, restored) {   // a draft of an opened file keeps its file-as-opened checks; a new one has none
      start(o.doc, { files: restored, base: o.base, fileName: o.fileName, editing: o.editing, opened: !!(o.fileName || o.editing) });
    }
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
