/* A ZIP writer for the experience editor (stored entries, no compression: photos, sounds
 * and videos are compressed already). Format: PKWARE APPNOTE 6.3 — local file headers,
 * central directory, end record; names in UTF-8 (flag bit 11); CRC-32 (IEEE 802.3,
 * reflected polynomial 0xEDB88320). Also recognises media by their first bytes, as
 * `dossier experiences validate` does (docs/experience-format.md, Media paths). */
(function (global) {
  "use strict";

  var TABLE = (function () {
    var t = new Uint32Array(256);
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
      t[n] = c >>> 0;
    }
    return t;
  })();
  function crc32(bytes) {
    var c = 0xFFFFFFFF;
    for (var i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xFF] ^ (c >>> 8);
    return (c ^ 0xFFFFFFFF) >>> 0;
  }

  /* entries: [{name, bytes: Uint8Array}] → Blob (application/zip). Fixed date 1980-01-01. */
  function zip(entries) {
    var parts = [], central = [], offset = 0;
    var enc = new TextEncoder();
    entries.forEach(function (e) {
      var name = enc.encode(e.name), data = e.bytes, crc = crc32(data);
      var h = new DataView(new ArrayBuffer(30));
      h.setUint32(0, 0x04034b50, true); h.setUint16(4, 20, true); h.setUint16(6, 0x0800, true);
      h.setUint16(8, 0, true); h.setUint16(10, 0, true); h.setUint16(12, 0x21, true);
      h.setUint32(14, crc, true); h.setUint32(18, data.length, true); h.setUint32(22, data.length, true);
      h.setUint16(26, name.length, true); h.setUint16(28, 0, true);
      parts.push(new Uint8Array(h.buffer), name, data);
      var c = new DataView(new ArrayBuffer(46));
      c.setUint32(0, 0x02014b50, true); c.setUint16(4, 20, true); c.setUint16(6, 20, true); c.setUint16(8, 0x0800, true);
      c.setUint16(10, 0, true); c.setUint16(12, 0, true); c.setUint16(14, 0x21, true);
      c.setUint32(16, crc, true); c.setUint32(20, data.length, true); c.setUint32(24, data.length, true);
      c.setUint16(28, name.length, true); c.setUint32(42, offset, true);
      central.push(new Uint8Array(c.buffer), name);
      offset += 30 + name.length + data.length;
    });
    var size = central.reduce(function (n, a) { return n + a.length; }, 0);
    var end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true); end.setUint16(8, entries.length, true); end.setUint16(10, entries.length, true);
    end.setUint32(12, size, true); end.setUint32(16, offset, true);
    return new Blob(parts.concat(central, [new Uint8Array(end.buffer)]), { type: "application/zip" });
  }

  /* The media family of the first bytes (the same tests as MediaSniffer in Rules.swift). */
  function family(b) {
    function at(i, s) { for (var k = 0; k < s.length; k++) if (b[i + k] !== s.charCodeAt(k)) return false; return b.length >= i + s.length; }
    if (b.length >= 3 && b[0] === 0xFF && b[1] === 0xD8 && b[2] === 0xFF) return "jpeg";
    if (b.length >= 8 && b[0] === 0x89 && at(1, "PNG") && b[4] === 0x0D && b[5] === 0x0A && b[6] === 0x1A && b[7] === 0x0A) return "png";
    if (at(0, "RIFF") && at(8, "WAVE")) return "wav";
    if (at(4, "ftyp")) return "mp4";
    if (at(0, "OggS")) return "ogg";
    if (at(0, "fLaC")) return "flac";
    if (b.length >= 4 && b[0] === 0x1A && b[1] === 0x45 && b[2] === 0xDF && b[3] === 0xA3) return "webm";
    if (at(0, "ID3")) return "mp3";
    if (b.length >= 2 && b[0] === 0xFF && (b[1] & 0xF6) === 0xF0) return "aac";
    if (b.length >= 2 && b[0] === 0xFF && (b[1] & 0xE0) === 0xE0) return "mp3";
    return null;
  }
  var EXPECTED = { jpg: ["jpeg"], jpeg: ["jpeg"], png: ["png"], wav: ["wav"], mp3: ["mp3"], m4a: ["mp4"], mp4: ["mp4"], m4v: ["mp4"],
    aac: ["aac", "mp4"], ogg: ["ogg"], oga: ["ogg"], opus: ["ogg"], flac: ["flac"], webm: ["webm"] };
  function contentMatches(ext, bytes) { return (EXPECTED[ext] || []).indexOf(family(bytes)) >= 0; }

  global.DossierZip = { zip: zip, crc32: crc32, family: family, contentMatches: contentMatches };
})(window);
