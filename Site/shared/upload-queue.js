/* Dossier upload queue, shared by both kits (docs/recall-upload.md, "The upload queue";
   docs/game-kit.md, "Uploads"). Holds sealed uploads {name, bytes} and PUTs them one at
   a time, in order, to `url` + name. A failed PUT leaves the upload first in line: the
   next try sends the same bytes under the same name (so a copy the server did keep is
   simply overwritten with itself). Tries again when the browser comes back online, when
   send() is called, and — with a persistent queue — when the page loads. Nothing here
   keeps bytes on the device: a kit that wants that passes `onAdd`/`onSent` and stores them. */
var UploadQueue = (function () {
  "use strict";

  /** Offers bytes as a file download (save as file). */
  function download(name, bytes) {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
    a.download = name;
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
  }

  /**
   * opts: url (folder URL ending "/", or null: nothing is sent), items (uploads already
   * waiting), onChange(queue), onSent(item), onFail(error), onAdd(item).
   */
  function create(opts) {
    var items = (opts.items || []).slice(), sending = null;
    function changed() { if (opts.onChange) opts.onChange(q); }
    /** PUTs every waiting upload, one at a time; a failed one stays first. */
    function send() {
      if (!opts.url || sending) return sending || Promise.resolve();
      sending = (function next() {
        var u = items[0];
        if (!u) return Promise.resolve();
        return fetch(opts.url + u.name, { method: "PUT", body: u.bytes, headers: { "Content-Type": "application/octet-stream" } })
          .then(function (r) {
            if (!r.ok) throw new Error("the server answered " + r.status);
            if (items[0] === u) items.shift();
            changed();
            if (opts.onSent) opts.onSent(u);
            return next();
          });
      })().catch(function (e) {
        if (opts.onFail) opts.onFail(e);
      }).then(function () { sending = null; changed(); });
      return sending;
    }
    /** Adds an upload at the end of the line and sends. */
    function add(name, bytes) {
      var item = { name: name, bytes: bytes };
      items.push(item);
      if (opts.onAdd) opts.onAdd(item);
      changed();
      return send();
    }
    /** Takes every waiting upload out of the queue (e.g. to save them as files). */
    function take() { var out = items.splice(0); changed(); return out; }
    /** Removes one waiting upload by name. */
    function remove(name) { items = items.filter(function (u) { return u.name !== name; }); changed(); }
    window.addEventListener("online", function () { send(); });
    var q = { add: add, send: send, take: take, remove: remove, items: function () { return items.slice(); },
              size: function () { return items.length; } };
    return q;
  }

  return { create: create, download: download };
})();
