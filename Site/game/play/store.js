/* RocketMouse kit — what the page keeps in the browser (docs/game-kit.md, "Privacy").
   Only players' anonymous ids and device keys, in IndexedDB database "rocketmouse",
   object store "players", one record per player:
     {id, n, signingKey (CryptoKey, private, not extractable), publicKey (base64),
      resultKeys ([CryptoKey HMAC, not extractable], newest first, at most 32),
      survey ("none" | "incomplete" | "complete"), nextSession (whole number ≥ 1)}
   Never a session, a survey answer, a score or an upload. Without IndexedDB the same
   records live in memory only (and are gone when the page closes). */
(function (RM) {
  "use strict";
  var DB = "rocketmouse", STORE = "players", MAX_RESULT_KEYS = 32;
  var memory = {}, dbp = null;

  function open() {
    if (dbp) return dbp;
    dbp = new Promise(function (resolve) {
      var req;
      try { req = indexedDB.open(DB, 1); } catch (e) { resolve(null); return; }
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE, { keyPath: "id" }); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { resolve(null); };
      req.onblocked = function () { resolve(null); };
    });
    return dbp;
  }

  /** Every player on this device, in the order they were made. */
  function players() {
    return open().then(function (db) {
      if (!db) return Object.keys(memory).map(function (k) { return memory[k]; }).sort(function (a, b) { return a.n - b.n; });
      return new Promise(function (resolve, reject) {
        var r = db.transaction(STORE, "readonly").objectStore(STORE).getAll();
        r.onsuccess = function () { resolve(r.result.sort(function (a, b) { return a.n - b.n; })); };
        r.onerror = function () { reject(r.error); };
      });
    });
  }

  function put(p) {
    return open().then(function (db) {
      if (!db) { memory[p.id] = p; return p; }
      return new Promise(function (resolve, reject) {
        var t = db.transaction(STORE, "readwrite");
        t.objectStore(STORE).put(p);
        t.oncomplete = function () { resolve(p); };
        t.onerror = function () { reject(t.error); };
      });
    });
  }

  /** Runs `body(store)` in one readwrite transaction and resolves what it set `out.value`
      to. Another tab's change is either wholly before or wholly after it: two tabs of one
      player never write over each other's session number, result key or survey. */
  function atomically(body) {
    return open().then(function (db) {
      if (!db) { var out = {}; body(null, out); return out.value; }
      return new Promise(function (resolve, reject) {
        var t = db.transaction(STORE, "readwrite"), o = {};
        body(t.objectStore(STORE), o);
        t.oncomplete = function () { resolve(o.value); };
        t.onerror = function () { reject(t.error); };
        t.onabort = function () { reject(t.error || new Error("the browser's storage refused the change")); };
      });
    });
  }

  /** Changes player p's stored record with `change(record)` (p itself when nothing is
      stored) and copies the result into p; resolves what `change` returns. */
  function update(p, change) {
    return atomically(function (os, out) {
      function apply(cur) {
        out.value = change(cur);
        Object.keys(cur).forEach(function (k) { p[k] = cur[k]; });
        if (os) os.put(cur); else memory[p.id] = cur;
      }
      if (!os) { apply(memory[p.id] || p); return; }
      var g = os.get(p.id);
      g.onsuccess = function () { apply(g.result || p); };
    });
  }

  /** Player p's next session number, taken: no other tab gets it. */
  function claimSession(p) {
    return update(p, function (cur) { var n = cur.nextSession; cur.nextSession = n + 1; return n; });
  }

  /** Records the survey's state ("incomplete" or "complete"). */
  function setSurvey(p, state) { return update(p, function (cur) { cur.survey = state; }); }

  /** A new player with a new device key, numbered after every stored one (`only`: unless a
      player is stored already — another tab made one meanwhile — then that one). */
  function addPlayer(only) {
    return RM.seal.newSigningKey().then(function (k) {
      var p = { id: RM.seal.newPlayerId(), n: 1, signingKey: k.privateKey, publicKey: k.publicKey,
                resultKeys: [], survey: "none", nextSession: 1 };
      return atomically(function (os, out) {
        function choose(all) {
          all.sort(function (a, b) { return a.n - b.n; });
          if (only && all.length) { out.value = all[0]; return; }
          p.n = all.reduce(function (m, q) { return Math.max(m, q.n); }, 0) + 1;
          if (os) os.put(p); else memory[p.id] = p;
          out.value = p;
        }
        if (!os) { choose(Object.keys(memory).map(function (id) { return memory[id]; })); return; }
        var r = os.getAll();
        r.onsuccess = function () { choose(r.result); };
      });
    });
  }
  function newPlayer() { return addPlayer(false); }
  /** The device's first player: made now, or the one another tab just made. */
  function firstPlayer() { return addPlayer(true); }

  /** Remembers the result key of a new upload (newest first). */
  function addResultKey(p, key) {
    return update(p, function (cur) { cur.resultKeys = [key].concat(cur.resultKeys || []).slice(0, MAX_RESULT_KEYS); });
  }

  /** Whether the browser keeps the records (false: memory only). */
  function persistent() { return open().then(function (db) { return db !== null; }); }

  RM.store = { players: players, put: put, newPlayer: newPlayer, firstPlayer: firstPlayer, claimSession: claimSession,
               setSurvey: setSurvey, addResultKey: addResultKey, persistent: persistent };
})(window.RM = window.RM || {});
