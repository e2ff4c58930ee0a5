/* The experience editor's trigger panel: the selected sound, video, door or note's label, size, media file, target, text, and choosing its arrival direction (docs/experience-editor.md). */
(function (global) {
  "use strict";
  var R = global.DossierRules, P = global.DossierPano, U = global.DossierEditorUtil;
  var $ = U.$, el = U.el, button = U.button, attach = U.attach;

  /* ed: the editor's state (doc(), current(), selected(), arrival(), files()) and its parts
   * (stage, changed, render: this panel again, renderAll, srcOf, uniquePath, mediaFolder,
   * deleteTrigger, setTool, setArrival(a)). */
  function render(ed) {
    var doc = ed.doc(), current = ed.current(), selected = ed.selected(), arrival = ed.arrival();
    var stage = ed.stage, changed = ed.changed, renderTrigger = ed.render, srcOf = ed.srcOf;
    var uniquePath = ed.uniquePath, mediaFolder = ed.mediaFolder, deleteTrigger = ed.deleteTrigger;
    var box = $("xe-trigger");
    while (box.firstChild) box.removeChild(box.firstChild);
    var p = doc.panoramas[current], t = p && p.triggers[selected];
    box.hidden = !t;
    stage.select(t ? selected : -1);
    if (!t) return;
    box.setAttribute("data-kind", t.kind);
    box.appendChild(el("h3", null, { sound: "Sound", video: "Video", door: "Door", note: "Note" }[t.kind] + " at " + U.degrees(t.yaw) + ", " + U.degrees(t.pitch)));
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
      box.appendChild(arrivalControls(t, ed));
    } else if (t.kind === "note") {
      box.appendChild(noteText(t, changed));
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
        attach(path, f).then(function (rec) { ed.files()[path] = rec; t.media = path; changed(true); });
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
    del.addEventListener("click", function () { deleteTrigger(ed.selected()); });
    box.appendChild(del);
  }
  /* A note's text (1–500 characters), shown to the child in a dialog; the count as the rules count it. */
  function noteText(t, changed) {
    var wrap = el("div", "xe-note");
    var lab = el("label", "xe-field", "Text of the note (1–500 characters, read with the child)");
    lab.setAttribute("for", "xe-trigger-text");
    var ta = el("textarea");
    ta.id = "xe-trigger-text";
    ta.rows = 4;
    ta.maxLength = R.limits.noteTextMax;
    ta.value = t.text || "";
    ta.setAttribute("aria-describedby", "xe-trigger-text-count");
    var count = el("p", "xe-help", R.count(ta.value) + " of " + R.limits.noteTextMax + " characters");
    count.id = "xe-trigger-text-count";
    ta.addEventListener("input", function () {
      t.text = ta.value;
      count.textContent = R.count(ta.value) + " of " + R.limits.noteTextMax + " characters";
      changed(false);
    });
    [lab, ta, count].forEach(function (x) { wrap.appendChild(x); });
    return wrap;
  }
  /* Where the child faces on arriving through door t: the target's start (default) or a
   * direction chosen by turning the target panorama in the stage (targetYaw/targetPitch). */
  function arrivalControls(t, ed) {
    var doc = ed.doc(), arrival = ed.arrival(), changed = ed.changed, renderTrigger = ed.render;
    var box = el("div", "xe-arrival"), target = doc.panoramas.filter(function (q) { return q.id === t.target; })[0];
    var chosen = t.targetYaw !== undefined || t.targetPitch !== undefined;
    var text = !target ? "On arrival: choose where the door leads first." :
      chosen ? "On arrival the child faces " + U.degrees(t.targetYaw || 0) + ", " + U.degrees(t.targetPitch || 0) + " in “" + P.cleanText(target.title) + "”." :
      "On arrival the child faces where “" + P.cleanText(target.title) + "” starts.";
    var p = el("p", "xe-help", text);
    p.id = "xe-arrival-text";
    box.appendChild(p);
    if (arrival && arrival.trigger === t) {
      var use = button("yes", "Use this direction", "xe-arrival-use xp-primary");
      use.id = "xe-arrival-use";
      use.addEventListener("click", function () { endArrival(ed, true); });
      var cancel = button("no", "Cancel", "xe-arrival-cancel");
      cancel.id = "xe-arrival-cancel";
      cancel.addEventListener("click", function () { endArrival(ed, false); });
      box.appendChild(use);
      box.appendChild(cancel);
      return box;
    }
    var choose = button("eye", "Choose the arrival direction", "xe-arrival-choose");
    choose.id = "xe-arrival-choose";
    choose.disabled = !target;
    choose.addEventListener("click", function () { beginArrival(ed, t, target); });
    box.appendChild(choose);
    if (chosen) {
      var clear = button("no", "Face where it starts", "xe-arrival-clear");
      clear.id = "xe-arrival-clear";
      clear.addEventListener("click", function () { delete t.targetYaw; delete t.targetPitch; changed(false); renderTrigger(); });
      box.appendChild(clear);
    }
    return box;
  }
  /* Choosing a door's arrival direction: the stage shows the target panorama until Use or Cancel. */
  function beginArrival(ed, t, target) {
    var srcOf = ed.srcOf, stage = ed.stage, renderTrigger = ed.render;
    var src = srcOf(target.image);
    if (!src) return;
    ed.setTool(null);
    ed.setArrival({ trigger: t });
    var start = { startYaw: t.targetYaw !== undefined ? t.targetYaw : target.startYaw || 0,
                  startPitch: t.targetPitch !== undefined ? t.targetPitch : target.startPitch || 0 };
    stage.show({ image: target.image, startYaw: start.startYaw, startPitch: start.startPitch, triggers: [] }, src);
    $("xe-stage").setAttribute("data-arrival", target.id);
    $("xe-pano-heading").textContent = "Arriving in " + P.cleanText(target.title) + " through “" + P.cleanText(t.label) + "”";
    $("xe-tool-hint").textContent = "Turn the picture to where the child should look on arriving, then press Use this direction.";
    renderTrigger();
    $("xe-stage").focus();
  }
  function endArrival(ed, use) {
    var arrival = ed.arrival(), stage = ed.stage, changed = ed.changed, renderAll = ed.renderAll;
    var t = arrival && arrival.trigger;
    if (!t) return;
    if (use) { var v = stage.setStartHere(); t.targetYaw = v.yaw; t.targetPitch = v.pitch; }
    ed.setArrival(null);
    $("xe-stage").removeAttribute("data-arrival");
    if (use) changed(true); else renderAll();
    var again = $("xe-arrival-choose");
    if (again) again.focus();
    if (use) $("xe-tool-hint").textContent = "Arriving through this door, the child now faces " + t.targetYaw + "°, " + t.targetPitch + "°.";
  }

  global.DossierEditorTrigger = { render: render };
})(window);
