/* The experience editor's panorama stage: shows one panorama (WebGL, or flat when the
 * picture cannot be used by WebGL), draws its triggers as markers, and turns clicks, taps
 * and drags into placing, moving and looking around (docs/experience-editor.md). */
(function (global) {
  "use strict";
  var P = global.DossierPano, DEG = P.DEG;
  var TAP_PX = 6;   // a press that moves less than this is a click or tap, not a drag
  var HFOV_MIN = 40, HFOV_MAX = 100, ZOOM_STEP = 10;   // zoom as in the viewer (degrees)

  /* opts: {onPlace(yaw, pitch), onSelect(index), onMove(index, yaw, pitch), onMoved(index), onDelete(index)} */
  function Stage(root, opts) {
    var canvas = root.querySelector("canvas"), flat = root.querySelector(".xe-flat"), layer = root.querySelector(".xe-markers");
    var renderer = null, mode = "webgl";
    try { renderer = new P.GLRenderer(canvas); } catch (e) { mode = "flat"; }
    var view = { yaw: 0, pitch: 0, hfov: 100 * DEG };
    var pano = null, markers = [], selected = -1, imageSrc = null, imageState = null, pending = false;
    var self = this;

    function rect() { return root.getBoundingClientRect(); }
    function setMode(m) {
      mode = m;
      canvas.hidden = m !== "webgl";
      flat.hidden = m !== "flat";
      root.setAttribute("data-render-mode", m);
    }
    setMode(mode);

    this.view = view;
    this.mode = function () { return mode; };
    /* Shows panorama p ({image src, startYaw, startPitch, triggers}). Showing the same
       panorama again (after an edit) keeps the view where it is: direction and zoom. */
    this.show = function (p, src) {
      var same = p === pano && src === imageSrc;
      pano = p;
      if (!same) {
        view.yaw = (p.startYaw || 0) * DEG;
        view.pitch = (p.startPitch || 0) * DEG;
        view.hfov = HFOV_MAX * DEG;
        root.setAttribute("data-hfov", HFOV_MAX.toFixed(2));   // another panorama starts wide again
      }
      root.removeAttribute("data-ready");
      if (src !== imageSrc) {
        imageSrc = src;
        imageState = null;   // loading: not ready until it has loaded and been drawn
        var img = new Image();
        img.onload = function () {
          if (imageSrc !== src) return;
          var m = "flat";
          if (renderer) { try { renderer.setImage(img); m = "webgl"; } catch (e) { m = "flat"; } }
          setMode(m);
          flat.style.backgroundImage = "url(\"" + String(src).replace(/["\\]/g, "") + "\")";
          imageState = "true";
          draw();   // drawn before it says so: data-ready means the picture and data-yaw/data-pitch are there
          root.setAttribute("data-ready", imageState);
        };
        img.onerror = function () {
          if (imageSrc !== src) return;
          imageState = "error";
          root.setAttribute("data-ready", imageState);
        };
        img.src = src;
      }
      this.refresh();
      // The same picture again (an edit): ready as it was, once redrawn; still loading: not yet.
      if (imageState) root.setAttribute("data-ready", imageState);
    };
    /* Rebuilds the markers from the panorama's triggers. */
    this.refresh = function () {
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      markers = [];
      (pano ? pano.triggers : []).forEach(function (t, i) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "xe-marker xp-kind-" + t.kind + (i === selected ? " is-selected" : "");
        b.setAttribute("data-index", String(i));
        b.setAttribute("data-kind", t.kind);
        b.setAttribute("aria-pressed", i === selected ? "true" : "false");
        b.style.setProperty("--xp-size", String(t.size || 1));
        b.appendChild(P.icon(t.kind));
        var span = document.createElement("span");
        span.textContent = P.cleanText(t.label);
        b.appendChild(span);
        b.setAttribute("aria-label", P.cleanText(t.label) + " (" + t.kind + "): arrow keys move it, Delete removes it");
        layer.appendChild(b);
        markers.push(b);
      });
      draw();
    };
    this.select = function (i) { selected = i; this.refresh(); };
    this.setStartHere = function () { return { yaw: round(view.yaw / DEG), pitch: round(view.pitch / DEG) }; };
    this.redraw = redraw;

    function round(v) { return Math.round(v * 100) / 100 || 0; }
    function redraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }
    function draw() {
      var r = rect();
      var vfov = 2 * Math.atan(Math.tan(view.hfov / 2) / Math.max(0.1, r.width / Math.max(1, r.height)));
      var mp = Math.max(0, Math.PI / 2 - vfov / 2);
      view.pitch = Math.max(-mp, Math.min(mp, view.pitch));
      view.yaw = P.wrapDeg(view.yaw / DEG) * DEG;
      if (mode === "webgl" && renderer) {
        var dpr = Math.min(window.devicePixelRatio || 1, 2);
        var w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
        if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
        renderer.draw(view.yaw, view.pitch, view.hfov);
      } else {
        flat.style.backgroundSize = (2 * r.height) + "px " + r.height + "px";
        flat.style.backgroundPosition = (r.width / 2 - (view.yaw / (2 * Math.PI) + 0.5) * 2 * r.height) + "px 0px";
      }
      markers.forEach(function (b, i) {
        var t = pano.triggers[i];
        var s = P.project(t.yaw, t.pitch, view, r.width, r.height, mode);
        var inside = s.visible && s.x > -40 && s.x < r.width + 40 && s.y > -40 && s.y < r.height + 40;
        b.hidden = !inside;
        if (inside) { b.style.left = s.x + "px"; b.style.top = s.y + "px"; }
      });
      root.setAttribute("data-yaw", (view.yaw / DEG).toFixed(2));
      root.setAttribute("data-pitch", (view.pitch / DEG).toFixed(2));
    }
    function direction(e) {
      var r = rect();
      var d = P.unproject(e.clientX - r.left, e.clientY - r.top, view, r.width, r.height, mode);
      return { yaw: round(d.yaw), pitch: round(Math.max(-90, Math.min(90, d.pitch))) };
    }

    // Pointer: press on a marker selects and drags it; press on the picture drags the view
    // or, without moving, places the chosen trigger (click or tap).
    var press = null, pointers = {}, pinch = null;
    /* The click that follows a placing tap lands wherever the finger is once the trigger's
       panel has opened; outside the picture it is swallowed, so it never presses a control
       of the panel (the listener is gone by the next press whether a click came or not). */
    var swallow = null;
    function swallowNextClick() {
      swallow = function (ev) {
        if (!root.contains(ev.target)) { ev.preventDefault(); ev.stopPropagation(); }
        forget();
      };
      window.addEventListener("click", swallow, true);
    }
    function forget() { if (swallow) { window.removeEventListener("click", swallow, true); swallow = null; } }
    window.addEventListener("pointerdown", forget, true);
    ["in", "out"].forEach(function (k) {
      var b = root.querySelector("#xe-zoom-" + k);
      if (b) b.addEventListener("click", function (e) { e.stopPropagation(); self.zoom(k === "in" ? -ZOOM_STEP : ZOOM_STEP); });
    });
    root.addEventListener("pointerdown", function (e) {
      if (e.target.closest && e.target.closest(".xp-zoom")) return;   // the zoom buttons are not the picture
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      var ids = Object.keys(pointers);
      if (ids.length === 2) {   // two fingers: a pinch zooms; no drag, no placing
        var a = pointers[ids[0]], b = pointers[ids[1]];
        pinch = { d: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), hfov: view.hfov / DEG };
        press = null;
        return;
      }
      if (!pano || e.button > 0) return;
      var m = e.target.closest ? e.target.closest(".xe-marker") : null;
      press = { x: e.clientX, y: e.clientY, id: e.pointerId, moved: false, yaw: view.yaw, pitch: view.pitch,
                marker: m ? Number(m.getAttribute("data-index")) : -1 };
      if (press.marker >= 0) { selected = press.marker; opts.onSelect(press.marker); }
      try { root.setPointerCapture(e.pointerId); } catch (err) { /* ignore */ }
      e.preventDefault();
    });
    root.addEventListener("pointermove", function (e) {
      if (pointers[e.pointerId]) pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      if (pinch) {
        var ids = Object.keys(pointers);
        if (ids.length === 2) {
          var a = pointers[ids[0]], b = pointers[ids[1]];
          setHfov(pinch.hfov * pinch.d / Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)));
        }
        return;
      }
      if (!press || e.pointerId !== press.id) return;
      if (!press.moved && Math.hypot(e.clientX - press.x, e.clientY - press.y) < TAP_PX) return;
      press.moved = true;
      if (press.marker >= 0) {
        var d = direction(e);
        opts.onMove(press.marker, d.yaw, d.pitch);
      } else {
        var perPx = view.hfov / Math.max(1, rect().width);
        view.yaw = press.yaw - (e.clientX - press.x) * perPx;
        view.pitch = press.pitch + (e.clientY - press.y) * perPx;
      }
      redraw();
    });
    function end(e) {
      delete pointers[e.pointerId];
      if (Object.keys(pointers).length < 2) pinch = null;
      if (!press || e.pointerId !== press.id) return;
      var p = press;
      press = null;
      if (p.marker >= 0) { if (p.moved) opts.onMoved(p.marker); return; }
      if (!p.moved && e.type === "pointerup") { swallowNextClick(); opts.onPlace(direction(e)); }
    }
    /* Zoom: the field of view within 40°…100°, by the wheel (10° a notch), a pinch, the
       + and − keys and the Closer/Wider buttons. */
    function setHfov(deg) {
      view.hfov = Math.max(HFOV_MIN, Math.min(HFOV_MAX, deg)) * DEG;
      root.setAttribute("data-hfov", (view.hfov / DEG).toFixed(2));
      redraw();
    }
    this.zoom = function (deltaDeg) { setHfov(view.hfov / DEG + deltaDeg); };
    root.addEventListener("wheel", function (e) {
      if (!pano) return;
      e.preventDefault();
      setHfov(view.hfov / DEG + (e.deltaY > 0 ? ZOOM_STEP : -ZOOM_STEP));
    }, { passive: false });
    root.addEventListener("pointerup", end);
    root.addEventListener("pointercancel", end);

    // Keyboard: arrows turn the view; on a marker they move it (Shift: 5°), Delete removes it.
    root.addEventListener("keydown", function (e) {
      if (e.key === "+" || e.key === "=") { e.preventDefault(); setHfov(view.hfov / DEG - ZOOM_STEP); return; }
      if (e.key === "-" || e.key === "_") { e.preventDefault(); setHfov(view.hfov / DEG + ZOOM_STEP); return; }
      var m = e.target.closest ? e.target.closest(".xe-marker") : null;
      var step = e.shiftKey ? 5 : 1;
      var dx = e.key === "ArrowLeft" ? -step : e.key === "ArrowRight" ? step : 0;
      var dy = e.key === "ArrowUp" ? step : e.key === "ArrowDown" ? -step : 0;
      if (m) {
        var i = Number(m.getAttribute("data-index")), t = pano.triggers[i];
        if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); opts.onDelete(i); return; }
        if (!dx && !dy) return;
        e.preventDefault();
        opts.onMove(i, round(P.wrapDeg(t.yaw + dx)), round(Math.max(-90, Math.min(90, t.pitch + dy))));
        opts.onMoved(i);
        var again = layer.querySelector("[data-index='" + i + "']");
        if (again) again.focus();
        return;
      }
      if (!dx && !dy) return;
      e.preventDefault();
      view.yaw += dx * 5 * DEG;
      view.pitch += dy * 5 * DEG;
      redraw();
    });
    window.addEventListener("resize", redraw);
    self.draw = draw;
  }

  global.DossierEditorStage = Stage;
})(window);
