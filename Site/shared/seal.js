/* Dossier sealer, shared by both kits: signing and sealing with WebCrypto only (no crypto
   of our own), byte for byte as docs/recall-upload.md ("The envelope", "The signed
   record") and docs/game-telemetry.md ("Encrypted uploads", "Signed uploads") define it.
   - a device signing key: Ed25519, the private half never extractable;
   - a signed record: the first line of an upload's plaintext, signed over a context
     string, the values of named fields and the body;
   - the envelope RMU1: AES-256-GCM under a fresh key, that key wrapped with RSA-OAEP
     (SHA-256) to the study's public key. */
var Sealer = (function () {
  "use strict";
  var subtle = window.crypto && crypto.subtle, enc = new TextEncoder();

  function b64(bytes) {
    var s = "", b = new Uint8Array(bytes);
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s);
  }
  function unb64(s) {
    var t = atob(s), b = new Uint8Array(t.length);
    for (var i = 0; i < t.length; i++) b[i] = t.charCodeAt(i);
    return b;
  }
  function concat(parts) {
    var n = 0; parts.forEach(function (p) { n += p.length; });
    var out = new Uint8Array(n), o = 0;
    parts.forEach(function (p) { out.set(p, o); o += p.length; });
    return out;
  }
  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (x) { return (x < 16 ? "0" : "") + x.toString(16); }).join("");
  }
  /** n random bytes as 2n lower-case hex digits. */
  function randomHex(n) { return hex(crypto.getRandomValues(new Uint8Array(n))); }

  /** A new device signing key: Ed25519, the private half not extractable. */
  function newSigningKey() {
    return subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).then(function (pair) {
      return subtle.exportKey("raw", pair.publicKey).then(function (raw) {
        return { privateKey: pair.privateKey, publicKey: b64(raw) };
      });
    });
  }

  /** A signed record line and the body after it: resolves the plaintext bytes.
      `record` lists [name, value] pairs in order; the values null of "signing_key" and
      "signature" are filled in here. The signature covers context ‖ the values of
      `signed` (in that order), each followed by "\n" ‖ body. */
  function signed(record, signedNames, context, body, device) {
    var bodyBytes = typeof body === "string" ? enc.encode(body) : body, values = {};
    record.forEach(function (kv) { values[kv[0]] = kv[1]; });
    var head = context + signedNames.map(function (n) { return values[n] + "\n"; }).join("");
    return subtle.sign({ name: "Ed25519" }, device.privateKey, concat([enc.encode(head), bodyBytes])).then(function (sig) {
      var line = "{" + record.map(function (kv) {
        var v = kv[1];
        if (kv[0] === "signing_key") v = device.publicKey;
        if (kv[0] === "signature") v = b64(sig);
        return JSON.stringify(kv[0]) + ":" + JSON.stringify(v);
      }).join(",") + "}\n";
      return concat([enc.encode(line), bodyBytes]);
    });
  }

  /** Seals bytes to the study key (base64 SPKI): RMU1 ‖ u16be L ‖ wrapped key ‖ nonce ‖ ciphertext ‖ tag. */
  function seal(plain, spki) {
    var rsa = subtle.importKey("spki", unb64(spki), { name: "RSA-OAEP", hash: "SHA-256" }, false, ["encrypt"]);
    var aes = subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt"]);
    return Promise.all([rsa, aes]).then(function (k) {
      return subtle.exportKey("raw", k[1]).then(function (raw) {
        return subtle.encrypt({ name: "RSA-OAEP" }, k[0], raw).then(function (wrapped) {
          new Uint8Array(raw).fill(0);
          var w = new Uint8Array(wrapped);
          var header = concat([enc.encode("RMU1"), new Uint8Array([w.length >> 8, w.length & 255]), w]);
          var nonce = crypto.getRandomValues(new Uint8Array(12));
          return subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: header, tagLength: 128 }, k[1], plain)
            .then(function (ct) { return concat([header, nonce, new Uint8Array(ct)]); });
        });
      });
    });
  }

  /** HMAC-SHA-256 of a text with a key (a CryptoKey for HMAC). */
  function mac(key, text) {
    return subtle.sign("HMAC", key, enc.encode(text)).then(function (m) { return new Uint8Array(m); });
  }

  /** Whether this browser can sign and seal (a secure context: https, localhost or file). */
  function available() { return !!subtle; }

  return { b64: b64, unb64: unb64, concat: concat, hex: hex, randomHex: randomHex, newSigningKey: newSigningKey,
           signed: signed, seal: seal, mac: mac, available: available };
})();
