/* Dossier timed input, shared by both kits (docs/recall-kit.md, "How a key is named";
   docs/game-kit.md, "Timing"). Every time comes from event.timeStamp (the time the input
   happened, on the same monotonic clock as performance.now()), never from the handler or
   the frame that later draws it. Two jobs:
   - presses(): the game's presses — a primary pointer going down on the play field, or a
     key going down that is not Tab, Escape, M or a modifier (docs/game-kit.md);
   - attach(): the recall kit's text fields — turns the browser's
   keyboard and text events in text fields into key events named by the change each made,
   whatever the input path — a hardware key, a soft key that sends its character with the
   keydown, an Android soft key (keyCode 229, key "Unidentified") whose character comes
   through beforeinput/input or an IME composition, a whole word from swipe typing or
   autocorrect, a paste or a drop. Times come from event.timeStamp; key-ups are paired
   with their key-downs by event.code; lengths are counted in characters = extended
   grapheme clusters (as Swift's String.count and docs/recall-measures.md count them). */
var TimedInput = (function () {
  "use strict";
  var segmenter = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

  /** The characters (extended grapheme clusters) of a text; code points in a browser
      without Intl.Segmenter. */
  function chars(s) {
    if (!segmenter) return Array.from(s);
    var out = [];
    for (var it = segmenter.segment(s)[Symbol.iterator](), r = it.next(); !r.done; r = it.next()) out.push(r.value.segment);
    return out;
  }
  function length(s) { return chars(s).length; }

  /** A key's label in the log: space as `space`, Backspace and Delete as `⌫`. */
  function label(k) {
    if (k === " ") return "space";
    if (k === "Backspace" || k === "Delete") return "⌫";
    return k;
  }

  /** The change from one text to the next: characters removed and inserted between the
      longest common prefix and suffix (in characters). */
  function change(before, after) {
    var a = chars(before), b = chars(after), p = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    var s = 0;
    while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    return { removed: a.slice(p, a.length - s), inserted: b.slice(p, b.length - s) };
  }
  /** The name of a change: the last inserted character, `⌫` for a pure deletion, null
      for no change. */
  function nameOf(before, after) {
    if (before === after) return null;
    var c = change(before, after);
    if (c.inserted.length) return label(c.inserted[c.inserted.length - 1]);
    return c.removed.length ? "⌫" : null;
  }

  function isSoft(ev) { return ev.keyCode === 229 || ev.key === "Unidentified" || ev.key === "Process"; }
  function pairId(ev) { return ev.code ? "code:" + ev.code : "keyCode:" + ev.keyCode; }

  /**
   * Listens on `root` (capture phase). `sink` gives:
   *   field(el)  → the field number of an element, or null (not a recorded field);
   *   time(ts)   → ms since time zero for an event.timeStamp, or null while not recording;
   *   key(ev)    → write {t, key, action, text?, field};
   *   navigation(ev) → true for a keydown the page handles itself (Enter, Tab): not written.
   * Returns { flush() } to write a key down still waiting for its change (before a page turn).
   */
  function attach(root, sink) {
    var pending = null;   // the last key down, waiting for the change it makes
    var downs = {};       // pair id → labels of written downs not yet released (null: a down written as a tap)
    var texts = new WeakMap();  // field element → its text as last written

    function known(el) { return texts.has(el) ? texts.get(el) : el.value; }
    function written(el, text) { texts.set(el, text); }
    function remember(id, name) { (downs[id] = downs[id] || []).push(name); }

    /** Writes the pending down with the text it produced (`after`, `inputType` if known). */
    function resolve(after, inputType) {
      var p = pending; pending = null;
      if (!p) return;
      var name = p.soft ? nameOf(p.before, after) : p.key;
      if (name === null) name = label(p.key);
      if (inputType === "insertFromPaste" || inputType === "insertFromDrop") {
        // The key's effect was a paste (Ctrl/Cmd+V): one tap at the key's time, no release.
        var n = nameOf(p.before, after);
        sink.key({ t: p.t, key: n || name, action: "tap", text: after, field: p.field });
        remember(p.id, null);
      } else {
        sink.key({ t: p.t, key: name, action: "down", text: after, field: p.field });
        remember(p.id, name);
      }
      written(p.el, after);
    }
    function flush() { if (pending) resolve(pending.el.value); }

    root.addEventListener("keydown", function (ev) {
      var f = sink.field(ev.target), t = f ? sink.time(ev.timeStamp) : null;
      if (t === null) return;
      if (sink.navigation(ev)) { flush(); return; }
      flush();
      if (ev.repeat) return;   // auto-repeat: the repeated characters arrive as taps
      var soft = isSoft(ev);
      pending = { t: t, key: label(ev.key), id: pairId(ev), field: f, el: ev.target, before: ev.target.value, soft: soft };
      // A hardware key's text arrives in the same task; a soft key's may come later. The
      // timer writes only its own key: input events run before timers, so by then another
      // key (a soft one, waiting for its text) may be pending.
      if (!soft) { var mine = pending; setTimeout(function () { if (pending === mine) flush(); }, 0); }
    }, true);

    root.addEventListener("input", function (ev) {
      var f = sink.field(ev.target), t = f ? sink.time(ev.timeStamp) : null;
      if (t === null) return;
      var el = ev.target, after = el.value;
      if (pending && pending.el === el) { resolve(after, ev.inputType); return; }
      flush();
      var before = known(el), name = nameOf(before, after);
      if (name === null) return;   // a composition committed unchanged: no change, no event
      // A change with no key before it: a suggestion, a swipe word, autocorrect, dictation, a paste.
      sink.key({ t: t, key: name, action: "tap", text: after, field: f });
      written(el, after);
    }, true);

    root.addEventListener("keyup", function (ev) {
      var f = sink.field(ev.target), t = f ? sink.time(ev.timeStamp) : null;
      if (t === null) return;
      if (sink.navigation(ev)) return;
      flush();
      var id = pairId(ev), queue = downs[id];
      var name = queue && queue.length ? queue.shift() : label(ev.key);
      if (name === null) return;   // the release of a key written as a tap
      sink.key({ t: t, key: name, action: "up", field: f });
    }, true);

    root.addEventListener("focusin", function (ev) { if (sink.field(ev.target)) written(ev.target, ev.target.value); }, true);

    return { flush: flush, written: written };
  }

  /** ms on the performance clock for an event (old browsers gave epoch ms). */
  function eventTime(ev) {
    var ts = ev.timeStamp;
    if (ts > 1e12) ts -= performance.timeOrigin;
    return ts;
  }

  var IGNORED = { Tab: 1, Escape: 1, Shift: 1, Control: 1, Alt: 1, Meta: 1, CapsLock: 1, m: 1, M: 1, ContextMenu: 1 };

  /** Calls onPress(time, how) for every press on `field` or the keyboard while active():
      a primary pointer going down (touch, pen, mouse button 0) on the field, or a key
      going down (not a repeat) that is not Tab, Escape, M or a modifier, while the focus
      is not on a button, link or form field. */
  function presses(field, active, onPress) {
    field.addEventListener("pointerdown", function (ev) {
      if (!active() || (ev.pointerType === "mouse" && ev.button !== 0)) return;
      if (ev.target.closest && ev.target.closest("button")) return;
      ev.preventDefault();
      onPress(eventTime(ev), ev.pointerType || "touch");
    });
    // No double-tap zoom, no emulated mouse events after a touch.
    field.addEventListener("touchstart", function (ev) {
      if (active() && !(ev.target.closest && ev.target.closest("button"))) ev.preventDefault();
    }, { passive: false });
    document.addEventListener("keydown", function (ev) {
      if (!active() || ev.repeat || IGNORED[ev.key] || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var t = ev.target;
      if (t && t.closest && t.closest("button, a, input, select, textarea")) return;
      ev.preventDefault();
      onPress(eventTime(ev), "key");
    });
  }

  return { attach: attach, presses: presses, eventTime: eventTime, chars: chars, length: length, nameOf: nameOf,
           label: label };
})();
