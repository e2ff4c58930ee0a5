/* Dossier recall test kit — the administrator page (docs/recall-kit.md, "Administrator
   page"): the sessions in this browser, with Export, Send, Save sealed and Delete. */
(function () {
  "use strict";
  var K = KitStore, config = K.config, SETS = config.sets || null;
  if (config.mode !== "admin") return;
  function chosenSet() { var s = K.load("set"); return SETS && typeof s === "string" && SETS[s] ? s : config.set; }
  function setOf(meta) { return meta.set || config.set; }
  function status(text) { document.getElementById("status").textContent = text; }
  var body = document.getElementById("sessions");
  var queue = K.sealing() ? K.queue(function () { render(); }, function (e) {
    status("Not sent yet (" + (e && e.message || "no network") + "). The sealed copy is kept on this device; Send tries again.");
  }, function (u) { status("Sent " + u.name + " (sealed)."); }) : null;

  function stateText(m) {
    var s = m.finished ? "finished" : m.closed ? "closed" : (m.t0Epoch === null ? "not begun" :
      "in progress (" + m.page + (m.string ? " " + m.string : "") + ")");
    var c = K.sealedOf(m.id);
    if (c) s += c.sent ? ", sealed and sent" : ", sealed, waiting to be sent";
    return s;
  }
  /** Seals the session (an unfinished one is closed: the test page no longer resumes it). */
  function sealNow(id) {
    var m = K.load("s:" + id + ":meta");
    if (m && !m.finished && !m.closed) {
      m.closed = true; K.store("s:" + id + ":meta", m);
      if (K.load("current") === id) K.remove("current");
    }
    return K.seal(id);
  }
  function render() {
    var ids = K.sessionIds();
    body.textContent = "";
    document.getElementById("none").hidden = ids.length > 0;
    ids.forEach(function (id) {
      var m = K.load("s:" + id + ":meta"); if (!m) return;
      var tr = document.createElement("tr");
      function td(text, cls) { var c = document.createElement("td"); c.textContent = text; if (cls) c.className = cls; tr.appendChild(c); return c; }
      var th = document.createElement("th"); th.scope = "row"; th.textContent = m.participant; tr.appendChild(th);
      if (SETS) td(setOf(m));
      td(m.created.replace("T", " ").replace(/\..*$/, " UTC"));
      td(stateText(m));
      td(String(m.lines), "num");
      var cell = td("");
      var labels = ["string set", "started", "status", "events"].slice(SETS ? 0 : 1);
      Array.prototype.forEach.call(tr.querySelectorAll("td"), function (c, i) { if (labels[i]) c.setAttribute("data-label", labels[i]); });
      function button(text, fn) { var b = document.createElement("button"); b.type = "button"; b.textContent = text; b.addEventListener("click", fn); cell.appendChild(b); return b; }
      var begun = m.t0Epoch !== null && m.lines > 0;
      if (m.plain !== false) {
        button("Export " + m.participant, function () {
          var blob = new Blob([K.exportText(id)], { type: "application/x-ndjson" });
          var a = document.createElement("a"); a.href = URL.createObjectURL(blob); a.download = K.fileName(m);
          document.body.appendChild(a); a.click(); a.remove();
        }).setAttribute("data-export", id);
      }
      if (queue && begun) {
        if (config.upload) {
          button("Send " + m.participant, function (ev) {
            status("Sealing and sending …");
            sealNow(id).then(function (copy) { return queue.enqueue(id, copy); })
              .catch(function (e) { status("Could not seal the session: " + (e && e.message || e)); });
          }).setAttribute("data-send", id);
        }
        button("Save sealed " + m.participant, function () {
          sealNow(id).then(function (copy) {
            UploadQueue.download(copy.name, Sealer.unb64(copy.bytes));
            status("Saved " + copy.name + ": give it to the study team (dossier recall ingest).");
            render();
          }).catch(function (e) { status("Could not seal the session: " + (e && e.message || e)); });
        }).setAttribute("data-save-sealed", id);
      } else if (config.upload && !config.publicKey) {
        button("Send " + m.participant, function (ev) {
          var b = ev.target, url = config.upload.replace(/\/?$/, "/") + encodeURIComponent(K.fileName(m));
          b.disabled = true; status("Sending " + K.fileName(m) + " …");
          fetch(url, { method: "PUT", body: K.exportText(id), headers: { "Content-Type": "application/x-ndjson" } })
            .then(function (r) { status(r.ok ? "Sent " + K.fileName(m) + " (" + r.status + ")." : "The server refused " + K.fileName(m) + ": " + r.status + " " + r.statusText); })
            .catch(function (e) { status("Could not reach the server: " + e.message); })
            .then(function () { b.disabled = false; });
        });
      }
      button("Delete " + m.participant, function () {
        if (!confirm("Delete the session of participant " + m.participant + " from this device? Export or send it first.")) return;
        if (queue) { var c = K.sealedOf(id); if (c) queue.remove(c.name); }
        K.deleteSession(id);
        render();
      }).className = "secondary";
      body.appendChild(tr);
    });
  }
  document.getElementById("next-participant").addEventListener("click", function () {
    K.remove("current");
    status("The next visit to the test page starts at Welcome.");
  });
  var choice = document.getElementById("set-choice");
  if (SETS && choice) {
    (config.setOrder || Object.keys(SETS)).forEach(function (name) {
      var o = document.createElement("option"); o.value = name; o.textContent = name + (name === config.set ? " (default)" : "");
      choice.appendChild(o);
    });
    choice.value = chosenSet();
    choice.addEventListener("change", function () {
      K.store("set", choice.value);
      status("New sessions on this device use string set " + choice.value + ".");
    });
  }
  if (!K.storageOK) status("This browser does not let the page store data here.");
  else if (config.publicKey && !K.sealing()) {
    status("This page must be opened over https or from a file to seal sessions; nothing is sent from here.");
  }
  render();
  if (queue) queue.send();
})();
