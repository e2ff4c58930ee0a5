/* Dossier recall test kit (docs/recall-kit.md): the test page. Records the dossier-recall/1
   event log of docs/recall-events.md in the browser's localStorage after every event
   (Site/recall/kit/kit-store.js). No network access but the optional sealed upload of a
   finished session (docs/recall-upload.md) and the administrator page's Send. */
(function () {
  "use strict";
  var config = KitStore.config;
  var STRINGS = config.strings, N = STRINGS.length;
  var SETS = config.sets || null;          // several string sets: name → strings
  var CHUNK = KitStore.CHUNK;               // log lines per stored chunk

  // ---- storage (Site/recall/kit/kit-store.js) -------------------------------------------
  var K = KitStore, storageOK = K.storageOK, load = K.load, store = K.store, sessionIds = K.sessionIds;
  /** The set new sessions use: the administrator's choice on this device, else the default. */
  function chosenSet() { var s = load("set"); return SETS && typeof s === "string" && SETS[s] ? s : config.set; }
  /** A session's set (sessions stored before sets were chosen used the default). */
  function setOf(meta) { return meta.set || config.set; }

  if (config.mode !== "test") return;

  // ---- the test -----------------------------------------------------------------------
  var S = null;          // the session being recorded (meta stored after every event)
  var chunk = [];        // the current chunk's lines
  var base = 0;          // add to an event timeStamp to get ms since Begin
  var lastUserT = 0;
  var resuming = false;
  var windowFocus = false;  // the window has just got the focus: the next focusin is not the participant's  // true while a reload restores the page: its automatic focus is not written     // time of the last key / pointer / click: the cause of a focus change

  function $(id) { return document.getElementById(id); }
  /** The strings of the session's set (a set the site no longer has: the default's). */
  function useSet(s) { STRINGS = SETS && SETS[setOf(s)] ? SETS[setOf(s)] : config.strings; showRange(); }
  /** The Verify hint's length range: the shortest and longest string of the set in use. */
  function showRange() {
    var n = STRINGS.map(TimedInput.length), lo = Math.min.apply(null, n), hi = Math.max.apply(null, n);
    $("verify-range").textContent = lo === hi ? lo + " character" + (lo === 1 ? "" : "s") : lo + " to " + hi + " characters";
  }
  /** The string on Memorize, each space in a span that marks it ␣ (kit.css). */
  function showTarget(text) {
    var box = $("target"); box.textContent = "";
    TimedInput.chars(text).forEach(function (c) {
      if (c !== " ") { box.appendChild(document.createTextNode(c)); return; }
      var sp = document.createElement("span"); sp.className = "sp"; sp.textContent = " "; box.appendChild(sp);
    });
  }
  function pages() { return document.querySelectorAll("section[data-page]"); }

  /** ms since Begin for a DOMHighResTimeStamp (or an epoch timeStamp in old browsers). */
  function tOf(ts) {
    var t = ts > 1e12 ? ts - S.t0Epoch : base + ts;
    t = Math.round(t);
    return t < S.lastT ? S.lastT : t;
  }
  function write(obj) {
    if (!S || S.t0Epoch === null || S.ended) return;
    S.lastT = obj.t;
    var line = JSON.stringify(obj);
    chunk.push(line);
    S.lines += 1;
    S.values = currentValues();
    store("s:" + S.id + ":c" + Math.floor((S.lines - 1) / CHUNK), chunk);
    if (chunk.length === CHUNK) chunk = [];
    store("s:" + S.id + ":meta", S);
  }
  function currentValues() {
    var sec = S && sec0(); if (!sec) return [];
    return Array.prototype.map.call(sec.querySelectorAll("input[data-field]"), function (i) { return i.value; });
  }
  function sec0() { return document.querySelector('section[data-page="' + (S ? S.page : "welcome") + '"]'); }
  function fieldsOf(page) { return document.querySelectorAll('section[data-page="' + page + '"] input[data-field]'); }
  function fieldOf(el) {
    if (!el || !el.getAttribute) return null;
    var f = el.getAttribute("data-field"); return f ? parseInt(f, 10) : null;
  }

  // ---- pages --------------------------------------------------------------------------
  function show(page, string, t, values) {
    S && (S.page = page, S.string = string);
    Array.prototype.forEach.call(pages(), function (s) { s.hidden = s.getAttribute("data-page") !== page; });
    var sec = document.querySelector('section[data-page="' + page + '"]');
    Array.prototype.forEach.call(sec.querySelectorAll(".n"), function (e) { e.textContent = String(string); });
    if (page === "memorize") showTarget(STRINGS[string - 1]);
    if (page === "entry") $("entry-message").textContent = "";
    var inputs = sec.querySelectorAll("input[data-field]");
    Array.prototype.forEach.call(inputs, function (inp, i) { inp.value = values ? (values[i] || "") : ""; });
    if (page === "verify") {
      if (!values) S.verifyOK = false;
      setMessage(S.verifyOK ? "ok" : null);
    }
    if (t !== null && t !== undefined && page !== "welcome" && page !== "ready") {
      var ev = { t: t, type: "page", page: page };
      if (string) ev.string = string;
      write(ev);
    }
    refresh();
    var h = sec.querySelector("h1");
    if (page === "verify") { inputs[0].focus(); } else if (h) { h.focus(); }
  }
  function turn(button, t, extra) {
    flush();
    var sec = sec0(), vals = currentValues();
    if (sec.querySelector("input[data-field]") && S.page !== "welcome") write({ t: t, type: "fields", values: vals });
    var ev = { t: t, type: "button", button: button };
    if (extra) for (var k in extra) ev[k] = extra[k];
    write(ev);
  }
  function refresh() {
    if (!S) { $("welcome-done").disabled = !participantOK($("participant").value); return; }
    if (S.page === "verify") {
      var v = fieldsOf("verify")[0].value, need = Math.min(6, TimedInput.length(STRINGS[S.string - 1]));
      $("verify").disabled = TimedInput.length(v) < need;
      $("start-test").disabled = !S.verifyOK;
    }
    if (S.page === "entry") {
      var all = true;
      Array.prototype.forEach.call(fieldsOf("entry"), function (i) { if (i.value.length === 0) all = false; });
      $("entry-done").disabled = !all;
    }
  }
  function setMessage(kind) {
    var m = $("verify-message");
    m.textContent = kind === "ok" ? "OK" : kind === "bad" ? "Not OK" : "";
    m.className = "message" + (kind === "ok" ? " ok" : kind === "bad" ? " bad" : "");
  }
  /** A participant number: 1–12 characters (grapheme clusters), not only spaces. */
  function participantOK(p) { var n = TimedInput.length(p); return n >= 1 && n <= 12 && p.trim().length > 0; }
  function same(a, b) { return a.normalize("NFC") === b.normalize("NFC"); }

  // ---- keys and text (Site/recall/kit/timed-input.js names each key) ---------------------
  var keys = TimedInput.attach(document, {
    field: fieldOf,
    time: function (ts) { return S && S.t0Epoch !== null ? tOf(ts) : null; },
    navigation: function (ev) { return ev.key === "Enter" || ev.key === "Tab"; },
    key: function (ev) {
      lastUserT = ev.t;
      write({ t: ev.t, type: "key", key: ev.key, action: ev.action, text: ev.text, field: ev.field });
      if (ev.action !== "up" && S.page === "verify" && S.verifyOK !== null) { S.verifyOK = false; setMessage(null); }
    }
  });
  function flush() { keys.flush(); }
  // ---- Entry fields take typing only (docs/recall-kit.md, "Paste, drop and dictation") ----
  var REFUSED = { insertFromPaste: 1, insertFromPasteAsQuotation: 1, insertFromDrop: 1, insertFromYank: 1,
                  insertReplacementText: 1, insertFromDictation: 1 };
  var accepted = new WeakMap();   // Entry field → its text after the last change let through
  function isEntryField(el) { return !!(S && S.page === "entry" && fieldOf(el) && el.type === "password"); }
  function refuse(ev) {
    ev.preventDefault();
    ev.stopImmediatePropagation();
    $("entry-message").textContent = "Please type the string key by key. Pasted, dropped or dictated text is not used here.";
  }
  window.addEventListener("paste", function (ev) { if (isEntryField(ev.target)) refuse(ev); }, true);
  window.addEventListener("drop", function (ev) { if (isEntryField(ev.target)) refuse(ev); }, true);
  window.addEventListener("beforeinput", function (ev) {
    if (!isEntryField(ev.target)) return;
    if (!accepted.has(ev.target)) accepted.set(ev.target, ev.target.value);
    if (REFUSED[ev.inputType] || (ev.data && TimedInput.length(ev.data) > 1)) refuse(ev);
  }, true);
  // What cannot be cancelled (an input method committing a whole string): undone before
  // timed-input.js sees it, so nothing is written.
  window.addEventListener("input", function (ev) {
    var el = ev.target; if (!isEntryField(el)) return;
    var before = accepted.has(el) ? accepted.get(el) : "";
    if (TimedInput.length(el.value) - TimedInput.length(before) > 1) { el.value = before; refuse(ev); return; }
    accepted.set(el, el.value);
  }, true);
  window.addEventListener("focusin", function (ev) { if (isEntryField(ev.target)) accepted.set(ev.target, ev.target.value); }, true);
  function onKeyDown(ev) {
    var f = fieldOf(ev.target); if (!S || S.t0Epoch === null || !f) return;
    lastUserT = tOf(ev.timeStamp);
    if (ev.key === "Enter") {
      ev.preventDefault();
      if (S.page === "entry" || S.page === "recall") {
        var list = fieldsOf(S.page); list[f % list.length].focus();   // Next: wraps to field 1
      } else if (S.page === "verify" && !$("verify").disabled) { doVerify(lastUserT); }
    }
  }
  function onInput(ev) { refresh(); }
  function onFocus(ev) {
    var back = windowFocus; windowFocus = false;
    var f = fieldOf(ev.target); if (!S || S.t0Epoch === null || !f || S.page === "welcome" || resuming) return;
    // The page getting the focus back (after a reload, another app, a screen lock) gives the
    // field that had it a focus event of its own: the participant moved nothing.
    if (back) return;
    flush();
    write({ t: Math.max(lastUserT, S.lastT), type: "focus", field: f });
  }
  function onPointer(ev) {
    if (!S || S.t0Epoch === null) return;
    flush();
    lastUserT = tOf(ev.timeStamp);
    var el = ev.target.closest ? ev.target.closest("[data-field],button") : null;
    var target = el ? (el.getAttribute("data-field") ? "field " + el.getAttribute("data-field") : buttonName(el)) : "page";
    write({ t: lastUserT, type: "touch", x: Math.round(ev.clientX * 10) / 10, y: Math.round(ev.clientY * 10) / 10, target: target });
  }

  /** A button's name in the log (the `button` event's name), for a touch's target. */
  var BUTTON_NAMES = { "memorize-next": "next", "back-to-memorize": "memorize", "entry-done": "done", "recall-done": "done",
                       "welcome-done": "done" };
  function buttonName(el) { var a = el.getAttribute("data-action") || el.id; return BUTTON_NAMES[a] || a; }

  // ---- buttons ------------------------------------------------------------------------
  function clickT(ev) { var t = tOf(ev.timeStamp); lastUserT = t; return t; }
  function begin(ev) {
    var id = S.id;
    S.t0Epoch = (ev.timeStamp > 1e12 ? ev.timeStamp : performance.timeOrigin + ev.timeStamp);
    base = performance.timeOrigin - S.t0Epoch;
    S.lastT = 0;
    var header = { type: "session", format: "dossier-recall/1", participant: S.participant,
      device: "browser kit: " + navigator.userAgent, strings: STRINGS };
    if (setOf(S)) header.set = setOf(S);
    chunk = [JSON.stringify(header)]; S.lines = 1;
    store("s:" + id + ":c0", chunk); store("s:" + id + ":meta", S);
    write({ t: 0, type: "button", button: "begin" });
    show("memorize", 1, 0);
  }
  function doVerify(t) {
    flush();
    var text = fieldsOf("verify")[0].value, ok = same(text, STRINGS[S.string - 1]);
    write({ t: t, type: "button", button: "verify", result: ok ? "ok" : "not-ok" });
    S.verifyOK = ok;
    store("s:" + S.id + ":meta", S);
    setMessage(ok ? "ok" : "bad");
    refresh();
    if (!ok) fieldsOf("verify")[0].focus();   // type again at once (the focus event is written)
  }
  var actions = {
    "welcome-done": function (ev) {
      var p = $("participant").value;
      if (!participantOK(p)) return;
      var now = new Date().toISOString();
      S = { id: now.replace(/[^0-9]/g, "") + "-" + Math.floor(Math.random() * 1e6), participant: p, created: now,
            t0Epoch: null, lastT: 0, lines: 0, page: "ready", string: null, verifyOK: false, values: [], finished: false,
            set: chosenSet() };
      useSet(S);
      var ids = sessionIds(); ids.push(S.id); store("index", ids); store("current", S.id);
      store("s:" + S.id + ":meta", S);
      show("ready", null, null);
    },
    "begin": function (ev) { begin(ev); },
    "memorize-next": function (ev) { var t = clickT(ev); turn("next", t); show("verify", S.string, t); },
    "verify": function (ev) { doVerify(clickT(ev)); },
    "back-to-memorize": function (ev) { var t = clickT(ev); turn("memorize", t); show("memorize", S.string, t); },
    "start-test": function (ev) { if (!S.verifyOK) return; var t = clickT(ev); turn("start-test", t); show("entry", S.string, t); },
    "entry-done": function (ev) {
      var t = clickT(ev); turn("done", t);
      if (S.string < N) show("memorize", S.string + 1, t); else show("recall", null, t);
    },
    "recall-done": function (ev) {
      var t = clickT(ev); turn("done", t);
      S.finished = true; show("thankyou", null, t);
      S.ended = true; store("s:" + S.id + ":meta", S);   // nothing is written after Thank You
      if (outbox) {
        K.seal(S.id).then(function (copy) { sealedStatus(); return outbox.enqueue(S.id, copy); })
          .catch(function (e) { $("thankyou-status").textContent = "Could not seal the session: " + (e && e.message || e); });
      }
    }
  };

  // ---- sealed upload of a finished session (docs/recall-upload.md) ----------------------
  var outbox = K.sealing() ? K.queue(null, function () {
    $("thankyou-status").textContent = "Your answers are saved on this device and will be sent later.";
  }, function () { $("thankyou-status").textContent = "Your answers were sent to the study."; }) : null;
  function sealedStatus() {
    if (!config.upload) $("thankyou-status").textContent = "Your answers are saved on this device for the study team.";
  }

  // ---- start or resume ------------------------------------------------------------------
  function start() {
    if (!storageOK) $("storage-warning").hidden = false;
    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("input", onInput, true);
    document.addEventListener("focusin", onFocus, true);
    window.addEventListener("focus", function (ev) {
      // The element's own focus follows in the same task; after it, focus is the participant's again.
      if (ev.target === window) { windowFocus = true; setTimeout(function () { windowFocus = false; }, 0); }
    }, true);
    window.addEventListener("blur", function (ev) { if (ev.target === window) windowFocus = false; }, true);
    document.addEventListener("pointerdown", onPointer, true);
    document.addEventListener("click", function (ev) {
      var b = ev.target.closest ? ev.target.closest("button[data-action]") : null;
      if (b && !b.disabled) { ev.preventDefault(); actions[b.getAttribute("data-action")](ev); }
    });
    document.addEventListener("submit", function (ev) { ev.preventDefault(); });
    var id = load("current"), meta = id ? load("s:" + id + ":meta") : null;
    if (outbox) outbox.send();   // sealed copies still waiting from an earlier visit
    if (meta && !meta.closed) {
      // Resume after a reload or a closed tab (Outstanding Question 10): same page, same fields.
      S = meta;
      useSet(S);
      if (S.t0Epoch !== null) {
        base = performance.timeOrigin - S.t0Epoch;
        chunk = load("s:" + S.id + ":c" + Math.floor(Math.max(S.lines - 1, 0) / CHUNK)) || [];
        if (chunk.length === CHUNK) chunk = [];
        lastUserT = S.lastT;
      }
      resuming = true;
      try { show(S.page, S.string, null, S.values); } finally { resuming = false; }
      return;
    }
    show("welcome", null, null);
  }

  start();
})();
