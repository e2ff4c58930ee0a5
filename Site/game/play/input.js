/* RocketMouse kit — timed input (docs/game-kit.md, "Timing").
   Every press is timed by its event's timeStamp (the time the input happened, on the
   same monotonic clock as performance.now()), never by the frame that later draws it.
   A press is: a primary pointer going down (touch, pen, mouse button 0) on the play
   field, or a key going down (not a repeat) that is not Tab, Escape, M or a modifier,
   while the focus is not on a button. Kept apart from the game so the recall kit's timed
   input (DESIGN.md: one script for both kits) can absorb it later. */
(function (RM) {
  "use strict";
  var IGNORED = { Tab: 1, Escape: 1, Shift: 1, Control: 1, Alt: 1, Meta: 1, CapsLock: 1, m: 1, M: 1, ContextMenu: 1 };

  /** ms on the performance clock for an event (old browsers gave epoch ms). */
  function eventTime(ev) {
    var ts = ev.timeStamp;
    if (ts > 1e12) ts -= performance.timeOrigin;
    return ts;
  }

  /** Calls onPress(time, how) for every press on `field` or the keyboard while active(). */
  function attach(field, active, onPress) {
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

  RM.input = { attach: attach, eventTime: eventTime };
})(window.RM = window.RM || {});
