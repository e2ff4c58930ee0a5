#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Mustache templates by name (`layout`, `recall/participant`, …), loaded from the
/// built-in `Templates/` folder and then from a project's `templates/` folder, whose
/// files replace built-in ones of the same name. Escaping is on: `{{x}}` is HTML-escaped,
/// only `{{{x}}}` inserts markup, and only for markup Dossier itself produced.
/// Models are ``TemplateRecord``s (structs whose fields are listed in one table, checked
/// against the templates by ``TemplateFieldCheck``); parsing and rendering:
/// ``MustacheParser``, ``MustacheRenderer``.
public struct TemplateSet: Sendable {
    private let renderer: MustacheRenderer
    /// SHA-256-free fingerprint of every template's text (name + text), used in cache keys.
    public let fingerprint: String
    public let names: Set<String>
    /// Names that came from the project.
    public let overridden: Set<String>
    /// Each template's text by name (the page renderer writes the built-in `layout` and
    /// `page` by compiled code only while their texts are the built-in ones).
    private let texts: [String: String]

    public enum Failure: Error, CustomStringConvertible {
        case parse(file: String, line: Int, message: String)
        case missing(String)
        public var description: String {
            switch self {
            case .parse(let f, let l, let m): return "\(f):\(l): template error: \(m)"
            case .missing(let n): return "no template named '\(n)' (looked in Templates/ and the project's templates/)"
            }
        }
    }

    /// One template's text and where it came from (for error messages).
    public struct Source: Sendable {
        public var name: String
        public var text: String
        public var file: String
        public init(name: String, text: String, file: String) { self.name = name; self.text = text; self.file = file }
    }

    /// Loads `builtIn` templates, then every `*.mustache` under each folder (later
    /// folders win); names found in the last folder count as overridden.
    public init(builtIn: [Source], folders: [URL]) throws {
        var texts: [String: (String, String)] = [:]   // name → (text, file)
        for s in builtIn { texts[s.name] = (s.text, s.file) }
        try self.init(texts: texts, folders: folders, lastOverrides: !builtIn.isEmpty || folders.count > 1)
    }

    /// Loads templates: every `*.mustache` under each folder (later folders win).
    public init(folders: [URL]) throws {
        try self.init(texts: [:], folders: folders, lastOverrides: folders.count > 1)
    }

    private init(texts: [String: (String, String)], folders: [URL], lastOverrides: Bool) throws {
        var texts = texts
        var fromLast: Set<String> = []
        for (i, folder) in folders.enumerated() {
            let fm = FileManager.default
            guard let all = try? fm.subpathsOfDirectory(atPath: folder.path) else { continue }
            for rel in all.sorted() where URL(fileURLWithPath: rel).pathExtension == "mustache" {
                let url = folder.appendingPathComponent(rel)
                let name = String(rel.dropLast(".mustache".count))
                var isFolder = false
                guard fm.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder else { continue }
                // (A template that cannot be read or is not UTF-8 is an error, not skipped:
                // the built-in one would be used in its place without a word.)
                guard let data = fm.contents(atPath: url.path) else {
                    throw Failure.parse(file: url.path, line: 1, message: "cannot read the template")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw Failure.parse(file: url.path, line: Self.firstLineNotUTF8(Array(data)),
                                        message: "not UTF-8 text; save the template as UTF-8")
                }
                texts[name] = (text, url.path)
                if i == folders.count - 1 && lastOverrides { fromLast.insert(name) }
            }
        }
        var parsed: [String: [MustacheNode]] = [:]
        var fp = Hasher64()
        for name in texts.keys.sorted() {
            let (text, file) = texts[name]!
            fp.add(name); fp.add(text)
            do {
                parsed[name] = try MustacheParser.parse(text)
            } catch {
                throw Failure.parse(
                    file: file, line: MustacheParser.line(of: error.offset, in: text), message: error.message)
            }
        }
        renderer = MustacheRenderer(templates: parsed)
        fingerprint = fp.hex
        names = Set(texts.keys)
        overridden = fromLast
        self.texts = texts.mapValues(\.0)
    }

    /// The 1-based number of the first line of `bytes` (lines end at LF) that is not UTF-8.
    static func firstLineNotUTF8(_ bytes: [UInt8]) -> Int {
        var line = 1
        for piece in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if String(validating: piece, as: UTF8.self) == nil { return line }
            line += 1
        }
        return line
    }

    /// Renders the template `name` with `model`. `capacity`: the bytes the page is
    /// expected to take (the layout: its content and a margin), reserved at once so a
    /// large page is not copied each time the text outgrows its storage.
    public func render(_ name: String, _ model: any TemplateModel, capacity: Int = 0) throws -> String {
        guard let nodes = renderer.templates[name] else { throw Failure.missing(name) }
        return renderer.render(nodes, model: .object(model), capacity: capacity)
    }

    public func has(_ name: String) -> Bool { names.contains(name) }

    /// The text of the template `name` as loaded (after any override), or nil.
    public func text(of name: String) -> String? { texts[name] }

    /// The parsed template `name` (for ``TemplateFieldCheck``).
    func parsed(_ name: String) -> [MustacheNode]? { renderer.templates[name] }
}

/// FNV-1a 64-bit, for fingerprints that need no cryptographic strength.
public struct Hasher64: Sendable {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    public init() {}
    public mutating func add(_ s: String) {
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ 0xff) &* 0x0000_0100_0000_01B3
    }
    public var hex: String { cFormat("%016llx", h) }
}
