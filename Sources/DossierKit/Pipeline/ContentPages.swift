import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// A Markdown page from the project's `content/` folder.
///
/// ```markdown
/// ---
/// title: Methods
/// summary: How the study was run.
/// weight: 10        # lower comes first in navigation
/// draft: false      # drafts are left out unless --drafts
/// toc: true         # show the table of contents (default: true when ≥ 2 headings)
/// ---
/// # Methods …
/// ```
/// `content/methods.md` becomes `methods/index.html`; `content/a/index.md` becomes
/// `a/index.html`; `content/index.md` is the home page's introduction.
public struct ContentPage: Sendable {
    /// The file. Made from ``sourcePath`` when asked for (messages), unless the page was
    /// made with a URL: loading builds no URL per page (`URL.appending(path:)` and `path`
    /// were 17,000 instructions a page).
    public var source: URL {
        get { sourceURL ?? URL(filePath: sourcePath, directoryHint: .notDirectory) }
        set { sourceURL = newValue; sourcePath = newValue.path }
    }
    /// `source.path`, kept as text.
    public private(set) var sourcePath: String
    private var sourceURL: URL?
    /// Path relative to `content/`, e.g. `methods.md`.
    public var relative: String { didSet { outputPath = Self.outputPath(of: relative) } }
    public var title: String
    public var summary: String
    public var weight: Int
    public var draft: Bool
    public var toc: Bool?
    /// The file's bytes, read once and kept once: the body is the part of them from
    /// ``bodyStart`` on (holding it again as a String was 17 MB at 10,000 pages).
    public var raw: Data
    /// Where the Markdown body (after the front matter) starts in ``raw``, and its line.
    public var bodyStart: Int
    public var bodyLine: Int

    /// The Markdown body as text (made when asked for; a build renders
    /// ``withBodyBytes(_:)`` without making it).
    public var body: String { withBodyBytes { String(decoding: $0, as: UTF8.self) } }

    /// Calls `use` with the body's UTF-8 bytes, in place in ``raw``.
    public func withBodyBytes<R>(_ use: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try raw.withUnsafeBytes { all in
            try use(UnsafeRawBufferPointer(rebasing: all[min(bodyStart, all.count)...]))
        }
    }
    /// The hex SHA-256 of `raw` once the build has hashed it for the manifest's inputs
    /// (`BuildContext.loadContent`), else empty: the page's cache key hashes it instead of
    /// hashing `raw` a second time.
    public var rawDigest = ""

    /// The page's output path in the site (``outputPath(of:)`` of `relative`, made once:
    /// a build asks for it about ten times a page).
    public private(set) var outputPath: String

    public init(source: URL, relative: String, title: String, summary: String, weight: Int, draft: Bool,
                toc: Bool?, raw: Data, bodyStart: Int = 0, bodyLine: Int = 1) {
        self.init(sourcePath: source.path, sourceURL: source, relative: relative, title: title, summary: summary,
                  weight: weight, draft: draft, toc: toc, raw: raw, bodyStart: bodyStart, bodyLine: bodyLine)
    }

    /// A page whose file is at `sourcePath` (`sourceURL.path` when a URL is given).
    init(sourcePath: String, sourceURL: URL?, relative: String, title: String, summary: String, weight: Int,
         draft: Bool, toc: Bool?, raw: Data, bodyStart: Int = 0, bodyLine: Int = 1) {
        self.sourcePath = sourcePath; self.sourceURL = sourceURL
        self.relative = relative; self.title = title; self.summary = summary
        self.weight = weight; self.draft = draft; self.toc = toc; self.bodyStart = bodyStart; self.bodyLine = bodyLine
        self.raw = raw
        self.outputPath = Self.outputPath(of: relative)
    }

    /// The output path of the content file at `relative`: `methods.md` → `methods/index.html`,
    /// `a/index.md` → `a/index.html`, `index.md` → `index.html`.
    static func outputPath(of relative: String) -> String {
        var base = String(relative.dropLast(relative.hasSuffix(".markdown") ? 9 : 3))
        if base == "index" { return "index.html" }
        if base.hasSuffix("/index") { base = String(base.dropLast(6)) }
        return base + "/index.html"
    }

    public var isHome: Bool { outputPath == "index.html" }

    static let frontMatterKeys: Set<String> = ["title", "summary", "weight", "draft", "toc"]

    /// Reads one content file; bad front matter is an error with file and line.
    public static func load(_ url: URL, relative: String, confinement: Confinement? = nil) throws -> ContentPage {
        try load(path: url.path, url: url, relative: relative, confinement: confinement, realFolder: nil,
                 cwd: FileManager.default.currentDirectoryPath)
    }

    /// ``load(_:relative:confinement:)`` of the file at `path` (`url.path` when a URL is
    /// given; else no URL is made unless a message or a link needs one), with the real path
    /// of the file's folder, when known (``InputFile/read(path:url:shown:limit:what:confinement:realFolder:)``),
    /// and the current folder (``SitePaths/display(_:cwd:)``).
    /// `shown` and `parent`, when given, are `SitePaths.display(url, cwd: cwd)` and
    /// `url.deletingLastPathComponent()`, made by ``loadAll(in:includeDrafts:confinement:)``
    /// without Foundation's URL arithmetic per page.
    static func load(
        path: String, url given: URL?, relative: String, confinement: Confinement?, realFolder: String?, cwd: String,
        shown givenShown: String? = nil, parent: URL? = nil
    ) throws -> ContentPage {
        func fileURL() -> URL { given ?? URL(filePath: path, directoryHint: .notDirectory) }
        let shown = givenShown ?? SitePaths.display(fileURL(), cwd: cwd)
        let data = try InputFile.read(
            path: path, url: fileURL, shown: shown, limit: InputLimits.contentPage, what: "a content page",
            confinement: confinement, realFolder: realFolder)
        guard let text = String(data: data, encoding: .utf8) else { throw DossierError(file: shown, "not UTF-8 text") }
        var body = text.utf8[...]
        // (The text is the file's bytes less a leading byte order mark, which
        // `String(data:encoding:)` drops; the front matter may follow one.)
        let bom = data.count - text.utf8.count
        var bodyStart = bom, bodyLine = 1
        var fields: SectionConfig? = nil
        if let split = splitFrontMatter(bom == 0 ? data : Data(data.dropFirst(bom))) {
            guard let (after, afterStart, closingLine) = split else {
                throw DossierError(
                    file: shown, line: 1, "front matter starts with --- but never ends (add a closing --- line)")
            }
            let yamlRange = (after.lowerBound + bom)..<(after.upperBound + bom), start = afterStart + bom
            guard yamlRange.count <= InputLimits.frontMatter else {
                throw DossierError(
                    file: shown, line: 1,
                    "front matter is \(yamlRange.count) bytes, more than the maximum of "
                        + "\(InputLimits.describe(Int64(InputLimits.frontMatter))) (docs/limits.md)"
                )
            }
            var node = try FrontMatter.parse(data[yamlRange], file: shown)
            if case .null = node { node = .map([], line: 2) }
            guard case .map = node else {
                throw DossierError(file: shown, line: 2, "front matter must be key: value lines")
            }
            fields = SectionConfig(
                key: "front matter", file: shown, root: parent ?? fileURL().deletingLastPathComponent(), node: node)
            // (The text holds the file's bytes: the body is the same bytes from `start`.)
            body = text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: afterStart)...]
            bodyStart = start
            bodyLine = closingLine + 1
        }
        // The title from the file's name is made only when neither the front matter nor
        // a heading gives one (below).
        var page = ContentPage(
            sourcePath: path, sourceURL: given, relative: relative, title: "", summary: "", weight: 0, draft: false,
            toc: nil, raw: data, bodyStart: bodyStart, bodyLine: bodyLine)
        var titled = false
        if let f = fields {
            func err(_ k: String, _ m: String) -> DossierError {
                DossierError(file: shown, line: f.line(k), "\(k): \(m)")
            }
            if let t = try f.string("title") {
                // (`trimmingWhitespace().isEmpty`, without making the trimmed copy)
                if t.unicodeScalars.allSatisfy(isWhitespace) { throw err("title", "must not be empty") }
                page.title = ControlCharacters.display(t)
                titled = true
            } else if let h = firstHeading(body) { page.title = ControlCharacters.display(h); titled = true }
            page.summary = ControlCharacters.display(try f.string("summary") ?? "")
            if let w = try f.string("weight") {
                guard let i = Int(w) else { throw err("weight", "expected a whole number, got '\(w)'") }
                page.weight = i
            }
            page.draft = try boolValue(f, "draft", shown) ?? false
            page.toc = try boolValue(f, "toc", shown)
            if let bad = f.unknownKeys().first {
                throw DossierError(
                    file: shown, line: bad.keyLine,
                    "front matter: " + KeySuggestion.unknownKey(bad.key, known: frontMatterKeys.sorted()))
            }
        } else if let h = firstHeading(body) {
            page.title = ControlCharacters.display(h)
            titled = true
        }
        if !titled { page.title = ContentPage.titleFromName(relative) }
        return page
    }

    private static func boolValue(_ f: SectionConfig, _ k: String, _ shown: String) throws -> Bool? {
        guard let s = try f.string(k) else { return nil }
        switch s.lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default: throw DossierError(file: shown, line: f.line(k), "\(k): expected true or false, got '\(s)'")
        }
    }

    /// Where the front matter is: nil when the first line is not `---`; `.some(nil)`
    /// when it never closes; else the YAML's byte range, where the body starts and the
    /// 1-based number of the closing `---`/`...` line. Lines end at "\n"; spaces, tabs
    /// and a "\r" around a delimiter are ignored. A byte scan: pages are read on every
    /// core and this runs once per page.
    static func splitFrontMatter(_ data: Data) -> (Range<Int>, Int, Int)?? {
        data.withUnsafeBytes { (buf: UnsafeRawBufferPointer) -> (Range<Int>, Int, Int)?? in
            let b = buf.bindMemory(to: UInt8.self)
            let n = b.count
            func lineEnd(_ from: Int) -> Int {
                guard from < n, let p = memchr(b.baseAddress! + from, 0x0A, n - from) else { return n }
                return b.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
            }
            func isDelimiter(_ start: Int, _ end: Int, dots: Bool) -> Bool {
                var i = start, j = end
                while i < j, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
                while j > i, b[j - 1] == 0x20 || b[j - 1] == 0x09 || b[j - 1] == 0x0D { j -= 1 }
                guard j - i == 3 else { return false }
                let c = b[i]
                return (c == 0x2D || (dots && c == 0x2E)) && b[i + 1] == c && b[i + 2] == c
            }
            let first = lineEnd(0)
            guard isDelimiter(0, first, dots: false) else { return nil }
            var start = first + 1, line = 2
            while start <= n {
                let end = lineEnd(start)
                if start < n || end > start, isDelimiter(start, end, dots: true) {
                    return .some((min(first + 1, n)..<start, min(end + 1, n), line))
                }
                if end >= n { break }
                start = end + 1
                line += 1
            }
            return .some(nil)
        }
    }

    /// The text of the first level-1 ATX heading line among the body's first 40 lines: up to
    /// three spaces, `#`, then a space or a tab (as cmark reads `# x`, `#\tx`, `   # x`).
    static func firstHeading(_ body: Substring.UTF8View) -> String? {
        var count = 0
        for line in body.split(separator: 0x0A, maxSplits: 40, omittingEmptySubsequences: true) {
            count += 1
            if count > 40 { break }
            let indent = line.prefix(4).prefix { $0 == 0x20 }.count
            let rest = line.dropFirst(indent)
            let second = rest.dropFirst().first
            if indent < 4, rest.first == 0x23, second == 0x20 || second == 0x09 {
                return String(decoding: rest.dropFirst(2), as: UTF8.self).trimmingWhitespaceAndNewlines()
            }
        }
        return nil
    }

    static func titleFromName(_ relative: String) -> String {
        var name = PathText.deletingExtension(relative)
        if name.hasSuffix("/index") { name = String(name.dropLast(6)) }
        name = PathText.lastComponent(name)
        let words = name.replacingAll("-", with: " ").replacingAll("_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}

extension ConfigNode {
    /// The same tree with every line moved down by `offset`.
    func shifted(by offset: Int) -> ConfigNode {
        if offset == 0 { return self }
        switch self {
        case .scalar(let s, let l): return .scalar(s, line: l + offset)
        case .null(let l): return .null(line: l + offset)
        case .list(let items, let l): return .list(items.map { $0.shifted(by: offset) }, line: l + offset)
        case .map(let entries, let l):
            return .map(
                entries.map {
                    ConfigEntry(key: $0.key, keyLine: $0.keyLine + offset, value: $0.value.shifted(by: offset))
                }, line: l + offset)
        }
    }

    /// Parses YAML whose first line is line `lineOffset + 1` of `file`.
    static func parse(_ text: String, file: String, lineOffset: Int) throws -> ConfigNode {
        do {
            return try YAMLComposer.compose(text, file: file, lineOffset: lineOffset).shifted(by: lineOffset)
        } catch let e as DossierError {
            throw DossierError(e.diagnostics.map { var d = $0; d.line = d.line.map { $0 + lineOffset }; return d })
        }
    }
}
