/* The experience editor's small helpers: DOM building, reading chosen files, the media check on reading, the yes/no dialog (docs/experience-editor.md). */
(function (global) {
  "use strict";
  var R = global.DossierRules, Z = global.DossierZip, P = global.DossierPano;

  var $ = P.byId, el = P.el;
  function button(iconName, label, cls) {
    var b = el("button", cls);
    b.type = "button";
    b.appendChild(P.icon(iconName));
    b.appendChild(el("span", null, label));
    return b;
  }
  /* An angle as shown to a person: a negative one with U+2212 MINUS SIGN (docs/design-system.md). */
  function degrees(n) { return String(n).replace(/^-/, "\u2212") + "°"; }
  function slugify(s) {
    var t = String(s).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    return t || "experience";
  }
  function readFile(file, how) {
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () { resolve(r.result); };
      r.onerror = function () { reject(r.error); };
      if (how === "url") r.readAsDataURL(file); else r.readAsArrayBuffer(file);
    });
  }
  /* Reads a chosen media file: its preview URL and whether its content matches its name. */
  function attach(path, file) {
    return readFile(file).then(function (buf) {
      var bytes = new Uint8Array(buf);
      var url = /\.(jpe?g|png)$/i.test(path) ? "data:" + (/png$/i.test(path) ? "image/png" : "image/jpeg") + ";base64," + b64(bytes) : URL.createObjectURL(file);
      return { file: file, bytes: bytes, url: url, ok: Z.contentMatches(R.extension(path), bytes.subarray(0, 16)) };
    });
  }
  function b64(bytes) {
    var s = "", CH = 0x8000;
    for (var i = 0; i < bytes.length; i += CH) s += String.fromCharCode.apply(null, bytes.subarray(i, i + CH));
    return btoa(s);
  }
  /* A modal question; resolves "yes", "no" or "cancel". */
  function confirmDialog(title, text, yes, no, withCancel) {
    var d = $("xe-confirm");
    $("xe-confirm-title").textContent = title;
    $("xe-confirm-text").textContent = text;
    $("xe-confirm-yes").querySelector("span").textContent = yes;
    $("xe-confirm-no").querySelector("span").textContent = no;
    $("xe-confirm-cancel").hidden = !withCancel;
    return new Promise(function (resolve) {
      function done(a) {
        ["yes", "no", "cancel"].forEach(function (k) { $("xe-confirm-" + k).onclick = null; });
        d.close();
        resolve(a);
      }
      ["yes", "no", "cancel"].forEach(function (k) { $("xe-confirm-" + k).onclick = function () { done(k); }; });
      d.oncancel = function (e) { e.preventDefault(); done("cancel"); };
      d.showModal();
      $("xe-confirm-no").focus();
    });
  }

  global.DossierEditorUtil = { $: $, el: el, button: button, degrees: degrees, slugify: slugify, readFile: readFile, attach: attach, confirmDialog: confirmDialog };
})(window);
