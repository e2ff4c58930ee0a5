/* RocketMouse kit — the game's records on the shared sealer (Site/shared/seal.js), byte for
   byte as docs/game-telemetry.md ("Signed uploads", "Results for the player") defines them. */
(function (RM) {
  "use strict";
  var subtle = window.crypto && crypto.subtle, enc = new TextEncoder(), X = Sealer;

  /** The plaintext of an upload: the signed device record, then `body` (text).
      Resolves {plain: bytes, resultKey: non-extractable HMAC key}. */
  function signedPlaintext(player, body, device) {
    var rk = crypto.getRandomValues(new Uint8Array(32)), rkText = X.b64(rk);
    var record = [["type", "device"], ["player", player], ["signing_key", null], ["result_key", rkText], ["signature", null]];
    return X.signed(record, ["player", "result_key"], "RocketMouse upload v2\n", body, device).then(function (plain) {
      return subtle.importKey("raw", rk, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]).then(function (key) {
        rk.fill(0);
        return { plain: plain, resultKey: key };
      });
    });
  }

  /** The result file name for a result key: hex of 16 bytes of HMAC(rk, "RocketMouse result name v1") + ".rmr". */
  function resultName(resultKey) {
    return X.mac(resultKey, "RocketMouse result name v1").then(function (m) { return X.hex(m.subarray(0, 16)) + ".rmr"; });
  }

  /** Opens a result file (RMR1 ‖ nonce ‖ ciphertext ‖ tag) with the result key: the JSON text. */
  function openResult(bytes, resultKey) {
    var b = new Uint8Array(bytes);
    if (b.length < 32 || String.fromCharCode(b[0], b[1], b[2], b[3]) !== "RMR1") return Promise.reject(new Error("not a result file"));
    return X.mac(resultKey, "RocketMouse result key v1").then(function (e) {
      return subtle.importKey("raw", e, { name: "AES-GCM" }, false, ["decrypt"]).then(function (k) {
        e.fill(0);
        return subtle.decrypt({ name: "AES-GCM", iv: b.subarray(4, 16), additionalData: enc.encode("RMR1"), tagLength: 128 }, k, b.subarray(16));
      });
    }).then(function (plain) { return new TextDecoder("utf-8", { fatal: true }).decode(plain); });
  }

  /** A fresh anonymous player id: 16 lower-case hex digits (8 random bytes). */
  function newPlayerId() { return X.randomHex(8); }

  /** A random upload file name (nothing about the player in it). */
  function uploadName() { return "rm-" + X.randomHex(12) + ".rmu"; }

  RM.seal = { newSigningKey: X.newSigningKey, signedPlaintext: signedPlaintext, seal: X.seal, resultName: resultName,
              openResult: openResult, newPlayerId: newPlayerId, uploadName: uploadName, b64: X.b64 };
})(window.RM = window.RM || {});
