/// One piece of a parsed Mustache template.
indirect enum MustacheNode: Sendable {
    case text(String)
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}`.
    case variable(MustacheName, escaped: Bool)
    /// `{{#name}}…{{/name}}` or, inverted, `{{^name}}…{{/name}}`.
    case section(MustacheName, [MustacheNode], inverted: Bool)
    /// `{{>name}}`; a partial alone on its line is indented like the tag.
    case partial(String, indentation: String?)
}

/// A tag's name: `.` (the current value), `a.b.c` (`a` looked up through the enclosing
/// contexts, then `b` and `c` inside it) or `.a.b` (only in the current value).
struct MustacheName: Sendable {
    let parts: [String]
    /// Each part's number (``TemplateNames``), at the same index.
    let ids: [Int]
    let current: Bool

    init(_ text: String) {
        parts = text.split(separator: ".").map(String.init)
        ids = parts.map(TemplateNames.id)
        current = text.first == "."
    }
}

/// Parses Mustache text into ``MustacheNode``s: variables, sections, inverted sections,
/// comments, partials and set-delimiter tags. A tag alone on its line (only spaces and
/// tabs around it; not variables) takes the line with it. This follows swift-mustache
/// 2.x, which Dossier used before, byte for byte on the same templates; its extensions
/// (transforms `f(x)`, inheritance `{{<`/`{{$`, `{{%`, dynamic partials) are errors.
struct MustacheParser {
    struct Failure: Error {
        let offset: Int
        let message: String
    }

    private let b: [UInt8]
    private var i = 0
    private var open: [UInt8] = Array("{{".utf8)
    private var close: [UInt8] = Array("}}".utf8)

    /// Parses `text`; a failure carries the byte offset where parsing stopped.
    static func parse(_ text: String) throws(Failure) -> [MustacheNode] {
        var p = MustacheParser(b: Array(text.utf8))
        let (nodes, _) = try p.parseBlock(section: nil, newLine: true)
        return nodes
    }

    /// The 1-based line of byte `offset` in `text`.
    static func line(of offset: Int, in text: String) -> Int {
        1 + text.utf8.prefix(offset).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private init(b: [UInt8]) { self.b = b }

    private var atEnd: Bool { i >= b.count }
    private func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }
    private func fail(_ m: String) -> Failure { Failure(offset: i, message: m) }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    private static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    /// The length of a line end at `j` ("\n" or "\r\n"), else 0.
    private func newline(at j: Int) -> Int {
        guard j < b.count else { return 0 }
        if b[j] == 0x0A { return 1 }
        if b[j] == 0x0D, j + 1 < b.count, b[j + 1] == 0x0A { return 2 }
        return 0
    }
    private func starts(_ s: [UInt8], at j: Int) -> Bool {
        j + s.count <= b.count && b[j..<(j + s.count)].elementsEqual(s)
    }
    private mutating func skip(while pred: (UInt8) -> Bool) -> Range<Int> {
        let s = i
        while i < b.count, pred(b[i]) { i += 1 }
        return s..<i
    }

    /// Parses until the end (`section` nil) or the closing tag of `section`. Returns the
    /// nodes and whether the closing tag stood alone on its line.
    private mutating func parseBlock(
        section: String?, newLine startsOnNewLine: Bool
    ) throws(Failure) -> ([MustacheNode], Bool) {
        var nodes: [MustacheNode] = []
        var newLine = startsOnNewLine
        var indent = ""  // spaces and tabs read at the start of this line
        while !atEnd {
            if newLine { indent = text(skip(while: Self.isSpace)) }
            let t = readText()
            if case let n = newline(at: i), n > 0 {
                nodes.append(.text(indent + t + text(i..<(i + n))))
                i += n
                newLine = true
                continue
            }
            if !t.isEmpty {
                nodes.append(.text(indent + t))
                indent = ""
                newLine = false
            }
            if atEnd { break }
            func flushIndent() { if !indent.isEmpty { nodes.append(.text(indent)); indent = "" } }
            var alone = false
            switch b[i] {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                let inverted = b[i] == UInt8(ascii: "^")
                i += 1
                let name = try readName()
                alone = standalone(newLine)
                if !alone { flushIndent() }
                let (inner, _) = try parseBlock(section: name, newLine: newLine && alone)
                nodes.append(.section(MustacheName(name), inner, inverted: inverted))
            case UInt8(ascii: "/"):
                let at = i
                i += 1
                let name = try readName()
                guard name == section else {
                    i = at;
                    throw fail(
                        "closing tag {{/\(name)}} does not match "
                            + (section.map { "{{#\($0)}}" } ?? "any open section"))
                }
                alone = standalone(newLine)
                if !alone { flushIndent() }
                return (nodes, alone)
            case UInt8(ascii: "!"):
                i += 1
                while !atEnd, !starts(close, at: i) { i += 1 }
                guard !atEnd else { throw fail("comment never ends") }
                i += close.count
                alone = standalone(newLine)
            case UInt8(ascii: "{"), UInt8(ascii: "&"):
                let triple = b[i] == UInt8(ascii: "{")
                flushIndent()
                i += 1
                let name = try readName()
                if triple {
                    guard !atEnd, b[i] == UInt8(ascii: "}") else { throw fail("expected } to close {{{") }
                    i += 1
                }
                nodes.append(.variable(MustacheName(name), escaped: false))
            case UInt8(ascii: ">"):
                i += 1
                _ = skip(while: Self.isWhitespace)
                let name = try readName(partial: true)
                let pad = indent
                flushIndent()
                alone = standalone(newLine)
                nodes.append(.partial(name, indentation: alone ? pad : nil))
                indent = ""
            case UInt8(ascii: "="):
                i += 1
                try readDelimiters()
                alone = standalone(newLine)
            case UInt8(ascii: "<"), UInt8(ascii: "$"), UInt8(ascii: "%"):
                let tag = String(decoding: [b[i]], as: UTF8.self)
                throw fail("{{\(tag)…}} tags (template inheritance, configuration) are not supported")
            default:
                flushIndent()
                nodes.append(.variable(MustacheName(try readName()), escaped: true))
            }
            newLine = alone
        }
        if let section { throw fail("section {{#\(section)}} is never closed") }
        return (nodes, false)
    }

    /// Text up to the next opening delimiter (consumed) or line end (not consumed).
    private mutating func readText() -> String {
        let s = i
        var end = s
        while i < b.count {
            if newline(at: i) > 0 { return text(s..<i) }
            if b[i] == open[0] {
                if starts(open, at: i) { end = i; i += open.count; return text(s..<end) }
            }
            i += 1
        }
        return text(s..<i)
    }

    private static let nameBytes = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*".utf8)

    /// A tag's name and its closing delimiter.
    private mutating func readName(partial: Bool = false) throws(Failure) -> String {
        _ = skip(while: Self.isWhitespace)
        let r = skip { MustacheParser.nameBytes.contains($0) || (partial && $0 == UInt8(ascii: "/")) }
        _ = skip(while: Self.isWhitespace)
        if !atEnd, b[i] == UInt8(ascii: "(") || b[i] == UInt8(ascii: ")") {
            throw fail("transforms (name(value)) are not supported")
        }
        if partial, text(r).hasPrefix("*") { throw fail("dynamic partials are not supported") }
        guard starts(close, at: i) else {
            throw fail("unfinished tag: expected \(String(decoding: close, as: UTF8.self)) after the name")
        }
        i += close.count
        return text(r)
    }

    /// `{{=<% %>=}}`: new opening and closing delimiters.
    private mutating func readDelimiters() throws(Failure) {
        _ = skip(while: Self.isWhitespace)
        let o = skip { !Self.isWhitespace($0) }
        _ = skip(while: Self.isWhitespace)
        let c = skip { !Self.isWhitespace($0) && $0 != UInt8(ascii: "=") }
        _ = skip(while: Self.isWhitespace)
        guard !o.isEmpty, !c.isEmpty, !atEnd, b[i] == UInt8(ascii: "="), starts(close, at: i + 1) else {
            throw fail("bad set-delimiter tag (write {{=<% %>=}})")
        }
        i += 1 + close.count
        open = Array(b[o]); close = Array(b[c])
    }

    /// Whether the tag just read is alone on its line: it began one (`newLine`) and only
    /// spaces and tabs follow up to the line end, which is then consumed.
    private mutating func standalone(_ newLine: Bool) -> Bool {
        guard newLine else { return false }
        if atEnd { return true }
        var j = i
        while j < b.count, Self.isSpace(b[j]) { j += 1 }
        let n = newline(at: j)
        guard n > 0 else { return false }
        i = j + n
        return true
    }
}
