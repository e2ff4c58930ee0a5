/* Dossier experience viewer: 360° equirectangular panoramas with sound, video and door
 * triggers. Plain JavaScript, no framework, works from file:// (the experience data is
 * embedded in the page as <script type="application/json" id="xp-data">).
 *
 * Everything an author typed (titles, labels, descriptions) is shown with textContent,
 * never as markup. See docs/experience-viewer.md for the behaviour this implements. */
(function () {
  "use strict";

  var DEG = Math.PI / 180;

  // MARK: - Small DOM helpers

  var P = window.DossierPano, icon = P.icon, GLRenderer = P.GLRenderer, wrapDeg = P.wrapDeg, clean = P.cleanText;
  var $ = P.byId, el = P.el;
  /* Zoom: the horizontal field of view, 100° at the start, limited to 40°…100°. */
  var HFOV = 100 * Math.PI / 180, HFOV_MIN = 40 * Math.PI / 180, ZOOM_STEP = 10 * Math.PI / 180;
  function iconButton(name, label, cls) {
    var b = el("button", cls);
    b.type = "button";
    b.appendChild(icon(name));
    b.appendChild(el("span", "xp-button-text", label));
    return b;
  }
  function setButton(b, name, label) {
    while (b.firstChild) b.removeChild(b.firstChild);
    b.appendChild(icon(name));
    b.appendChild(el("span", "xp-button-text", label));
  }

  // MARK: - The viewer

  function Viewer(root) {
    var data = JSON.parse($("xp-data").textContent);
    var self = this;
    var panos = {};
    data.panoramas.forEach(function (p) { panos[p.id] = p; });
    var state = { pano: null, yaw: 0, pitch: 0, hfov: HFOV, played: {}, motion: false };
    var loading = $("xp-loading"), announcer = $("xp-announce");
    /* Screen readers: one polite announcement at a time (arrival, notes about state). */
    function announce(text) { announcer.textContent = ""; setTimeout(function () { announcer.textContent = text; }, 50); }
    var stage = $("xp-stage"), canvas = $("xp-canvas"), flat = $("xp-flat"), hotspots = $("xp-hotspots");
    var list = $("xp-list"), progress = $("xp-progress"), panoTitle = $("xp-pano-title"), message = $("xp-message");
    var renderer = null, mode = "webgl";
    var sounds = {};            // trigger key → HTMLAudioElement
    var overlayButtons = [];    // [{trigger, button}]
    var listButtons = {};
    var images = {};            // panorama id → loaded Image
    var forceFlat = /[?&]flat(=1)?(&|$)/.test(window.location.search);
    /* The layout's "Skip to content" lands on Exit, the viewer's first control, not the breadcrumb. */
    var skip = document.querySelector("a.skip");
    if (skip) skip.addEventListener("click", function (e) { e.preventDefault(); $("xp-exit").focus(); });

    try {
      if (forceFlat) throw new Error("flat requested");
      renderer = new GLRenderer(canvas);
      root.setAttribute("data-gl-ready-ms", String(Math.round(performance.now())));
    } catch (e) {
      mode = "flat";
      canvas.hidden = true;
      flat.hidden = false;
      message.textContent = "This browser cannot show the 360° view, so the picture is shown flat. Drag it or use the arrow keys to look around.";
      message.hidden = false;
    }
    root.setAttribute("data-render-mode", mode);

    function key(p, t) { return p + "/" + t; }
    /* Clips are sounds and videos: doors lead on and notes are read, neither is played. */
    function clipsOf(p) { return p.triggers.filter(function (t) { return t.kind === "sound" || t.kind === "video"; }); }
    function playedIn(p) { return clipsOf(p).filter(function (t) { return state.played[key(p.id, t.id)]; }).length; }
    var totalClips = data.panoramas.reduce(function (n, p) { return n + clipsOf(p).length; }, 0);

    function updateProgress() {
      var n = 0;
      data.panoramas.forEach(function (p) { n += playedIn(p); });
      progress.textContent = "Clips played " + n + " of " + totalClips;
      progress.setAttribute("data-progress", totalClips > 0 && n === totalClips ? "done" : n > 0 ? "some" : "none");
      root.setAttribute("data-played", String(n));
      var p = panos[state.pano];
      var here = $("xp-here");
      if (here && p) here.textContent = playedIn(p) + " of " + clipsOf(p).length + (clipsOf(p).length === 1 ? " clip" : " clips") + " played here";
    }

    // MARK: Drawing

    function resize() {
      var r = stage.getBoundingClientRect();
      var dpr = Math.min(window.devicePixelRatio || 1, 2);
      var w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    }
    function maxPitch() {
      var r = stage.getBoundingClientRect();
      var vfov = 2 * Math.atan(Math.tan(state.hfov / 2) / Math.max(0.1, r.width / Math.max(1, r.height)));
      return Math.max(0, Math.PI / 2 - vfov / 2);
    }
    var pending = false;
    function requestDraw() {
      if (pending) return;
      pending = true;
      (window.requestAnimationFrame || function (f) { return setTimeout(f, 16); })(function () { pending = false; draw(); });
    }
    function draw() {
      var mp = maxPitch();
      state.pitch = Math.max(-mp, Math.min(mp, state.pitch));
      state.yaw = wrapDeg(state.yaw / DEG) * DEG;
      var r = stage.getBoundingClientRect();
      if (mode === "webgl") {
        resize();
        renderer.draw(state.yaw, state.pitch, state.hfov);
        if (renderer.hasTexture && !root.hasAttribute("data-first-frame-ms")) {
          // Time from navigation start to the first frame drawn with the picture.
          root.setAttribute("data-first-frame-ms", String(Math.round(performance.now())));
        }
      } else {
        var h = r.height, w = 2 * h;
        flat.style.backgroundSize = w + "px " + h + "px";
        var offset = r.width / 2 - (state.yaw / (2 * Math.PI) + 0.5) * w;
        flat.style.backgroundPosition = offset + "px 0px";
      }
      placeHotspots(r);
      root.setAttribute("data-yaw", (state.yaw / DEG).toFixed(2));
      root.setAttribute("data-pitch", (state.pitch / DEG).toFixed(2));
    }
    /* Screen position of a direction (Pannellum's projection; docs/experience-viewer.md). */
    function project(t, r) {
      var yh = t.yaw * DEG, ph = t.pitch * DEG, y = state.yaw, p = state.pitch;
      if (mode === "flat") {
        var h = r.height, w = 2 * h;
        return { x: r.width / 2 + wrapDeg(t.yaw - state.yaw / DEG) / 360 * w, y: (0.5 - t.pitch / 180) * h, visible: true };
      }
      var z = Math.sin(ph) * Math.sin(p) + Math.cos(ph) * Math.cos(p) * Math.cos(y - yh);
      if (z <= 0) return { visible: false };
      var k = r.width / (2 * Math.tan(state.hfov / 2));
      var X = k * Math.cos(ph) * Math.sin(yh - y) / z;
      var Y = -k * (Math.sin(ph) * Math.cos(p) - Math.cos(ph) * Math.cos(y - yh) * Math.sin(p)) / z;
      return { x: r.width / 2 + X, y: r.height / 2 + Y, visible: true };
    }
    function placeHotspots(r) {
      overlayButtons.forEach(function (o) {
        var s = project(o.trigger, r);
        var inside = s.visible && s.x > -40 && s.x < r.width + 40 && s.y > -40 && s.y < r.height + 40;
        o.button.hidden = !inside;
        if (inside) {
          o.button.style.left = Math.round(s.x) + "px";
          o.button.style.top = Math.round(s.y) + "px";
        }
      });
    }

    // MARK: Panoramas

    function loadImage(p, done) {
      if (images[p.id]) { done(images[p.id]); return; }
      var img = new Image();
      img.onload = function () { images[p.id] = img; done(img); };
      img.onerror = function () {
        message.textContent = "The picture of this place could not be loaded.";
        message.hidden = false;
      };
      /* The texture comes from a data: URL so WebGL may use it from file:// too: the scene's
       * script (prepared at build time) carries it and is loaded only when the scene is shown. */
      if (p.texture) img.src = p.texture;
      else if (p.scene && mode === "webgl") loadScene(p, function (url) { img.src = url; });
      else img.src = p.image;
    }

    /* Shows panorama `id`, facing the door's arrival direction when it gives one, else the
     * panorama's starting direction. */
    var sceneWaiters = {};
    /* A scene script stores its picture in window.dossierScenes[id] and calls dossierScene(id). */
    window.dossierScene = function (id) {
      var w = sceneWaiters[id];
      if (!root.hasAttribute("data-scene-loaded-ms")) root.setAttribute("data-scene-loaded-ms", String(Math.round(performance.now())));
      if (w) { delete sceneWaiters[id]; w(window.dossierScenes[id]); }
    };
    function loadScene(p, cb) {
      if (window.dossierScenes && window.dossierScenes[p.id]) { window.dossierScene(p.id); cb(window.dossierScenes[p.id]); return; }
      sceneWaiters[p.id] = cb;
      if (document.querySelector("script[data-scene='" + p.id + "']")) return;   // already on its way (the first scene)
      var s = document.createElement("script");
      s.src = p.scene;
      s.setAttribute("data-scene", p.id);
      s.onerror = function () { delete sceneWaiters[p.id]; message.textContent = "The picture of this place could not be loaded."; message.hidden = false; };
      document.head.appendChild(s);
    }
    function show(id, arrival) {
      stopSounds();
      var p = panos[id];
      state.pano = id;
      var a = arrival || {};
      state.yaw = (typeof a.yaw === "number" ? a.yaw : p.startYaw || 0) * DEG;
      state.pitch = (typeof a.pitch === "number" ? a.pitch : p.startPitch || 0) * DEG;
      state.hfov = HFOV;
      root.setAttribute("data-hfov", (HFOV / DEG).toFixed(1));   // a door resets the zoom: say so
      root.setAttribute("data-panorama", id);
      root.removeAttribute("data-ready");
      loading.hidden = false;
      panoTitle.textContent = clean(p.title);
      document.title = clean(p.title) + " · " + clean(data.title);
      announce("Now in " + clean(p.title) + ". " + (p.triggers.length ? "Things to press: " + p.triggers.map(function (t) { return clean(t.label); }).join(", ") + "." : "Nothing to press here."));
      $("xp-finish").hidden = true;
      buildTriggers(p);
      updateProgress();
      if (mode === "flat") flat.style.backgroundImage = "url(\"" + p.image.replace(/["\\]/g, "") + "\")";
      if (renderer) renderer.hasTexture = false;
      requestDraw();
      loadImage(p, function (img) {
        if (state.pano !== id) return;
        if (renderer) {
          try { renderer.setImage(img); } catch (e) {
            message.textContent = "The 360° view could not use this picture.";
            message.hidden = false;
          }
        }
        loading.hidden = true;
        draw();   // drawn before it says so: data-ready means data-yaw/data-pitch are this picture's
        root.setAttribute("data-ready", "true");
      });
      checkFinished();
    }

    function buildTriggers(p) {
      while (hotspots.firstChild) hotspots.removeChild(hotspots.firstChild);
      while (list.firstChild) list.removeChild(list.firstChild);
      overlayButtons = [];
      listButtons = {};
      p.triggers.forEach(function (t) {
        var b = triggerButton(p, t, "xp-hotspot");
        look.keyboardPath(b);
        b.style.setProperty("--xp-size", String(t.size || 1));
        hotspots.appendChild(b);
        overlayButtons.push({ trigger: t, button: b });
        var li = el("li");
        var lb = triggerButton(p, t, "xp-list-button");
        li.appendChild(lb);
        list.appendChild(li);
        listButtons[t.id] = lb;
      });
      if (!p.triggers.length) list.appendChild(el("li", "xp-empty", "Nothing to press here."));
    }

    function triggerButton(p, t, cls) {
      var b = el("button", cls + " xp-kind-" + t.kind);
      b.type = "button";
      b.setAttribute("data-trigger", t.id);
      b.setAttribute("data-kind", t.kind);
      b.appendChild(icon(t.kind));
      b.appendChild(el("span", "xp-label", clean(t.label)));
      var st = el("span", "xp-state");
      b.appendChild(st);
      if (t.kind === "sound") b.setAttribute("aria-pressed", "false");
      markButton(b, p, t);
      b.addEventListener("click", function (ev) { ev.stopPropagation(); press(p, t, b); });
      return b;
    }
    function markButton(b, p, t) {
      var st = b.querySelector(".xp-state");
      if (t.kind === "door") { st.textContent = ""; return; }
      var played = !!state.played[key(p.id, t.id)];
      b.classList.toggle("is-played", played);
      var playing = t.kind === "sound" && sounds[key(p.id, t.id)] && !sounds[key(p.id, t.id)].paused;
      st.textContent = playing ? "playing" : (played ? "played" : "");
    }
    function refreshButtons(p, t) {
      document.querySelectorAll("[data-trigger]").forEach(function (b) {
        if (b.getAttribute("data-trigger") === t.id) markButton(b, p, t);
      });
    }

    // MARK: Triggers

    function press(p, t, button) {
      if (t.kind === "sound") toggleSound(p, t);
      else if (t.kind === "video") dialogs.openVideo(p, t, button);
      else if (t.kind === "note") dialogs.openNote(t, button);
      else dialogs.leave(t, button);
    }

    function markPlayed(p, t) {
      state.played[key(p.id, t.id)] = true;
      refreshButtons(p, t);
      updateProgress();
      checkFinished();
    }

    function toggleSound(p, t) {
      var k = key(p.id, t.id);
      var a = sounds[k];
      if (!a) {
        a = new Audio(t.media);
        a.preload = "auto";
        sounds[k] = a;
        a.addEventListener("ended", function () { setSoundState(p, t, false); markPlayed(p, t); });
        a.addEventListener("pause", function () { setSoundState(p, t, false); });
        a.addEventListener("play", function () { setSoundState(p, t, true); });
      }
      if (a.paused) {
        Object.keys(sounds).forEach(function (o) { if (o !== k && !sounds[o].paused) sounds[o].pause(); });
        if (a.ended) a.currentTime = 0;
        setSoundState(p, t, true);
        var r = a.play();
        if (r && r.catch) r.catch(function () { setSoundState(p, t, false); message.textContent = "The sound could not be played."; message.hidden = false; });
      } else {
        a.pause();
      }
    }
    function setSoundState(p, t, playing) {
      document.querySelectorAll("[data-trigger]").forEach(function (b) {
        if (b.getAttribute("data-trigger") !== t.id) return;
        b.setAttribute("aria-pressed", playing ? "true" : "false");
        b.classList.toggle("is-playing", playing);
        var svg = b.querySelector("svg.xp-icon");
        if (svg) b.replaceChild(icon(playing ? "pause" : "sound"), svg);
      });
      refreshButtons(p, t);
      root.setAttribute("data-sound-playing", anySoundPlaying() ? "true" : "false");
    }
    function anySoundPlaying() {
      return Object.keys(sounds).some(function (k) { return !sounds[k].paused; });
    }
    function stopSounds() {
      Object.keys(sounds).forEach(function (k) { sounds[k].pause(); });
      sounds = {};
      root.setAttribute("data-sound-playing", "false");
    }

    // MARK: Doors and the unfinished-panorama warning (F13, F14), video (F12), notes: viewer-dialogs.js

    var dialogs = window.DossierViewerDialogs.attach({ root: root, $: $, stage: stage, state: state, panos: panos, clean: clean,
      setButton: setButton, show: show, playedIn: playedIn, clipsOf: clipsOf, stopSounds: stopSounds, markPlayed: markPlayed,
      checkFinished: checkFinished });

    // MARK: Finishing (F15)

    function checkFinished() {
      if (state.pano !== data.final || document.querySelector("dialog[open]")) return;
      var p = panos[data.final];
      if (!clipsOf(p).length) {
        // Nothing to play here: the child decides when it is finished (no skipping away).
        $("xp-finish").hidden = false;
        return;
      }
      if (playedIn(p) >= clipsOf(p).length) {
        root.setAttribute("data-finished", "true");
        var finish = function () { window.location.href = data.congratulations; };
        if (document.readyState === "complete") setTimeout(finish, 400); else window.addEventListener("load", function () { setTimeout(finish, 400); });
      }
    }

    $("xp-finish").addEventListener("click", function () { window.location.href = data.congratulations; });

    // MARK: Looking around (drag, pinch, wheel, keys), motion controls and play mode: viewer-look.js

    var look = window.DossierViewerLook.attach({ root: root, stage: stage, state: state, message: message, requestDraw: requestDraw,
      setButton: setButton, $: $, DEG: DEG, HFOV: HFOV, HFOV_MIN: HFOV_MIN, ZOOM_STEP: ZOOM_STEP,
      overlayButtons: function () { return overlayButtons; } });

    // MARK: Start

    this.state = state;
    this.show = show;
    show(data.first);
    root.setAttribute("data-viewer", "ready");
  }

  function start() {
    var root = document.getElementById("xp-viewer");
    if (!root || root.getAttribute("data-viewer")) return;
    try { window.dossierViewer = new Viewer(root); } catch (e) {
      var m = document.getElementById("xp-message");
      if (m) { m.textContent = "The experience could not be started."; m.hidden = false; }
      root.setAttribute("data-viewer", "error");
      if (window.console) console.error(e);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
