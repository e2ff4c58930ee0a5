#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Crypto
import _CryptoExtras
import Render
import TextBasics

/// The RocketMouse game kit (`game: kit: true`, docs/game-kit.md): the game as one
/// self-contained static page, `game/play/index.html`, that records sessions in the
/// format of docs/game-telemetry.md, signs and seals each upload in the browser
/// (WebCrypto) to the study's public key, sends it to `kit_upload` or offers it as a
/// `.rmu` file, and shows the player their own encrypted result from `game/results/`.
/// Everything is inlined, so the page works offline and from `file://`.
struct GameKit {
    /// The study public key as base64 DER SubjectPublicKeyInfo (what WebCrypto imports).
    var publicKeySPKI: String
    /// Its size in bits (shown to study staff on the page's About panel).
    var publicKeyBits: Int
    /// Optional WebDAV folder the page PUTs sealed uploads to.
    var upload: URL?

    /// The page's scripts under `Site/`, in the order they are inlined (each file one job):
    /// first the participant-side parts both kits share (`Site/shared/`), then the game's.
    static let scripts = ["shared/timed-input.js", "shared/seal.js", "shared/upload-queue.js"]
        + ["model.js", "seal.js", "store.js", "draw.js", "sound.js", "screens.js", "main.js"].map { "game/play/" + $0 }

    /// Reads `kit`, `public_key` and `kit_upload`; nil when `kit` is not true.
    static func read(_ config: SectionConfig) throws -> GameKit? {
        let wants = try config.bool("kit", default: false)
        let upload = try RecallKit.uploadURL(config)
        let keyPath = try config.path("public_key", required: false)
        guard wants else {
            if upload != nil { throw config.error("kit_upload", "kit_upload needs kit: true") }
            if keyPath != nil { throw config.error("public_key", "public_key needs kit: true") }
            return nil
        }
        guard let keyPath else {
            throw config.error(
                "kit", "kit: true needs public_key: the study's public key from `dossier game keygen` (study.pub)")
        }
        let (spki, bits) = try publicKey(at: keyPath, config: config)
        return GameKit(publicKeySPKI: spki, publicKeyBits: bits, upload: upload)
    }

    /// Checks the PEM file is an RSA public key of 2048 bits or more.
    static func publicKey(at url: URL, config: SectionConfig) throws -> (String, Int) {
        let shown = ((try? config.string("public_key")) ?? nil) ?? url.path
        guard let data = try? Data(contentsOf: url) else { throw config.error("public_key", "cannot read \(shown)") }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("PRIVATE KEY") {
            throw config.error(
                "public_key",
                "\(shown) holds a private key: give the study's public key (study.pub); the private key must never be "
                    + "in the site"
            )
        }
        guard let key = try? _RSA.Encryption.PublicKey(pemRepresentation: text) else {
            throw config.error(
                "public_key", "\(shown) line 1: not an RSA public key in PEM form (BEGIN PUBLIC KEY, 2048 bits or more)"
            )
        }
        return (key.derRepresentation.base64EncodedString(), key.keySizeInBits)
    }

    /// The page.
    func files() throws -> [OutputFile] {
        func read(_ rel: String) throws -> String { String(decoding: try Resources.data(rel), as: UTF8.self) }
        var html = try RecallKit.withSharedHead(read("Templates/game/play.html"))
        let js = try Self.scripts.map { "/* \($0) */\n" + (try read("Site/" + $0)) }.joined(separator: "\n")
        var config: [String: JSONValue] = ["publicKey": .string(publicKeySPKI), "publicKeyBits": .int(publicKeyBits),
                                           "results": .string("../results/")]
        config["upload"] = upload.map { .string($0.absoluteString) } ?? .null
        html = RecallKit.section(html, "upload", keep: upload != nil)
        html = html.replacingAll("/*KIT-CSS*/", with: try read("Site/game/play/play.css"))
        html = html.replacingAll("/*KIT-CONFIG*/",
                                 with: HTML.scriptSafeJSON(JSONValue.object(config).serialized(pretty: false)))
        html = html.replacingAll("/*KIT-JS*/", with: js)
        return [OutputFile(path: "game/play/index.html", text: html)]
    }

    /// What the build's cache key must cover: the key and the upload folder.
    var salt: String {
        let covered = publicKeySPKI + "|" + (upload?.absoluteString ?? "")
        return "kit=\(SHA256.hash(data: Data(covered.utf8)).hexString.prefix(16))"
    }
}
