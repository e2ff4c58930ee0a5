/* The experience viewer's view controls: drag, pinch, wheel, zoom buttons and keys turn and zoom the view; motion controls; play mode (docs/experience-viewer.md). */
(function (global) {
  "use strict";
  var MOTION_KEY = "dossier.experiences.motion";
  function storageGet(k) { try { return window.localStorage.getItem(k); } catch (e) { return null; } }
  function storageSet(k, v) { try { window.localStorage.setItem(k, v); } catch (e) { /* private mode */ } }

  /* Wires the view's controls to the viewer v: {root, stage, state, message, requestDraw,
   * setButton, $, DEG, HFOV, HFOV_MIN, ZOOM_STEP, overlayButtons() (the buttons on the view)}
   * (state is the viewer's own object); returns keyboardPath for the buttons on the view. */
  function attach(v) {
    var root = v.root, stage = v.stage, state = v.state, message = v.message, requestDraw = v.requestDraw;
    var setButton = v.setButton, $ = v.$, DEG = v.DEG, HFOV = v.HFOV, HFOV_MIN = v.HFOV_MIN, ZOOM_STEP = v.ZOOM_STEP;
    var overlayButtons = v.overlayButtons;

    // MARK: Looking around: drag, swipe, arrow keys

    var drag = null;
    stage.addEventListener("pointerdown", function (e) {
      if (e.target.closest && e.target.closest("button")) return;
      drag = { x: e.clientX, y: e.clientY, yaw: state.yaw, pitch: state.pitch, id: e.pointerId };
      try { stage.setPointerCapture(e.pointerId); } catch (err) { /* ignore */ }
      stage.classList.add("is-dragging");
    });
    stage.addEventListener("pointermove", function (e) {
      if (!drag || e.pointerId !== drag.id || pinch) return;
      var r = stage.getBoundingClientRect();
      var perPx = state.hfov / Math.max(1, r.width);
      state.yaw = drag.yaw - (e.clientX - drag.x) * perPx;
      state.pitch = drag.pitch + (e.clientY - drag.y) * perPx;
      requestDraw();
    });
    function endDrag() { drag = null; stage.classList.remove("is-dragging"); }
    stage.addEventListener("pointerup", endDrag);
    stage.addEventListener("pointercancel", endDrag);
    stage.addEventListener("lostpointercapture", endDrag);

    // Zoom (wheel, pinch, + and − keys, the zoom buttons), limited to 40°…100° across.
    function zoom(delta) {
      state.hfov = Math.max(HFOV_MIN, Math.min(HFOV, state.hfov + delta));
      root.setAttribute("data-hfov", (state.hfov / DEG).toFixed(1));
      requestDraw();
    }
    stage.addEventListener("wheel", function (e) { e.preventDefault(); zoom(e.deltaY > 0 ? ZOOM_STEP : -ZOOM_STEP); }, { passive: false });
    $("xp-zoom-in").addEventListener("click", function () { zoom(-ZOOM_STEP); });
    $("xp-zoom-out").addEventListener("click", function () { zoom(ZOOM_STEP); });
    var pointers = {}, pinch = null;
    stage.addEventListener("pointerdown", function (e) {
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      var ids = Object.keys(pointers);
      if (ids.length === 2) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), hfov: state.hfov };
        drag = null;
      }
    });
    stage.addEventListener("pointermove", function (e) {
      if (!pointers[e.pointerId]) return;
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      var ids = Object.keys(pointers);
      if (pinch && ids.length === 2) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        var d = Math.max(1, Math.hypot(a.x - b.x, a.y - b.y));
        zoom(Math.max(HFOV_MIN, Math.min(HFOV, pinch.hfov * pinch.d / d)) - state.hfov);
      }
    });
    ["pointerup", "pointercancel"].forEach(function (n) {
      stage.addEventListener(n, function (e) { delete pointers[e.pointerId]; if (Object.keys(pointers).length < 2) pinch = null; });
    });

    document.addEventListener("keydown", function (e) {
      if (document.querySelector("dialog[open]")) return;
      if (e.key === "+" || e.key === "=") { zoom(-ZOOM_STEP); e.preventDefault(); return; }
      if (e.key === "-" || e.key === "_") { zoom(ZOOM_STEP); e.preventDefault(); return; }
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      var step = 5 * DEG;
      if (e.key === "ArrowLeft") state.yaw -= step;
      else if (e.key === "ArrowRight") state.yaw += step;
      else if (e.key === "ArrowUp") state.pitch += step;
      else if (e.key === "ArrowDown") state.pitch -= step;
      else return;
      e.preventDefault();
      requestDraw();
    });
    window.addEventListener("resize", requestDraw);

    // MARK: Motion controls (F7, F8): off by default, started by a tap, remembered

    var motionButton = $("xp-motion"), motionSetting = $("xp-setting-motion");
    var base = null;
    function onOrientation(e) {
      if (!state.motion || e.alpha === null) return;
      if (!base) base = { alpha: e.alpha, beta: e.beta, yaw: state.yaw, pitch: state.pitch };
      state.yaw = base.yaw - (e.alpha - base.alpha) * DEG;
      state.pitch = base.pitch + (e.beta - base.beta) * DEG;
      requestDraw();
    }
    function setMotion(on, fromTap) {
      function apply(ok) {
        state.motion = on && ok;
        base = null;
        storageSet(MOTION_KEY, on ? "on" : "off");
        motionButton.setAttribute("aria-pressed", state.motion ? "true" : "false");
        setButton(motionButton, "motion", state.motion ? "Motion on" : "Motion off");
        if (motionSetting) motionSetting.checked = on;
        if (state.motion) window.addEventListener("deviceorientation", onOrientation);
        else window.removeEventListener("deviceorientation", onOrientation);
        if (on && !ok) { message.textContent = "Motion controls are not allowed here; drag to look around."; message.hidden = false; }
      }
      var D = window.DeviceOrientationEvent;
      if (on && D && typeof D.requestPermission === "function") {
        if (!fromTap) { apply(false); setButton(motionButton, "motion", "Tap to use motion"); return; }
        D.requestPermission().then(function (r) { apply(r === "granted"); }, function () { apply(false); });
      } else apply(on && !!D);
    }
    motionButton.addEventListener("click", function () { setMotion(!state.motion, true); });
    if (motionSetting) motionSetting.addEventListener("change", function () { setMotion(motionSetting.checked, true); });
    setMotion(storageGet(MOTION_KEY) === "on", false);

    // MARK: Play mode: the view alone on the screen (Full Screen API where allowed)

    var playButton = $("xp-play"), bar = root.querySelector(".xp-bar"), main = root.querySelector(".xp-main");
    var inerted = [];
    /* The buttons on the view: the keyboard and screen-reader path in play mode (the list is
       hidden there); beside the list, out of the tab order and hidden from screen readers
       so each trigger is announced once. */
    function keyboardPath(b) {
      var play = root.classList.contains("xp-play");
      b.tabIndex = play ? 0 : -1;
      if (play) b.removeAttribute("aria-hidden"); else b.setAttribute("aria-hidden", "true");
    }
    function setPlay(on, fromTap) {
      root.classList.toggle("xp-play", on);
      // Tab reaches the triggers first: the bar after the view, the page under it inert.
      var held = bar.contains(document.activeElement) ? document.activeElement : null;
      if (on) root.appendChild(bar); else root.insertBefore(bar, main);
      if (held) held.focus({ preventScroll: true });   // moving the bar must not drop the focus
      stage.tabIndex = on ? -1 : 0;
      inerted.forEach(function (e) { e.inert = false; });
      inerted = [];
      for (var n = root; on && n && n.parentElement; n = n.parentElement) {
        Array.prototype.forEach.call(n.parentElement.children, function (c) {
          if (c !== n && !c.inert && c.tagName !== "SCRIPT") { c.inert = true; inerted.push(c); }
        });
      }
      overlayButtons().forEach(function (o) { keyboardPath(o.button); });
      document.documentElement.classList.toggle("xp-playing", on);
      root.setAttribute("data-play", on ? "true" : "false");
      setButton(playButton, on ? "list" : "fullscreen", on ? "Show the list" : "Play full screen");
      playButton.setAttribute("aria-pressed", on ? "true" : "false");
      if (fromTap) {
        try {
          if (on && root.requestFullscreen && !document.fullscreenElement) root.requestFullscreen().catch(function () {});
          else if (!on && document.fullscreenElement && document.exitFullscreen) document.exitFullscreen().catch(function () {});
        } catch (e) { /* not allowed here: the fixed layout still fills the window */ }
      }
      requestDraw();
    }
    playButton.addEventListener("click", function () { setPlay(!root.classList.contains("xp-play"), true); });
    document.addEventListener("fullscreenchange", function () { if (!document.fullscreenElement && root.classList.contains("xp-play")) requestDraw(); });
    setPlay(/[?&]play=1(&|$)/.test(window.location.search), false);

    return { keyboardPath: keyboardPath };
  }

  global.DossierViewerLook = { attach: attach };
})(window);
