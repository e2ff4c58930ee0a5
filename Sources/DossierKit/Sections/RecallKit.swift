#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render
import TextBasics

/// The recall test kit (`recall: kit: true`, docs/recall-kit.md): the seed's app as two
/// self-contained static pages, `recall/kit/index.html` (the test) and
/// `recall/kit/admin.html` (sessions on the device), with the strings of every string
/// set of the project built in (the administrator page chooses the set new sessions use;
/// the default set unless it does). Everything is inlined so the pages work offline and
/// from `file://`.
struct RecallKit {
    /// The project's string sets, default first: each set's name (written into the
    /// header of every log made with it, `set`) and its strings in file order (seed 4a.2).
    var sets: [(name: String, strings: StringSet)]
    /// Optional WebDAV folder the kit PUTs uploads to.
    var upload: URL?
    /// The study public key (base64 DER SubjectPublicKeyInfo) each session is sealed to
    /// before it leaves the browser (`public_key:`, docs/recall-upload.md); nil: logs go plain.
    var publicKeySPKI: String? = nil
    /// `kit_keep: sealed`: once a session is sealed the device keeps only the sealed copy.
    var keepSealedOnly = false
    /// The `public_key` file: an input of the section's `kit-key` unit, so a new key at the
    /// same path rebuilds the kit pages (the summary is reused while no unit changes).
    var publicKeyPath: String? = nil

    /// The page's scripts under `Site/`, in order: the participant-side parts both kits
    /// share (`Site/shared/`), then the kit's own.
    static let scripts = ["shared/timed-input.js", "shared/seal.js", "shared/upload-queue.js",
                          "recall/kit/kit-store.js", "recall/kit/kit-admin.js", "recall/kit/kit.js"]

    /// Reads `public_key:` and `kit_keep:` (plain or sealed; sealed needs a public key).
    mutating func readSealing(_ config: SectionConfig) throws {
        if let keyPath = try config.path("public_key", required: false) {
            publicKeySPKI = try GameKit.publicKey(at: keyPath, config: config).0
            publicKeyPath = keyPath.path
        }
        let keep = try config.string("kit_keep") ?? "plain"
        guard keep == "plain" || keep == "sealed" else {
            throw config.error("kit_keep", "kit_keep must be plain or sealed")
        }
        if keep == "sealed" && publicKeySPKI == nil {
            throw config.error(
                "kit_keep", "kit_keep: sealed needs public_key: the study's public key from `dossier recall keygen`")
        }
        keepSealedOnly = keep == "sealed"
    }

    /// The default set's strings and name.
    var strings: StringSet { sets[0].strings }
    var setName: String { sets[0].name }

    /// Reads `kit_upload:`: an `https:` (or `http:` for a loopback host) folder URL without
    /// user name, password, query or fragment (the page is public: anything in it is).
    static func uploadURL(_ config: SectionConfig) throws -> URL? {
        guard let s = try config.string("kit_upload"), !s.isEmpty else { return nil }
        guard let u = URLComponents(string: s), let scheme = u.scheme?.lowercased(), let host = u.host, !host.isEmpty
        else {
            throw config.error("kit_upload", "not a URL: give the WebDAV folder as https://host/folder/")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw config.error("kit_upload", "the upload folder must be an https: URL (http: only for 127.0.0.1)")
        }
        guard u.user == nil, u.password == nil, u.query == nil, u.fragment == nil else {
            throw config.error(
                "kit_upload",
                "the upload URL must not carry a user name, password, query or fragment: the kit page is readable by "
                    + "every participant"
            )
        }
        return u.url
    }

    /// The two pages.
    func files() throws -> [OutputFile] {
        func read(_ rel: String) throws -> String { String(decoding: try Resources.data(rel), as: UTF8.self) }
        let js = try Self.scripts.map { "/* \($0) */\n" + (try read("Site/" + $0)) }.joined(separator: "\n")
        let css = try read("Site/recall/kit/kit.css")
        let test = try Self.withSharedHead(read("Templates/recall/kit.html"))
        let admin = try Self.withSharedHead(read("Templates/recall/kit-admin.html"))
        func page(_ template: String, mode: String) -> String {
            var config: [String: JSONValue] = [
                "strings": .array(strings.strings.map { .string($0) }), "set": .string(setName),
                "mode": .string(mode), "format": .string(NativeLog.format)
            ]
            config["upload"] = upload.map { .string($0.absoluteString) } ?? .null
            config["publicKey"] = publicKeySPKI.map { .string($0) } ?? .null
            config["keep"] = .string(keepSealedOnly ? "sealed" : "plain")
            if sets.count > 1 {
                // Every set's strings, and their order for the administrator's choice.
                config["sets"] = .object(
                    Dictionary(
                        uniqueKeysWithValues: sets.map { ($0.name, .array($0.strings.strings.map { .string($0) })) }))
                config["setOrder"] = .array(sets.map { .string($0.name) })
            }
            var html = Self.expandFields(template)
            html = Self.section(html, "upload", keep: upload != nil)
            html = Self.section(html, "sets", keep: sets.count > 1)
            html = Self.section(html, "sealed", keep: publicKeySPKI != nil)
            html = Self.section(html, "keepSealed", keep: keepSealedOnly)
            html = html.replacingAll("/*KIT-CSS*/", with: css)
            html = html.replacingAll(
                "/*KIT-CONFIG*/", with: HTML.scriptSafeJSON(JSONValue.object(config).serialized(pretty: false)))
            html = html.replacingAll("/*KIT-JS*/", with: js)
            return html
        }
        return [OutputFile(path: "recall/kit/index.html", text: page(test, mode: "test")),
                OutputFile(path: "recall/kit/admin.html", text: page(admin, mode: "admin"))]
    }

    /// `page` with the start the kit pages share (`Templates/kit-head.html`: doctype,
    /// language, head, charset) in place of the `<!--KIT-HEAD-->` line each page begins with.
    static func withSharedHead(_ page: String) throws -> String {
        let head = String(decoding: try Resources.data("Templates/kit-head.html"), as: UTF8.self)
        return page.replacingAll("<!--KIT-HEAD-->\n", with: head)
    }

    /// Repeats each `{{#fields}}…{{/fields}}` block for fields 1–10 (`{{n}}`).
    static func expandFields(_ s: String) -> String {
        var out = "", rest = Substring(s)
        while let a = rest.textRange(of: "{{#fields}}"), let b = rest.textRange(of: "{{/fields}}", from: a.upperBound) {
            out += rest[..<a.lowerBound]
            let block = String(rest[a.upperBound..<b.lowerBound])
            for n in 1...StringSet.count { out += block.replacingAll("{{n}}", with: String(n)) }
            rest = rest[b.upperBound...]
        }
        return out + rest
    }

    /// Keeps or drops the text of `{{#name}}…{{/name}}`.
    static func section(_ s: String, _ name: String, keep: Bool) -> String {
        var out = "", rest = Substring(s)
        while let a = rest.textRange(of: "{{#\(name)}}"),
              let b = rest.textRange(of: "{{/\(name)}}", from: a.upperBound) {
            out += rest[..<a.lowerBound]
            if keep { out += rest[a.upperBound..<b.lowerBound] }
            rest = rest[b.upperBound...]
        }
        return out + rest
    }
}
