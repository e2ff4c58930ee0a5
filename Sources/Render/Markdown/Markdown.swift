import CCmarkGFM
import Foundation

// MARK: - Options and results

/// How Markdown is rendered. Safe by default: raw HTML is replaced by a comment and
/// `javascript:`, `vbscript:`, `file:` and most `data:` links are dropped (cmark-gfm's
/// safe mode); the `tagfilter` extension applies when raw HTML is allowed.
public struct MarkdownOptions: Sendable, Hashable {
    /// Keep raw HTML (the project opts in with `markdown: {unsafe: true}`).
    public var unsafeHTML = false
    /// Curly quotes and dashes.
    public var smartPunctuation = false
    public init(unsafeHTML: Bool = false, smartPunctuation: Bool = false) {
        self.unsafeHTML = unsafeHTML
        self.smartPunctuation = smartPunctuation
    }
}

/// One heading for a table of contents.
public struct TOCEntry: Sendable, Hashable, Codable {
    public var level: Int
    public var text: String
    public var anchor: String
    public init(level: Int, text: String, anchor: String) {
        self.level = level
        self.text = text
        self.anchor = anchor
    }
}

/// Rendered HTML and its headings.
public struct RenderedMarkdown: Sendable, Hashable {
    public var html: String
    public var toc: [TOCEntry]
}

// MARK: - Renderer

/// GitHub-Flavoured Markdown through libcmark-gfm with the table, strikethrough,
/// autolink, tagfilter and tasklist extensions. Headings get stable `id`s (see
/// ``Slug``) and a self-link, in document order.
public enum Markdown {
    static let extensionNames = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]

    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// Renders `text`. Thread-safe: every call has its own parser.
    public static func render(_ text: String, options: MarkdownOptions = MarkdownOptions()) -> RenderedMarkdown {
        _ = registered
        var flags: Int32 = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_GITHUB_PRE_LANG
        if options.unsafeHTML { flags |= CMARK_OPT_UNSAFE }
        if options.smartPunctuation { flags |= CMARK_OPT_SMART }
        guard let parser = cmark_parser_new(flags) else { return RenderedMarkdown(html: "", toc: []) }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, ext)
            }
        }
        var utf8 = text
        utf8.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        guard let doc = cmark_parser_finish(parser) else { return RenderedMarkdown(html: "", toc: []) }
        defer { cmark_node_free(doc) }

        // Headings in document order, with their plain text.
        var toc: [TOCEntry] = []
        var slugs = Slug.Registry()
        if let iter = cmark_iter_new(doc) {
            var ev = cmark_iter_next(iter)
            while ev != CMARK_EVENT_DONE {
                if ev == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iter), cmark_node_get_type(node) == CMARK_NODE_HEADING {
                    let level = Int(cmark_node_get_heading_level(node))
                    let plain = plainText(node)
                    toc.append(TOCEntry(level: level, text: plain, anchor: slugs.unique(Slug.make(plain))))
                }
                ev = cmark_iter_next(iter)
            }
            cmark_iter_free(iter)
        }

        let exts = cmark_parser_get_syntax_extensions(parser)
        guard let raw = cmark_render_html(doc, flags, exts) else { return RenderedMarkdown(html: "", toc: toc) }
        var html = String(cString: raw)
        free(raw)
        if !toc.isEmpty { html = addHeadingAnchors(html, toc) }
        return RenderedMarkdown(html: html, toc: toc)
    }

    /// Concatenated text and code of a node's descendants.
    static func plainText(_ node: OpaquePointer) -> String {
        var out = ""
        guard let iter = cmark_iter_new(node) else { return out }
        var ev = cmark_iter_next(iter)
        while ev != CMARK_EVENT_DONE {
            if ev == CMARK_EVENT_ENTER, let n = cmark_iter_get_node(iter) {
                let t = cmark_node_get_type(n)
                if t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE, let lit = cmark_node_get_literal(n) {
                    out += String(cString: lit)
                } else if t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK {
                    out += " "
                }
            }
            ev = cmark_iter_next(iter)
        }
        cmark_iter_free(iter)
        return out
    }

    /// Gives the n-th `<hK>` opening tag the n-th anchor. In safe mode every `<hK>` in
    /// cmark's output is a heading (raw HTML is omitted and text is escaped); with raw
    /// HTML allowed, user-written headings may carry their own attributes and are skipped.
    static func addHeadingAnchors(_ html: String, _ toc: [TOCEntry]) -> String {
        // Scans the UTF-8 bytes (memchr for `<`) and copies the runs between headings in
        // one go: Foundation's `range(of:)` on a large String costs far more than cmark.
        var html = html
        return html.withUTF8 { src -> String in
            guard let base = src.baseAddress else { return "" }
            let n = src.count
            var out: [UInt8] = []
            out.reserveCapacity(n + toc.count * 64)
            var i = 0, copied = 0, index = 0
            while index < toc.count, i < n, let hit = memchr(base + i, 0x3C, n - i) {   // "<"
                i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                guard i + 3 < n, src[i + 1] == 0x68 else { i += 1; continue }        // "h"
                let d = src[i + 2]
                guard d >= 0x31, d <= 0x36, src[i + 3] == 0x3E else { i += 2; continue }  // 1–6, ">"
                let level = Int(d - 0x30)
                guard toc[index].level == level else { i += 2; continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: src[copied..<i]))
                let anchor = toc[index].anchor
                out.append(contentsOf: "<h\(level) id=\"\(anchor)\"><a class=\"anchor\" href=\"#\(anchor)\" aria-hidden=\"true\">#</a>".utf8)
                i += 4
                copied = i
                index += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: src[copied..<n]))
            return String(decoding: out, as: UTF8.self)
        }
    }
}

// MARK: - Slugs

/// Heading anchors as GitHub makes them: lower-cased, punctuation removed (letters,
/// digits, `-`, `_` and spaces kept), spaces → `-`; repeats get `-1`, `-2`, …
/// An empty result becomes `section`.
public enum Slug {
    public static func make(_ text: String) -> String {
        var s = ""
        for ch in text.lowercased() {
            if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" { s.append(ch) }
            else if ch == " " { s.append("-") }
        }
        return s.isEmpty ? "section" : s
    }

    /// Keeps anchors unique within one page.
    public struct Registry {
        var seen: [String: Int] = [:]
        public init() {}
        public mutating func unique(_ base: String) -> String {
            if let n = seen[base] {
                var k = n + 1
                while seen["\(base)-\(k)"] != nil { k += 1 }
                seen[base] = k
                seen["\(base)-\(k)"] = 0
                return "\(base)-\(k)"
            }
            seen[base] = 0
            return base
        }
    }
}
