import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

/// The signed first line both kits put before the body of an upload's plaintext
/// (docs/recall-upload.md, "The signed record"): a flat JSON object whose values are
/// strings, one of them `signing_key` (base64 of a raw 32-byte Ed25519 public key) and one
/// `signature` (base64 of a 64-byte Ed25519 signature) over
/// `context ‖ f1 ‖ "\n" ‖ f2 ‖ "\n" ‖ … ‖ fn ‖ "\n" ‖ body`, where f1 … fn are the values of the
/// record's signed fields in the order the domain names them and body is every byte after
/// the record's newline.
public enum SignedRecord {
    /// The bytes a record's signature covers.
    public static func message(context: String, fields: [String], body: Data) -> Data {
        var m = Data(context.utf8)
        for f in fields { m.append(contentsOf: Array(f.utf8)); m.append(0x0A) }
        return m + body
    }

    /// Whether `signature` (base64, 64 bytes) verifies with `signingKey` (base64, 32 bytes) over `message`.
    public static func verify(signingKey: String, signature: String, message: Data) -> Bool {
        guard let pk = Data(base64Encoded: signingKey), pk.count == 32,
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: pk),
              let sig = Data(base64Encoded: signature), sig.count == 64 else { return false }
        return key.isValidSignature(sig, for: message)
    }

    /// A record line (with its newline) holding `fields` in order, then `signing_key` and
    /// `signature`, signed over `context` and the values of `signed` (names of `fields`).
    public static func line(type: String, fields: [(String, String)], signed: [String], context: String,
                            body: Data, key: Curve25519.Signing.PrivateKey) throws -> String {
        let values = Dictionary(fields, uniquingKeysWith: { a, _ in a })
        let sig = try key.signature(for: message(context: context, fields: signed.map { values[$0] ?? "" }, body: body))
        var parts = ["\"type\":" + FlatJSON.quote(type)]
        parts += fields.map { FlatJSON.quote($0.0) + ":" + FlatJSON.quote($0.1) }
        parts.append("\"signing_key\":" + FlatJSON.quote(key.publicKey.rawRepresentation.base64EncodedString()))
        parts.append("\"signature\":" + FlatJSON.quote(Data(sig).base64EncodedString()))
        return "{" + parts.joined(separator: ",") + "}\n"
    }

    /// The first line of `plain` and the body after it, or nil without a newline.
    public static func split(_ plain: Data) -> (record: Data, body: Data)? {
        guard let nl = plain.firstIndex(of: 0x0A) else { return nil }
        return (Data(plain[plain.startIndex..<nl]), Data(plain[(nl + 1)...]))
    }
}

/// A strict reader of one flat JSON object (RFC 8259) whose values are all strings: what a
/// signed record is. No Foundation JSON (it pulls ICU into the binary).
public enum FlatJSON {
    public enum Problem: Error, Equatable, Sendable {
        /// Not one JSON object of string values (the byte offset where reading stopped).
        case malformed(Int)
        /// A key that appears twice.
        case duplicate(String)
    }

    /// The object's keys and values, or the problem. The one JSON scanner of Dossier
    /// (Sources/JSONLines, docs/json-lines.md) reads it; only string values are allowed.
    public static func object(_ bytes: Data) throws(Problem) -> [String: String] {
        let node: JNode
        do {
            node = try JSONLinesFile.withBytes([UInt8](bytes)) { p throws(JSONLinesError) in
                try JSONReader.record(p, from: 0, to: p.count, file: "record", line: 1)
            }
        } catch {
            let m = error.message
            if m.hasPrefix("the field '"), m.hasSuffix("' appears twice") {
                throw .duplicate(String(m.dropFirst("the field '".count).dropLast("' appears twice".count)))
            }
            throw .malformed(max(0, error.column - 1))
        }
        guard let members = node.members else { throw .malformed(0) }
        var out: [String: String] = [:]
        for m in members {
            guard let v = m.value.stringValue else { throw .malformed(0) }
            out[m.key] = v
        }
        return out
    }

    /// `s` as a JSON string: `"`, `\` and control characters escaped, everything else as is.
    public static func quote(_ s: String) -> String {
        var out: [UInt8] = [0x22]
        let hex = Array("0123456789abcdef".utf8)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case 0..<0x20: out += [0x5C, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }
}
