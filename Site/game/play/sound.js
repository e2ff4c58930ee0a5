/* RocketMouse kit — sound: short synthesised blips (no audio files), only when the
   player's volume is on. Volume starts off when the system asks for reduced motion. */
(function (RM) {
  "use strict";
  var ctx = null, played = 0, on = !(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

  function blip(freq, ms, type) {
    if (!on) return null;
    try {
      if (!ctx) ctx = new (window.AudioContext || window.webkitAudioContext)();
      if (ctx.state === "suspended") ctx.resume();
      var o = ctx.createOscillator(), g = ctx.createGain(), t = ctx.currentTime;
      o.type = type || "square"; o.frequency.setValueAtTime(freq, t);
      o.frequency.exponentialRampToValueAtTime(freq * 1.6, t + ms / 1000);
      g.gain.setValueAtTime(0.08, t); g.gain.exponentialRampToValueAtTime(0.001, t + ms / 1000);
      o.connect(g); g.connect(ctx.destination); o.start(t); o.stop(t + ms / 1000);
      played += 1;
      return null;
    } catch (e) { return "audio: " + (e && e.name || "unavailable"); }
  }

  RM.sound = {
    isOn: function () { return on; },
    set: function (v) { on = !!v; if (!on && ctx) { ctx.suspend(); } },
    /** Each returns an error message for the session's error log, or null. */
    jump: function () { return blip(440, 120, "square"); },
    hit: function () { return blip(110, 220, "sawtooth"); },
    /** How many sounds were started since the page loaded (the tests: the toggle is obeyed). */
    played: function () { return played; }
  };
})(window.RM = window.RM || {});
