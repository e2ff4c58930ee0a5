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

  /** A new player with a new device key. */
  function newPlayer() {
    return Promise.all([players(), RM.seal.newSigningKey()]).then(function (r) {
      var n = r[0].reduce(function (m, p) { return Math.max(m, p.n); }, 0) + 1;
      return put({ id: RM.seal.newPlayerId(), n: n, signingKey: r[1].privateKey, publicKey: r[1].publicKey,
                   resultKeys: [], survey: "none", nextSession: 1 });
    });
  }

  /** Remembers the result key of a new upload (newest first). */
  function addResultKey(p, key) {
    p.resultKeys = [key].concat(p.resultKeys || []).slice(0, MAX_RESULT_KEYS);
    return put(p);
  }

  /** Whether the browser keeps the records (false: memory only). */
  function persistent() { return open().then(function (db) { return db !== null; }); }

  RM.store = { players: players, put: put, newPlayer: newPlayer, addResultKey: addResultKey, persistent: persistent };
})(window.RM = window.RM || {});
