import Foundation
import RecallStudy
import Render

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
    /// Optional WebDAV folder the administrator page PUTs logs to.
    var upload: URL?

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
        // The timed-input script (names each key by its change) comes first: kit.js uses it.
        let js = try read("Site/recall/kit/timed-input.js") + "\n" + read("Site/recall/kit/kit.js")
        let css = try read("Site/recall/kit/kit.css")
        let test = try read("Templates/recall/kit.html"), admin = try read("Templates/recall/kit-admin.html")
        func page(_ template: String, mode: String) -> String {
            var config: [String: JSONValue] = [
                "strings": .array(strings.strings.map { .string($0) }), "set": .string(setName),
                "mode": .string(mode), "format": .string(NativeLog.format)
            ]
            config["upload"] = upload.map { .string($0.absoluteString) } ?? .null
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
            html = html.replacingOccurrences(of: "/*KIT-CSS*/", with: css)
            html = html.replacingOccurrences(of: "/*KIT-CONFIG*/", with: Self.scriptSafe(JSONValue.object(config).serialized(pretty: false)))
            html = html.replacingOccurrences(of: "/*KIT-JS*/", with: js)
            return html
        }
        return [OutputFile(path: "recall/kit/index.html", text: page(test, mode: "test")),
                OutputFile(path: "recall/kit/admin.html", text: page(admin, mode: "admin"))]
    }

    /// JSON placed inside `<script>`: `<`, `>` and `&` (which JSON only has inside
    /// strings) as `\u003c`, `\u003e`, `\u0026`, so no text can close the element.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }

    /// Repeats each `{{#fields}}…{{/fields}}` block for fields 1–10 (`{{n}}`).
    static func expandFields(_ s: String) -> String {
        var out = "", rest = Substring(s)
        while let a = rest.range(of: "{{#fields}}"), let b = rest.range(of: "{{/fields}}", range: a.upperBound..<rest.endIndex) {
            out += rest[..<a.lowerBound]
            let block = String(rest[a.upperBound..<b.lowerBound])
            for n in 1...StringSet.count { out += block.replacingOccurrences(of: "{{n}}", with: String(n)) }
            rest = rest[b.upperBound...]
        }
        return out + rest
    }

    /// Keeps or drops the text of `{{#name}}…{{/name}}`.
    static func section(_ s: String, _ name: String, keep: Bool) -> String {
        var out = "", rest = Substring(s)
        while let a = rest.range(of: "{{#\(name)}}"), let b = rest.range(of: "{{/\(name)}}", range: a.upperBound..<rest.endIndex) {
            out += rest[..<a.lowerBound]
            if keep { out += rest[a.upperBound..<b.lowerBound] }
            rest = rest[b.upperBound...]
        }
        return out + rest
    }
}
