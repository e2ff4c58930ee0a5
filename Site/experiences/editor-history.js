/* The experience editor's undo/redo history and its draft in the browser
 * (docs/experience-editor.md, "Undo, redo and the draft"). A state is a JSON text of the
 * experience being edited and where the caretaker is in it; the draft is the latest state
 * in localStorage and the media chosen on this device in IndexedDB, so a reload or a
 * closed tab loses nothing. */
(function (global) {
  "use strict";
  var DRAFT_KEY = "dossier.experiences.editor.draft";
  var CLEARED_KEY = "dossier.experiences.editor.draft-cleared";   // changed when a tab emptied the media store
  var DB = "dossier-experiences-editor", STORE = "media";
  var LIMIT = 500;   // states kept for undo

  /* past: the states up to the current one (the last); future: states undone. */
  function History() { this.past = []; this.future = []; }
  History.prototype.reset = function (state) { this.past = [state]; this.future = []; };
  /* Records a new state after an edit; an unchanged state is not a step. */
  History.prototype.record = function (state) {
    if (this.past.length && this.past[this.past.length - 1] === state) return false;
    this.past.push(state);
    if (this.past.length > LIMIT) this.past.shift();
    this.future = [];
    return true;
  };
  History.prototype.canUndo = function () { return this.past.length > 1; };
  History.prototype.canRedo = function () { return this.future.length > 0; };
  History.prototype.undo = function () {
    if (!this.canUndo()) return null;
    this.future.push(this.past.pop());
    return this.past[this.past.length - 1];
  };
  History.prototype.redo = function () {
    if (!this.canRedo()) return null;
    var s = this.future.pop();
    this.past.push(s);
    return s;
  };

  // MARK: The draft

  function openDB() {
    return new Promise(function (resolve, reject) {
      if (!global.indexedDB) { reject(new Error("no IndexedDB")); return; }
      var rq = global.indexedDB.open(DB, 1);
      rq.onupgradeneeded = function () { rq.result.createObjectStore(STORE); };
      rq.onsuccess = function () { resolve(rq.result); };
      rq.onerror = function () { reject(rq.error); };
    });
  }
  function tx(mode, fn) {
    return openDB().then(function (db) {
      return new Promise(function (resolve, reject) {
        var t = db.transaction(STORE, mode), out = fn(t.objectStore(STORE));
        t.oncomplete = function () { db.close(); resolve(out && out.result !== undefined ? out.result : out); };
        t.onerror = function () { db.close(); reject(t.error); };
      });
    });
  }
  var stored = {};   // media paths already in IndexedDB during this page's life

  var Draft = {
    /* Saves the state (a JSON text) and the bytes of media chosen on this device ({path:
       Uint8Array}). Resolves once the media not yet stored are in IndexedDB (true) or could
       not be put there (false). */
    save: function (state, media) {
      try { global.localStorage.setItem(DRAFT_KEY, JSON.stringify({ saved: new Date().toISOString(), state: state })); } catch (e) { return Promise.resolve(false); }
      var todo = Object.keys(media).filter(function (p) { return !stored[p]; });
      if (!todo.length) return Promise.resolve(true);
      return tx("readwrite", function (s) { todo.forEach(function (p) { s.put(media[p], p); stored[p] = true; }); })
        .then(function () { return true; }, function () { todo.forEach(function (p) { delete stored[p]; }); return false; });
    },
    /* {saved, state} or null. */
    load: function () {
      try { var v = global.localStorage.getItem(DRAFT_KEY); return v ? JSON.parse(v) : null; } catch (e) { return null; }
    },
    /* Resolves {path: Uint8Array} for the given paths that were kept. */
    media: function (paths) {
      var out = {};
      return tx("readonly", function (s) {
        paths.forEach(function (p) { var rq = s.get(p); rq.onsuccess = function () { if (rq.result) { out[p] = rq.result; stored[p] = true; } }; });
      }).then(function () { return out; }, function () { return out; });
    },
    /* Once the media store is empty, CLEARED_KEY changes: another tab with unsaved work
       puts its media back then (Controller), after the clear, never before it. */
    clear: function () {
      try { global.localStorage.removeItem(DRAFT_KEY); } catch (e) { /* nothing kept */ }
      stored = {};
      return tx("readwrite", function (s) { s.clear(); }).catch(function () {}).then(function () {
        try { global.localStorage.setItem(CLEARED_KEY, Date.now() + "-" + Math.random()); } catch (e) { /* none */ }
      });
    }
  };

  // MARK: The controls

  /* Undo, Redo (buttons and Ctrl/⌘+Z, Ctrl/⌘+Shift+Z, Ctrl+Y outside text fields), the
     draft and its notice, for the editor's api: {root, doc() (null on the start page),
     state() → the state's JSON text, apply(object) → show that state, media() → {path:
     bytes}, reopen(object, files) → start on a draft's experience, attach(path, blob) →
     Promise of a media record, leave()}. */
  function Controller(api) {
    var history = new History();
    var unsaved = false;   // this tab has edits that only its draft keeps
    function $(id) { return document.getElementById(id); }
    function update() { $("xe-undo").disabled = !history.canUndo(); $("xe-redo").disabled = !history.canRedo(); }
    function go(state) {
      if (!state) return;
      api.apply(JSON.parse(state));
      Draft.save(state, api.media());
      unsaved = true;
      update();
    }
    /* A new start (New, Open, a draft reopened): the history begins here, the old draft goes. */
    this.started = function () {
      history.reset(api.state()); Draft.clear(); unsaved = false; update();
      $("xe-draft").hidden = true; $("xe-other-tab").hidden = true;
    };
    /* After every edit: one step, and the draft. */
    this.edited = function () {
      var s = api.state();
      if (history.record(s)) { Draft.save(s, api.media()); unsaved = true; }
      update();
    };
    /* Saved (downloaded) or left: no draft. */
    this.saved = function () { Draft.clear(); unsaved = false; };
    /* The editor open in another tab of this browser shares the one draft (docs/experience-
       editor.md, "Two tabs"). When that tab deletes it (New, Open, Save, leaving), this
       tab's unsaved work becomes the draft again, its media put back; when that tab writes
       it, this tab says so, since the draft now holds the other tab's work. */
    global.addEventListener("storage", function (e) {
      if (e.key === CLEARED_KEY || e.key === null) {   // null: all of localStorage was cleared
        stored = {};   // the media store is empty now: this tab's go back in
        if (unsaved && api.doc()) {
          api.root.setAttribute("data-draft-media", "saving");
          Draft.save(api.state(), api.media()).then(function (ok) {
            api.root.setAttribute("data-draft-media", ok ? "kept" : "failed");
          });
        }
      } else if (e.key === DRAFT_KEY && e.newValue === null) {
        if (unsaved && api.doc()) Draft.save(api.state(), {});   // the draft at once; media once cleared
      } else if (e.key === DRAFT_KEY && api.doc()) {
        $("xe-other-tab").hidden = false;
      }
    });
    $("xe-undo").addEventListener("click", function () { go(history.undo()); });
    $("xe-redo").addEventListener("click", function () { go(history.redo()); });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (!api.doc() || !(e.ctrlKey || e.metaKey) || tag === "INPUT" || tag === "TEXTAREA") return;   // fields keep their own undo
      var k = e.key.toLowerCase();
      if (k === "z" && !e.shiftKey) { e.preventDefault(); go(history.undo()); }
      else if ((k === "z" && e.shiftKey) || k === "y") { e.preventDefault(); go(history.redo()); }
    });
    $("xe-draft-discard").addEventListener("click", function () { api.leave(); $("xe-draft").hidden = true; });
    /* A draft from an earlier visit (a reload, a closed tab) is opened again with a notice. */
    this.resume = function () {
      var draft = Draft.load(), o = null;
      try { o = draft && JSON.parse(draft.state); } catch (e) { o = null; }
      if (!o || !o.doc) return;
      var paths = [];
      (o.doc.panoramas || []).forEach(function (p) { paths.push(p.image); (p.triggers || []).forEach(function (t) { if (t.media) paths.push(t.media); }); });
      Draft.media(paths).then(function (bytes) {
        var restored = {};
        return Promise.all(Object.keys(bytes).map(function (path) {
          return api.attach(path, new Blob([bytes[path]])).then(function (rec) { restored[path] = rec; });
        })).then(function () { return restored; });
      }).then(function (restored) {
        api.reopen(o, restored);
        go(draft.state);
        history.reset(draft.state);
        update();
        $("xe-draft-when").textContent = draft.saved.replace("T", " ").replace(/\..*$/, " UTC");
        $("xe-draft").hidden = false;
        api.root.setAttribute("data-draft", "restored");
        $("xe-draft").focus();
      });
    };
  }

  global.DossierEditorHistory = { History: History, Draft: Draft, Controller: Controller };
})(window);
