/* RocketMouse kit — drawing the game on a canvas. Reads the model, never writes it:
   a frame shows the state at its own time, so a late frame cannot change a record. */
(function (RM) {
  "use strict";
  var W = 800, H = 300, GROUND = 250, SPRITE_X = 160, SPRITE_W = 56, OB_W = 44;
  var SPEED = (W + OB_W / 2 - (SPRITE_X + SPRITE_W / 2)) / 700;   // centre meets the sprite at aᵢ + 700 ms
  var colours = null;

  function palette(canvas) {
    var cs = getComputedStyle(canvas);
    function v(n) { return cs.getPropertyValue(n).trim(); }
    colours = { sky: v("--rm-sky"), sky2: v("--rm-sky2"), ground: v("--rm-ground"), hill: v("--rm-hill"),
                mouse: v("--rm-mouse"), ink: v("--rm-ink"), crate: v("--rm-crate"), metal: v("--rm-metal"),
                flame: v("--rm-flame"), cloud: v("--rm-cloud") };
  }

  /** Sizes the canvas to its box at the device's pixel ratio; the world is scaled to fit.
      A hidden canvas (no box) keeps its size: it is fitted when it is drawn. */
  function fit(canvas) {
    var r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    palette(canvas);
    if (r.width === 0) return;
    canvas.width = Math.max(1, Math.round(r.width * dpr));
    canvas.height = Math.max(1, Math.round(r.width * H / W * dpr));
  }

  /** True when the canvas's backing store does not match its box (never fitted, or
      fitted while hidden, or the window changed). */
  function misfit(canvas) {
    var w = canvas.getBoundingClientRect().width, dpr = window.devicePixelRatio || 1;
    return w > 0 && canvas.width !== Math.max(1, Math.round(w * dpr));
  }

  function height(game, f) {
    var js = game.jumps, M = RM.model.M;
    for (var k = js.length - 1; k >= 0; k--) {
      if (js[k] > f) continue;
      var tau = f - js[k];
      return tau < M.JUMP ? 140 * 4 * tau * (M.JUMP - tau) / (M.JUMP * M.JUMP) : 0;
    }
    return 0;
  }

  function mouse(ctx, x, y, f, flying, blink) {
    if (blink) ctx.globalAlpha = 0.35;
    var c = colours;
    if (flying) {   // the rocket's flame
      ctx.fillStyle = c.flame;
      ctx.beginPath(); ctx.moveTo(x + 4, y - 18); ctx.lineTo(x - 16 - (f % 120) / 12, y - 12); ctx.lineTo(x + 4, y - 6); ctx.fill();
    }
    ctx.fillStyle = c.metal; ctx.fillRect(x + 2, y - 30, 12, 26);          // rocket pack
    ctx.fillStyle = c.mouse;
    ctx.beginPath(); ctx.ellipse(x + 30, y - 20, 24, 18, 0, 0, 2 * Math.PI); ctx.fill();   // body
    ctx.beginPath(); ctx.arc(x + 50, y - 36, 10, 0, 2 * Math.PI); ctx.fill();               // ear
    ctx.beginPath(); ctx.ellipse(x + 52, y - 22, 12, 9, 0, 0, 2 * Math.PI); ctx.fill();      // head
    ctx.strokeStyle = c.mouse; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(x + 6, y - 14); ctx.quadraticCurveTo(x - 14, y - 4, x - 20, y - 24); ctx.stroke(); // tail
    ctx.fillStyle = c.ink;
    ctx.beginPath(); ctx.arc(x + 56, y - 25, 2.5, 0, 2 * Math.PI); ctx.fill();               // eye
    var step = flying ? 0 : Math.floor(f / 90) % 2;                                           // running feet
    ctx.fillRect(x + 18 + 6 * step, y - 4, 8, 4); ctx.fillRect(x + 36 - 6 * step, y - 4, 8, 4);
    ctx.globalAlpha = 1;
  }

  function obstacle(ctx, kind, cx) {
    var c = colours, x = cx - OB_W / 2, y = GROUND;
    if (kind === "crate") {
      ctx.fillStyle = c.crate; ctx.fillRect(x, y - 40, OB_W, 40);
      ctx.strokeStyle = c.ink; ctx.lineWidth = 2; ctx.strokeRect(x + 1, y - 39, OB_W - 2, 38);
      ctx.beginPath(); ctx.moveTo(x, y - 40); ctx.lineTo(x + OB_W, y); ctx.stroke();
    } else if (kind === "spike") {
      ctx.fillStyle = c.metal; ctx.beginPath();
      for (var i = 0; i < 3; i++) { ctx.moveTo(x + i * 15, y); ctx.lineTo(x + i * 15 + 7, y - 40); ctx.lineTo(x + i * 15 + 14, y); }
      ctx.fill();
    } else {
      ctx.fillStyle = c.crate; ctx.fillRect(x, y - 8, OB_W, 8);
      ctx.strokeStyle = c.metal; ctx.lineWidth = 4; ctx.beginPath(); ctx.moveTo(x + 4, y - 8); ctx.lineTo(x + 30, y - 38); ctx.stroke();
      ctx.fillStyle = c.flame; ctx.fillRect(x + OB_W - 12, y - 14, 10, 6);     // the cheese bait
    }
  }

  /** Draws the world at f ms since the session start (null: the still title scene). */
  function frame(canvas, game, f, reduced) {
    if (!colours || misfit(canvas)) fit(canvas);
    var ctx = canvas.getContext("2d"), s = canvas.width / W;
    ctx.setTransform(s, 0, 0, s, 0, 0);
    var g = ctx.createLinearGradient(0, 0, 0, GROUND);
    g.addColorStop(0, colours.sky); g.addColorStop(1, colours.sky2);
    ctx.fillStyle = g; ctx.fillRect(0, 0, W, H);
    var scroll = f === null || reduced ? 0 : f;
    ctx.fillStyle = colours.cloud;
    for (var k = 0; k < 4; k++) {
      var cx = ((k * 260 - scroll * 0.03) % 1040 + 1040) % 1040 - 120;
      ctx.beginPath(); ctx.ellipse(cx, 50 + 22 * (k % 2), 40, 12, 0, 0, 2 * Math.PI); ctx.fill();
    }
    ctx.fillStyle = colours.hill;
    for (k = 0; k < 5; k++) {
      var hx = ((k * 230 - scroll * 0.12) % 1150 + 1150) % 1150 - 150;
      ctx.beginPath(); ctx.ellipse(hx, GROUND, 120, 60, 0, Math.PI, 2 * Math.PI); ctx.fill();
    }
    ctx.fillStyle = colours.ground; ctx.fillRect(0, GROUND, W, H - GROUND);
    ctx.fillStyle = colours.ink;
    for (k = 0; k < 12; k++) ctx.fillRect(((k * 70 - scroll * SPEED) % 840 + 840) % 840 - 20, GROUND + 18, 18, 3);
    if (f === null) { mouse(ctx, SPRITE_X, GROUND, 0, false, false); return; }
    for (var i = 0; game.obstacle(i)[0] <= f; i++) {
      var o = game.obstacle(i), x = W + OB_W / 2 - SPEED * (f - o[0]);
      if (x > -OB_W) obstacle(ctx, o[2], x);
    }
    var last = game.collisions.length ? game.collisions[game.collisions.length - 1][0] : -1e9;
    var blink = !reduced && f - last < 600 && Math.floor((f - last) / 100) % 2 === 0;
    var h = height(game, f);
    mouse(ctx, SPRITE_X, GROUND - h, f, h > 0, blink);
  }

  RM.draw = { fit: fit, frame: frame, palette: palette };
})(window.RM = window.RM || {});
