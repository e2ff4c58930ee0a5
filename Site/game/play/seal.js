/* RocketMouse kit — signing and sealing with WebCrypto, byte for byte as
   docs/game-telemetry.md ("Encrypted uploads", "Signed uploads", "Results for the
   player") defines them. No crypto of our own: only crypto.subtle. */
(function (RM) {
  "use strict";
  var subtle = crypto.subtle, enc = new TextEncoder();

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

  /** A new device signing key: Ed25519, the private half not extractable. */
  function newSigningKey() {
    return subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).then(function (pair) {
      return subtle.exportKey("raw", pair.publicKey).then(function (raw) {
        return { privateKey: pair.privateKey, publicKey: b64(raw) };
      });
    });
  }

  /** The plaintext of an upload: the signed device record, then `body` (text).
      Resolves {plain: bytes, resultKey: non-extractable HMAC key}. */
  function signedPlaintext(player, body, device) {
    var rk = crypto.getRandomValues(new Uint8Array(32)), rkText = b64(rk);
    var bodyBytes = enc.encode(body);
    var message = concat([enc.encode("RocketMouse upload v2\n" + player + "\n" + rkText + "\n"), bodyBytes]);
    return subtle.sign({ name: "Ed25519" }, device.privateKey, message).then(function (sig) {
      var line = '{"type":"device","player":' + JSON.stringify(player) + ',"signing_key":"' + device.publicKey +
        '","result_key":"' + rkText + '","signature":"' + b64(sig) + '"}\n';
      return subtle.importKey("raw", rk, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]).then(function (key) {
        rk.fill(0);
        return { plain: concat([enc.encode(line), bodyBytes]), resultKey: key };
      });
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

  function mac(key, text) { return subtle.sign("HMAC", key, enc.encode(text)).then(function (m) { return new Uint8Array(m); }); }

  /** The result file name for a result key: hex of 16 bytes of HMAC(rk, "RocketMouse result name v1") + ".rmr". */
  function resultName(resultKey) {
    return mac(resultKey, "RocketMouse result name v1").then(function (m) { return hex(m.subarray(0, 16)) + ".rmr"; });
  }

  /** Opens a result file (RMR1 ‖ nonce ‖ ciphertext ‖ tag) with the result key: the JSON text. */
  function openResult(bytes, resultKey) {
    var b = new Uint8Array(bytes);
    if (b.length < 32 || String.fromCharCode(b[0], b[1], b[2], b[3]) !== "RMR1") return Promise.reject(new Error("not a result file"));
    return mac(resultKey, "RocketMouse result key v1").then(function (e) {
      return subtle.importKey("raw", e, { name: "AES-GCM" }, false, ["decrypt"]).then(function (k) {
        e.fill(0);
        return subtle.decrypt({ name: "AES-GCM", iv: b.subarray(4, 16), additionalData: enc.encode("RMR1"), tagLength: 128 }, k, b.subarray(16));
      });
    }).then(function (plain) { return new TextDecoder("utf-8", { fatal: true }).decode(plain); });
  }

  /** A fresh anonymous player id: 16 lower-case hex digits (8 random bytes). */
  function newPlayerId() { return hex(crypto.getRandomValues(new Uint8Array(8))); }

  /** A random upload file name (nothing about the player in it). */
  function uploadName() { return "rm-" + hex(crypto.getRandomValues(new Uint8Array(12))) + ".rmu"; }

  RM.seal = { newSigningKey: newSigningKey, signedPlaintext: signedPlaintext, seal: seal, resultName: resultName,
              openResult: openResult, newPlayerId: newPlayerId, uploadName: uploadName, b64: b64 };
})(window.RM = window.RM || {});
