#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keystore file: its JSON coding, reading with errors that name the file's own
/// field paths, and writing (docs/securesms-keystore.md).
extension Keystore {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        e.keyEncodingStrategy = .convertToSnakeCase
        return e
    }

    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        // As `.iso8601`, but a bad date names its own field (`lockout.locked_until`), not its parent.
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date"))
            }
            return date
        }
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    static func readEnvelope(_ url: URL) throws -> Envelope { try readEnvelopeAndBytes(url).0 }

    /// The checked envelope and the file's bytes as read.
    static func readEnvelopeAndBytes(_ url: URL) throws -> (Envelope, Data) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SecureSMSError.keystore("\(url.path): no keystore here (create one with `dossier sms init`)")
        }
        let env: Envelope
        do {
            env = try decoder().decode(Envelope.self, from: data)
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw SecureSMSError.keystore(
                "\(url.path): not a SecureSMS keystore (\(fieldPath(ctx.codingPath + [key])) is missing)")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx), let
            DecodingError.dataCorrupted(ctx)
        {
            let field = ctx.codingPath.isEmpty ? "" : " (\(fieldPath(ctx.codingPath)) is not valid)"
            throw SecureSMSError.keystore("\(url.path): not a SecureSMS keystore\(field)")
        } catch {
            throw SecureSMSError.keystore("\(url.path): not a SecureSMS keystore")
        }
        guard env.format == "securesms-keystore" else {
            throw SecureSMSError.keystore("\(url.path): not a SecureSMS keystore")
        }
        guard env.version == 1 else {
            throw SecureSMSError.keystore("\(url.path): keystore version \(env.version) is not supported")
        }
        do {
            try env.kdf.validate()
            try env.lockout.validate()
        } catch let e as SecureSMSError {
            throw SecureSMSError.keystore("\(url.path): \(e.description)")
        }
        guard env.verifier.count == 32 else { throw SecureSMSError.keystore("\(url.path): verifier is not 32 bytes") }
        return (env, data)
    }

    /// The path of a field as the file spells it (`lockout.max_failures`): the decoder's
    /// keys are Swift's names, converted back to snake case as the encoder writes them.
    static func fieldPath(_ path: [CodingKey]) -> String {
        path.map { key in
            key.intValue.map(String.init) ?? key.stringValue.reduce(into: "") { out, ch in
                if ch.isUppercase, !out.isEmpty { out += "_" + ch.lowercased() } else { out.append(ch) }
            }
        }.joined(separator: ".")
    }

    static func writeEnvelope(_ env: Envelope, to url: URL) throws {
        try AtomicWrite.write(try encoder().encode(env) + Data("\n".utf8), to: url)
    }
}
