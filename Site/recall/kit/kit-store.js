/* Dossier recall test kit — what it keeps on the device (docs/recall-kit.md, "What the kit
   keeps on the device") and its sealed uploads (docs/recall-upload.md). localStorage keys,
   all under "dossier-recall-kit:": index, current, set, s:<id>:meta, s:<id>:c<n> (the log
   in chunks of 200 lines), sealed:<id> (a sealed copy); IndexedDB database
   "dossier-recall-kit" holds the device's id and signing key (the private half not
   extractable). */
var KitStore = (function () {
  "use strict";
  var config = JSON.parse(document.getElementById("kit-config").textContent);
  var P = "dossier-recall-kit:", CHUNK = 200;
  var storageOK = true;
  try { localStorage.setItem(P + "probe", "1"); localStorage.removeItem(P + "probe"); } catch (e) { storageOK = false; }
  function load(k) { try { var v = localStorage.getItem(P + k); return v === null ? null : JSON.parse(v); } catch (e) { return null; } }
  function store(k, v) { localStorage.setItem(P + k, JSON.stringify(v)); }
  function remove(k) { localStorage.removeItem(P + k); }
  function sessionIds() { return load("index") || []; }
  function exportText(id) {
    var meta = load("s:" + id + ":meta"); if (!meta) return "";
    var out = [];
    for (var c = 0; c * CHUNK < meta.lines; c++) { out = out.concat(load("s:" + id + ":c" + c) || []); }
    return out.join("\n") + "\n";
  }
  function fileName(meta) {
    var p = meta.participant.replace(/[^A-Za-z0-9._-]+/g, "_");
    return "recall-" + p + "-" + meta.created.replace(/[-:]/g, "").replace(/\..*$/, "") + ".jsonl";
  }
  /** Removes a session's plain log chunks (its meta stays). */
  function dropChunks(id, meta) { for (var c = 0; c * CHUNK < meta.lines; c++) remove("s:" + id + ":c" + c); }

  // ---- the device key (IndexedDB; in memory when the browser has none) ---------------
  var devicePromise = null;
  function device() {
    if (devicePromise) return devicePromise;
    devicePromise = new Promise(function (resolve) {
      var req;
      try { req = indexedDB.open("dossier-recall-kit", 1); } catch (e) { resolve(null); return; }
      req.onupgradeneeded = function () { req.result.createObjectStore("device", { keyPath: "id" }); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { resolve(null); };
      req.onblocked = function () { resolve(null); };
    }).then(function (db) {
      function make() {
        return Sealer.newSigningKey().then(function (k) {
          return { id: "device", device: Sealer.randomHex(16), privateKey: k.privateKey, publicKey: k.publicKey };
        });
      }
      if (!db) return make();
      return new Promise(function (resolve, reject) {
        var r = db.transaction("device", "readonly").objectStore("device").get("device");
        r.onsuccess = function () { resolve(r.result || null); };
        r.onerror = function () { reject(r.error); };
      }).then(function (d) {
        if (d) return d;
        // Two tabs opening the kit for the first time at once each make a key; the get and the
        // put are one readwrite transaction (one at a time per store), so the second tab finds
        // the first one's key and uses it: one device, one key.
        return make().then(function (mine) {
          return new Promise(function (resolve, reject) {
            var t = db.transaction("device", "readwrite"), os = t.objectStore("device"), chosen = mine;
            var g = os.get("device");
            g.onsuccess = function () { if (g.result) chosen = g.result; else os.put(mine); };
            t.oncomplete = function () { resolve(chosen); };
            t.onerror = function () { reject(t.error); };
          });
        });
      });
    });
    return devicePromise;
  }

  // ---- sealed copies -----------------------------------------------------------------
  /** Whether uploads are sealed (the site gave a public key and the browser can seal). */
  function sealing() { return !!config.publicKey && Sealer.available(); }
  /** The sealed copy of a session: {name, lines, bytes (base64, while kept), sent}. */
  function sealedOf(id) { return load("sealed:" + id); }
  /** Seals a session's log as it is now and keeps the copy (replacing an older one):
      resolves the copy. With kit_keep: sealed the plain log is removed once the copy is kept. */
  function seal(id) {
    var meta = load("s:" + id + ":meta");
    if (!meta || meta.t0Epoch === null || !meta.lines) return Promise.reject(new Error("the session has not begun"));
    var old = sealedOf(id);
    if (old && old.lines === meta.lines && old.bytes) return Promise.resolve(old);
    var name = "rc-" + Sealer.randomHex(12) + ".rcu";
    return device().then(function (d) {
      var record = [["type", "recall-session"], ["device", d.device], ["upload", name], ["log", fileName(meta)],
                    ["signing_key", null], ["signature", null]];
      return Sealer.signed(record, ["device", "upload", "log"], "Dossier recall upload v1\n", exportText(id), d);
    }).then(function (plain) { return Sealer.seal(plain, config.publicKey); }).then(function (bytes) {
      var copy = { name: name, lines: meta.lines, bytes: Sealer.b64(bytes), sent: false };
      store("sealed:" + id, copy);
      meta = load("s:" + id + ":meta");
      meta.sealed = true;
      if (config.keep === "sealed") { dropChunks(id, meta); meta.plain = false; meta.values = []; }
      store("s:" + id + ":meta", meta);
      return copy;
    });
  }
  /** Marks a sealed copy sent; with kit_keep: plain its bytes are dropped (the plain log stays). */
  function markSent(id) {
    var c = sealedOf(id); if (!c) return;
    c.sent = true;
    if (config.keep !== "sealed") delete c.bytes;
    store("sealed:" + id, c);
  }
  /** Every session whose sealed copy waits to be sent, in the order the sessions began. */
  function waiting() {
    return sessionIds().filter(function (id) { var c = sealedOf(id); return c && !c.sent && c.bytes; });
  }
  /** The upload queue of sealed copies (nothing is sent without kit_upload). */
  function queue(onChange, onFail, onSent) {
    var ids = {};
    var items = waiting().map(function (id) { var c = sealedOf(id); ids[c.name] = id; return { name: c.name, bytes: Sealer.unb64(c.bytes) }; });
    var url = config.upload ? config.upload.replace(/\/?$/, "/") : null;
    var q = UploadQueue.create({ url: url, items: items, onChange: onChange, onFail: onFail,
                                 onSent: function (u) { if (ids[u.name]) markSent(ids[u.name]); if (onSent) onSent(u); } });
    q.enqueue = function (id, copy) { ids[copy.name] = id; q.remove(copy.name); return q.add(copy.name, Sealer.unb64(copy.bytes)); };
    return q;
  }
  /** Deletes a session and everything of it on the device. */
  function deleteSession(id) {
    var m = load("s:" + id + ":meta");
    if (m) dropChunks(id, m);
    remove("s:" + id + ":meta"); remove("sealed:" + id);
    store("index", sessionIds().filter(function (x) { return x !== id; }));
    if (load("current") === id) remove("current");
  }

  return { config: config, P: P, CHUNK: CHUNK, storageOK: storageOK, load: load, store: store, remove: remove,
           sessionIds: sessionIds, exportText: exportText, fileName: fileName, sealing: sealing, sealedOf: sealedOf,
           seal: seal, markSent: markSent, queue: queue, deleteSession: deleteSession, device: device };
})();
