/* The experience viewer's dialogs: the warning before leaving an unfinished panorama, the video player and the note card (docs/experience-viewer.md). */
(function (global) {
  "use strict";
  var HIDE_AFTER_MS = 4000;

  /* Wires the dialogs to the viewer v: {root, $, stage, state, panos, clean, setButton, show,
   * playedIn, clipsOf, stopSounds, markPlayed, checkFinished}; returns what the triggers open. */
  function attach(v) {
    var root = v.root, $ = v.$, stage = v.stage, state = v.state, panos = v.panos, clean = v.clean, setButton = v.setButton;
    var show = v.show, playedIn = v.playedIn, clipsOf = v.clipsOf, stopSounds = v.stopSounds, markPlayed = v.markPlayed, checkFinished = v.checkFinished;

    // MARK: Doors and the unfinished-panorama warning (F13, F14)

    var warn = $("xp-warn"), pendingTarget = null, warnOpener = null;
    function leave(target, opener) {
      if (typeof target === "object") target = { id: target.target, yaw: target.targetYaw, pitch: target.targetPitch };
      var p = panos[state.pano];
      if (playedIn(p) < clipsOf(p).length) {
        pendingTarget = target;
        warnOpener = opener;
        openDialog(warn);
        $("xp-warn-yes").focus();
        return;
      }
      go(target);
    }
    function go(target) {
      show(target.id, target);
      stage.focus({ preventScroll: true });
    }
    $("xp-warn-yes").addEventListener("click", function () {
      closeDialog(warn);
      pendingTarget = null;
      if (warnOpener && document.contains(warnOpener)) warnOpener.focus(); else stage.focus();
    });
    $("xp-warn-no").addEventListener("click", function () {
      var t = pendingTarget;
      closeDialog(warn);
      pendingTarget = null;
      if (t) go(t);
    });

    // MARK: Video dialog (F12)

    var vdlg = $("xp-video"), video = $("xp-video-el"), vplay = $("xp-video-play"), vtime = $("xp-video-time");
    var vseek = $("xp-video-seek"), vback = $("xp-video-back"), vtitle = $("xp-video-title");
    var hideTimer = null, videoOpener = null, videoTrigger = null;
    function showControls() {
      vdlg.classList.remove("controls-hidden");
      vdlg.setAttribute("data-controls", "shown");
      clearTimeout(hideTimer);
      hideTimer = setTimeout(function () {
        vdlg.classList.add("controls-hidden");
        vdlg.setAttribute("data-controls", "hidden");
      }, HIDE_AFTER_MS);
    }
    function fmtTime(s) {
      if (!isFinite(s)) s = 0;
      var m = Math.floor(s / 60), r = Math.floor(s % 60);
      return m + ":" + (r < 10 ? "0" : "") + r;
    }
    function updateVideoUI() {
      setButton(vplay, video.paused ? "play" : "pause", video.paused ? "Play" : "Pause");
      vplay.setAttribute("aria-pressed", video.paused ? "false" : "true");
      if (isFinite(video.duration) && video.duration > 0) {
        vseek.max = String(video.duration);
        vseek.value = String(video.currentTime);
      }
      vtime.textContent = fmtTime(video.currentTime) + " / " + fmtTime(video.duration);
    }
    function openVideo(p, t, opener) {
      stopSounds();
      videoOpener = opener || null;
      videoTrigger = { p: p, t: t };
      vtitle.textContent = clean(t.label);
      video.src = t.media;
      openDialog(vdlg);
      vback.focus();
      showControls();
      var r = video.play();
      if (r && r.catch) r.catch(function () { updateVideoUI(); });
      updateVideoUI();
    }
    function closeVideo() {
      video.pause();
      clearTimeout(hideTimer);
      closeDialog(vdlg);
      video.removeAttribute("src");
      video.load();
      var t = videoTrigger;
      videoTrigger = null;
      if (videoOpener && document.contains(videoOpener)) videoOpener.focus(); else stage.focus({ preventScroll: true });
      videoOpener = null;
      checkFinished();
    }
    video.addEventListener("ended", function () {
      if (videoTrigger) markPlayed(videoTrigger.p, videoTrigger.t);
      updateVideoUI();
      showControls();
    });
    ["play", "pause", "timeupdate", "loadedmetadata", "durationchange"].forEach(function (n) { video.addEventListener(n, updateVideoUI); });
    vplay.addEventListener("click", function () { if (video.paused) video.play(); else video.pause(); showControls(); });
    vseek.addEventListener("input", function () { video.currentTime = Number(vseek.value); showControls(); });
    vback.addEventListener("click", closeVideo);
    ["pointerdown", "pointermove", "touchstart", "keydown", "click"].forEach(function (n) {
      vdlg.addEventListener(n, function () { if (vdlg.hasAttribute("open")) showControls(); });
    });
    video.addEventListener("click", function () { showControls(); });
    vdlg.addEventListener("cancel", function (e) { e.preventDefault(); closeVideo(); });

    // MARK: Notes (imported info hot spots): a card with the text and a Close button

    var ndlg = $("xp-note"), noteOpener = null;
    function openNote(t, opener) {
      noteOpener = opener || null;
      $("xp-note-title").textContent = clean(t.label);
      $("xp-note-text").textContent = clean(t.text || "");
      openDialog(ndlg);
      $("xp-note-close").focus();
    }
    function closeNote() {
      closeDialog(ndlg);
      if (noteOpener && document.contains(noteOpener)) noteOpener.focus(); else stage.focus({ preventScroll: true });
    }
    $("xp-note-close").addEventListener("click", closeNote);
    ndlg.addEventListener("cancel", function (e) { e.preventDefault(); closeNote(); });

    // MARK: Dialog helpers (modal <dialog>, with a fallback for old browsers)

    function openDialog(d) {
      if (typeof d.showModal === "function") { if (!d.open) d.showModal(); } else d.setAttribute("open", "");
      root.classList.add("has-dialog");
    }
    function closeDialog(d) {
      if (typeof d.close === "function" && d.open) d.close(); else d.removeAttribute("open");
      if (!document.querySelector("dialog[open]")) root.classList.remove("has-dialog");
    }
    warn.addEventListener("cancel", function (e) { e.preventDefault(); $("xp-warn-yes").click(); });

    return { leave: leave, openVideo: openVideo, openNote: openNote };
  }

  global.DossierViewerDialogs = { attach: attach };
})(window);
