/* RocketMouse kit — the game model (docs/game-kit.md, "The game model").
   Pure: what is recorded is a function of the obstacle seed, the tap times and the end
   time alone, never of frames, so a session can be recomputed exactly from its record.
   Times are whole ms since the session start. */
(function (RM) {
  "use strict";
  var M = {
    KINDS: ["crate", "spike", "trap"],
    INTERVAL_MIN: 1000, INTERVAL_STEP: 250, INTERVAL_STEPS: 8,   // 1000, 1250 … 2750 ms
    JUMP: 600,                  // a jump lasts 600 ms; a tap during it starts none
    SAFE_FROM: 80, SAFE_TO: 520, // above the obstacles from +80 ms to before +520 ms of a jump
    HIT_FROM: 640, HIT_TO: 760, // obstacle i is at the sprite from aᵢ+640 to aᵢ+760 ms (inclusive)
    LIVES: 3                    // the game ends at the third collision
  };

  /** mulberry32: the documented 32-bit generator of the obstacle schedule. */
  function random(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /** A game from its seed. The collisions and the end follow from the seed and the taps
      alone: `advance` evaluates them up to a time (the frame's), and a tap that comes
      late — its time already evaluated — takes back what it changes and evaluates again
      (docs/game-kit.md, "The game model": the model decides, not the frame loop). */
  function Game(seed) {
    this.rand = random(seed);
    this.obstacles = [];   // [t, interval, kind], made as far ahead as asked
    this.taps = [];
    this.jumps = [];
    this.collisions = [];  // [t, obstacle index], at most LIVES
    this.next = 0;         // the first obstacle not yet decided
    this.known = 0;        // evaluated up to this time
    this.stopAt = null;    // the earliest Stop (Escape, Stop button, page hidden)
    this.end = null;
  }

  /** Obstacle i (made on demand from the generator, in order). */
  Game.prototype.obstacle = function (i) {
    while (this.obstacles.length <= i) {
      var interval = M.INTERVAL_MIN + M.INTERVAL_STEP * Math.floor(this.rand() * M.INTERVAL_STEPS);
      var kind = M.KINDS[Math.floor(this.rand() * M.KINDS.length)];
      var prev = this.obstacles.length ? this.obstacles[this.obstacles.length - 1][0] : 0;
      this.obstacles.push([prev + interval, interval, kind]);
    }
    return this.obstacles[i];
  };

  /** A tap at t (ms since start, whole): recorded unless after the end; starts a jump
      unless one is under way. A jump that the evaluated time already passed takes back
      the collisions from its safe time on, and they are evaluated again. Returns true
      when it started a jump. */
  Game.prototype.tap = function (t) {
    if (this.end !== null && t > this.end) return false;
    var last = this.taps.length ? this.taps[this.taps.length - 1] : 0;
    if (t < last) t = last;           // never backwards (docs: lists are in time order)
    this.taps.push(t);
    var j = this.jumps.length ? this.jumps[this.jumps.length - 1] : null;
    if (j !== null && t < j + M.JUMP) return false;
    this.jumps.push(t);
    if (t + M.SAFE_FROM <= this.known) this.rewind(t + M.SAFE_FROM);
    return true;
  };

  /** Takes back every collision at or after `from` (a late jump may have cleared it). */
  Game.prototype.rewind = function (from) {
    var keep = this.collisions.filter(function (c) { return c[0] < from; });
    if (keep.length < this.collisions.length) {
      this.next = this.collisions[keep.length][1];
      this.collisions = keep;
    }
    this.end = null;
    this.advance(this.known);
  };

  /** When obstacle i hits the sprite, given the jumps known, or null when it is cleared. */
  Game.prototype.hitTime = function (i) {
    var a = this.obstacle(i)[0], c = a + M.HIT_FROM;
    for (var k = 0; k < this.jumps.length; k++) {
      var j = this.jumps[k];
      if (j + M.SAFE_FROM <= c && c < j + M.SAFE_TO) c = j + M.SAFE_TO;
    }
    return c <= a + M.HIT_TO ? c : null;
  };

  /** Evaluates up to time t: the collisions up to t (none after a Stop), and the end —
      the third collision, or the Stop once t reaches it. Returns the collisions found now. */
  Game.prototype.advance = function (t) {
    var found = [], limit = this.stopAt !== null ? Math.min(t, this.stopAt) : t;
    while (this.collisions.length < M.LIVES) {
      var a = this.obstacle(this.next)[0];
      if (a + M.HIT_FROM > limit) break;
      var c = this.hitTime(this.next);   // cleared now stays cleared: later jumps only push c on
      if (c !== null && c > limit) break;
      if (c !== null) { this.collisions.push([c, this.next]); found.push(c); }
      this.next += 1;
    }
    this.known = Math.max(this.known, t);
    if (this.collisions.length >= M.LIVES) this.end = this.collisions[M.LIVES - 1][0];
    else if (this.stopAt !== null && this.stopAt <= this.known) this.end = this.stopAt;
    return found;
  };

  /** The player stops at t (Stop, Escape, page hidden): the end unless the game ended before. */
  Game.prototype.stop = function (t) {
    if (this.stopAt !== null && this.stopAt <= t) return;
    this.stopAt = t;
    if (this.known > t) this.rewind(t + 1);   // collisions after the stop do not count
    else this.advance(t);
  };

  /** Obstacles cleared by time t (passed the sprite without a collision). */
  Game.prototype.cleared = function (t) {
    var n = 0, hit = {};
    this.collisions.forEach(function (c) { hit[c[1]] = 1; });
    for (var i = 0; this.obstacle(i)[0] + M.HIT_TO <= t; i++) if (!hit[i]) n++;
    return n;
  };

  /** The score at t: 10 a cleared obstacle, 1 a whole second run. */
  Game.prototype.score = function (t) { return 10 * this.cleared(t) + Math.floor(t / 1000); };

  /** The session's lists after the end: everything at or before it. */
  Game.prototype.lists = function () {
    var end = this.end, obs = [];
    for (var i = 0; this.obstacle(i)[0] <= end; i++) obs.push(this.obstacle(i).slice());
    function upTo(l) { return l.filter(function (t) { return t <= end; }); }
    return { obstacles: obs, taps: upTo(this.taps), jumps: upTo(this.jumps),
             collisions: this.collisions.map(function (c) { return c[0]; }).filter(function (t) { return t <= end; }),
             score: this.score(end) };
  };

  RM.model = { M: M, Game: Game, random: random };
})(window.RM = window.RM || {});
