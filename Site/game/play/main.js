/* RocketMouse kit — the flow: players, survey, home, the game loop, uploads, results.
   Test hooks (docs/game-kit.md, "Test hooks"): `?seed=N` makes the k-th game of this page
   load use obstacle seed N + k − 1; `?trace=1` keeps, per press, [event time, handler
   time, time of the first frame drawn after it] in RM.trace (for the latency benchmark). */
(function (RM) {
  "use strict";
  var config = JSON.parse(document.getElementById("kit-config").textContent);
  var S = RM.screens, $ = S.$, query = new URLSearchParams(location.search);
  var seedBase = /^[0-9]{1,9}$/.test(query.get("seed") || "") ? +query.get("seed") : null;
  var tracing = query.get("trace") === "1";
  var reduced = window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;
  var players = [], player = null, gamesThisLoad = 0, bestScores = {};
  var SETTLE = 500;  // ms after the end before the record is final (docs/game-kit.md, "Timing")
  var run = null;   // the game being played: {game, t0, session, volume, errors, lastScore, lastLives}
  RM.trace = tracing ? [] : null;
  RM.sent = 0;      // uploads sent since the page loaded (shown to tests; nothing stored)

  // ---- players and survey ----------------------------------------------------------
  function choose(p) {
    player = p;
    $("who").textContent = S.label(p);
    $("settings-who").textContent = "You are " + S.label(p) + ".";
    if (p.survey === "complete") home(); else survey();
  }
  function survey() { S.resetSurvey(); S.show("survey"); }
  function home() {
    S.show("home");
    RM.draw.frame($("title-scene"), null, null, reduced);
    refreshOutbox();
  }
  function start() {
    RM.store.players().then(function (ps) {
      players = ps;
      if (ps.length === 0) return RM.store.firstPlayer().then(function (p) { players = [p]; choose(p); });
      if (ps.length === 1) return choose(ps[0]);
      S.playerList(ps, null, choose);
      S.show("players");
    }).catch(function (e) { S.status("This browser cannot run the game: " + (e && e.message || e)); });
  }

  $("survey-form").addEventListener("change", function () { $("medicated-set").hidden = S.readSurvey().answers.diagnosed !== true; });
  $("survey-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var r = S.readSurvey();
    if (r.problem) { $("survey-error").textContent = r.problem; return; }
    sendSurvey(r.answers, true);
  });
  function sendSurvey(answers, complete) {
    var p = player, text = JSON.stringify(S.surveyRecord(p.id, answers, complete)) + "\n";
    p.survey = complete ? "complete" : "incomplete";
    RM.store.setSurvey(p, p.survey).then(function () { return queue(p, text); });
    home();
  }

  // ---- uploads (docs/game-kit.md, "Uploads"; the shared queue: Site/shared/upload-queue.js) ----
  var outbox = UploadQueue.create({
    url: config.upload,
    onChange: function () { refreshOutbox(); },
    onSent: function () { RM.sent += 1; S.status("Sent to the study."); },
    onFail: function (e) {
      S.status("Not sent yet (" + (e && e.message || "no network") + "). It is kept until this page closes; send it or save it as a file.");
    }
  });
  /** Signs and seals `body` (JSON Lines of player p) and queues it; sends at once. */
  function queue(p, body) {
    return RM.seal.signedPlaintext(p.id, body, { privateKey: p.signingKey, publicKey: p.publicKey }).then(function (s) {
      return RM.store.addResultKey(p, s.resultKey).then(function () { return RM.seal.seal(s.plain, config.publicKey); });
    }).then(function (bytes) {
      return outbox.add(RM.seal.uploadName(), bytes);
    }).catch(function (e) { S.status("Could not seal the game: " + (e && e.message || e)); });
  }
  function send() { return outbox.send(); }
  function refreshOutbox() {
    var n = outbox ? outbox.size() : 0;
    $("outbox").hidden = n === 0;
    $("outbox-text").textContent = n + (n === 1 ? " upload is" : " uploads are") +
      " waiting to be sent (your answers and games).";
  }
  function save() {
    outbox.take().forEach(function (u) { UploadQueue.download(u.name, u.bytes); });
    refreshOutbox();
    S.status("Saved. Give the .rmu files to the study team.");
  }

  // ---- results ---------------------------------------------------------------------
  function get(url) {
    return new Promise(function (resolve) {
      var x = new XMLHttpRequest();
      x.open("GET", url); x.responseType = "arraybuffer";
      x.onload = function () { resolve((x.status === 200 || x.status === 0) && x.response && x.response.byteLength ? x.response : null); };
      x.onerror = function () { resolve(null); };
      try { x.send(); } catch (e) { resolve(null); }
    });
  }
  function result() {
    S.show("result");
    $("result-body").textContent = "Looking for your result…";
    var keys = (player.resultKeys || []).slice();
    (function next(i) {
      if (i >= keys.length) { S.noResult(); return; }
      RM.seal.resultName(keys[i]).then(function (name) { return get(config.results + name); }).then(function (bytes) {
        if (!bytes) return next(i + 1);
        return RM.seal.openResult(bytes, keys[i]).then(function (text) { S.showResult(JSON.parse(text)); }, function () { next(i + 1); });
      });
    })(0);
  }

  // ---- the game --------------------------------------------------------------------
  function play(ev) {
    var t0 = TimedInput.eventTime(ev);
    var seed = seedBase !== null ? (seedBase + gamesThisLoad) >>> 0 : crypto.getRandomValues(new Uint32Array(1))[0];
    gamesThisLoad += 1;
    run = { game: new RM.model.Game(seed), seed: seed, t0: t0, session: null, volume: [], errors: [], shown: -1, lives: -1, pendingTrace: [] };
    run.claim = RM.store.claimSession(player);   // (another tab of this player never gets the same number)
    S.show("game", $("game-canvas"));
    RM.draw.fit($("game-canvas"));
    var mine = run;   // this game's frame loop stops when the game is over
    requestAnimationFrame(function loop(now) { if (run === mine) { frame(now); requestAnimationFrame(loop); } });
  }
  function rel(ts) { return Math.max(0, Math.round(ts - run.t0)); }
  function logError(t, msg) {
    if (msg && !run.errors.some(function (e) { return e[1] === msg; })) run.errors.push([t, msg]);
  }
  function press(ts) {
    if (!run) return;                  // after the end only a press stamped before it counts (tap)
    var handled = performance.now(), t = rel(ts);
    if (run.game.tap(t)) logError(t, RM.sound.jump());
    if (RM.trace) run.pendingTrace.push([ts, handled]);
  }
  TimedInput.presses(document.querySelector('section[data-screen="game"]'), function () { return !!run; }, press);

  function frame(now) {
    if (!run) return;
    var f = Math.max(0, now - run.t0), g = run.game;
    g.advance(Math.floor(f)).forEach(function (c) { logError(c, RM.sound.hit()); });
    RM.draw.frame($("game-canvas"), g, g.end !== null ? Math.min(f, g.end) : f, reduced);
    if (RM.trace) { run.pendingTrace.forEach(function (p) { RM.trace.push([p[0], p[1], performance.now()]); }); run.pendingTrace = []; }
    var score = g.score(Math.floor(Math.min(f, g.end !== null ? g.end : f))), lives = RM.model.M.LIVES - g.collisions.length;
    if (score !== run.shown) { $("score").textContent = String(score); run.shown = score; }
    if (lives !== run.lives) { $("lives").textContent = String(lives); run.lives = lives; }
    if (g.end !== null && f >= g.end + SETTLE && !run.settling) {
      // After the settle, in a task of its own: presses queued while the page was busy are
      // handled first, and one stamped before the end may still take the end back.
      run.settling = true;
      setTimeout(function () {
        if (!run) return;
        run.settling = false;
        if (run.game.end !== null) finish();
      }, 0);
    }
  }
  function stop(ts) { if (run) run.game.stop(rel(ts)); }
  function volume(ev) {
    var on = !RM.sound.isOn();
    RM.sound.set(on);
    Array.prototype.forEach.call(document.querySelectorAll('[data-action="volume"]'), function (b) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = "Sound";
    });
    if (run) run.volume.push([rel(TimedInput.eventTime(ev)), on ? 1 : 0]);
  }
  document.addEventListener("keydown", function (ev) {
    if (!run || ev.repeat) return;
    if (ev.key === "Escape") { ev.preventDefault(); stop(TimedInput.eventTime(ev)); }
    else if (ev.key === "m" || ev.key === "M") { ev.preventDefault(); volume(ev); }
  });
  document.addEventListener("visibilitychange", function (ev) {
    if (document.hidden && run) stop(TimedInput.eventTime(ev));
  });

  /** The session record (field order of docs/game-telemetry.md), then the upload. */
  function finish() {
    var r = run, g = r.game, l = g.lists(), startRaw = Math.round(r.t0);
    run = null;
    function upTo(list) { return list.filter(function (e) { return e[0] <= g.end; }); }
    var rec = { type: "session", player: player.id, session: r.session, start: startRaw, end: startRaw + g.end, score: l.score, seed: r.seed,
                obstacles: l.obstacles, taps: l.taps, jumps: l.jumps, collisions: l.collisions,
                volume: upTo(r.volume), errors: upTo(r.errors) };
    $("final-score").textContent = String(l.score);
    $("score").textContent = String(l.score);
    var best = bestScores[player.id] || 0;     // this page load only: nothing is stored
    bestScores[player.id] = Math.max(best, l.score);
    $("over-detail").textContent = "You cleared " + g.cleared(g.end) + " of " + (g.cleared(g.end) + l.collisions.length) + " obstacles in " +
      Math.floor(g.end / 1000) + " s." + (l.score > best && best > 0 ? " A new best!" : best > l.score ? " Your best so far: " + best + "." : "");
    S.show("over");
    var p = player;
    r.claim.then(function (n) { rec.session = n; return queue(p, JSON.stringify(rec) + "\n"); })
      .catch(function (e) { S.status("Could not keep the game: " + (e && e.message || e)); });
  }

  // ---- buttons -------------------------------------------------------------------------
  var actions = {
    play: play, home: home, settings: function () { S.show("settings"); }, volume: volume, result: result,
    send: send, save: save, stop: function (ev) { stop(TimedInput.eventTime(ev)); }, survey: survey,
    "survey-later": function () { sendSurvey(S.readSurvey().answers, false); },
    "switch-player": function () { S.playerList(players, player, choose); S.show("players"); },
    "new-player": function () {
      RM.store.newPlayer().then(function (p) { players.push(p); choose(p); });
    }
  };
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-action]");
    if (!b || !actions[b.getAttribute("data-action")]) return;
    actions[b.getAttribute("data-action")](ev);
  });
  function redrawTitle() {
    if (document.body.getAttribute("data-current") === "home") RM.draw.frame($("title-scene"), null, null, reduced);
  }
  window.addEventListener("resize", function () { RM.draw.fit($("game-canvas")); RM.draw.fit($("title-scene")); redrawTitle(); });
  // The canvas art follows a switch between the light and dark schemes at once.
  var dark = window.matchMedia && matchMedia("(prefers-color-scheme: dark)");
  if (dark && dark.addEventListener) dark.addEventListener("change", function () { RM.draw.palette($("title-scene")); redrawTitle(); });
  if (reduced) Array.prototype.forEach.call(document.querySelectorAll('[data-action="volume"]'), function (b) { b.setAttribute("aria-pressed", "false"); });
  if (!window.crypto || !crypto.subtle) { S.status("This page must be opened over https or from a file to seal games."); return; }
  start();
})(window.RM = window.RM || {});
