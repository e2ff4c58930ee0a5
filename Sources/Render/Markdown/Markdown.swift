import CCmarkGFM
import CMarkArena
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

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
    public var text, anchor: String
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

    /// The extensions, looked up once per process (a lookup per render made a C string of
    /// each name). Registered extensions live as long as the process and are only read.
    nonisolated(unsafe) private static let extensions = {
        cmark_gfm_core_extensions_ensure_registered()
        return extensionNames.compactMap { cmark_find_syntax_extension($0) }
    }()

    /// Renders `text`. Thread-safe: every call has its own parser and allocates from
    /// its thread's arena (``CMarkArena``), released when it returns.
    public static func render(_ text: String, options: MarkdownOptions = MarkdownOptions()) -> RenderedMarkdown {
        var text = text
        return text.withUTF8 { render(bytes: UnsafeRawBufferPointer($0), options: options) }
    }

    /// Renders UTF-8 bytes (invalid sequences are replaced by U+FFFD, as cmark does).
    public static func render(
        bytes: UnsafeRawBufferPointer, options: MarkdownOptions = MarkdownOptions()
    ) -> RenderedMarkdown {
        withRendered(options: options, feed: { feed in feed(bytes) }) { html, toc in
            func finish(_ html: UnsafeBufferPointer<UInt8>) -> RenderedMarkdown {
                RenderedMarkdown(
                    html: toc.isEmpty ? String(decoding: html, as: UTF8.self) : addHeadingAnchors(html, toc), toc: toc)
            }
            // pages get labelled task checkboxes; `dossier markdown` stays cmark-gfm's output
            if let labelled = TaskListLabels.labelled(html) { return labelled.withUnsafeBufferPointer(finish) }
            return finish(html)
        }
    }

    /// Renders a file read in 64 KiB pieces and passes the HTML, heading anchors
    /// included, to `write` in pieces: the whole document is never held twice (the
    /// `dossier markdown` command, for documents of any size).
    public static func render(fileDescriptor fd: Int32, options: MarkdownOptions = MarkdownOptions(),
                              write: (UnsafeRawBufferPointer) -> Void) throws -> [TOCEntry] {
        var failure: Int32 = 0
        let toc = withRendered(options: options, feed: { feed in
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { buf.deallocate() }
            while true {
                let n = read(fd, buf.baseAddress, buf.count)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno; return }
                if n == 0 { return }
                feed(UnsafeRawBufferPointer(rebasing: buf[0..<n]))
            }
        }) { html, toc -> [TOCEntry] in
            emitWithAnchors(html, toc, write)
            return toc
        }
        if failure != 0 { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
        return toc
    }

    /// The core: parses what `feed` supplies, collects the headings, renders HTML and
    /// hands it (without anchors) to `body` while it is still in the arena.
    static func withRendered<R>(options: MarkdownOptions,
                                feed: ((UnsafeRawBufferPointer) -> Void) -> Void,
                                body: (UnsafeBufferPointer<UInt8>, [TOCEntry]) -> R) -> R {
        let extensions = Markdown.extensions
        var flags: Int32 = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_GITHUB_PRE_LANG
        if options.unsafeHTML { flags |= CMARK_OPT_UNSAFE }
        if options.smartPunctuation { flags |= CMARK_OPT_SMART }
        // Every node, buffer and the HTML itself come from this thread's arena: no
        // malloc/free per node (the `cmark-gfm` command does the same with its arena).
        // Nothing below may outlive the reset.
        defer { dossier_arena_reset() }
        var mem = cmark_mem(calloc: dossier_arena_calloc, realloc: dossier_arena_realloc, free: dossier_arena_free)
        return withUnsafeMutablePointer(to: &mem) { mem -> R in
            guard let parser = cmark_parser_new_with_mem(flags, mem) else {
                return body(UnsafeBufferPointer(start: nil, count: 0), [])
            }
            defer { cmark_parser_free(parser) }   // the tree itself goes with the arena reset
            for ext in extensions { cmark_parser_attach_syntax_extension(parser, ext) }
            feed { bytes in
                if let base = bytes.baseAddress, bytes.count > 0 {
                    cmark_parser_feed(parser, base.assumingMemoryBound(to: CChar.self), bytes.count)
                }
            }
            guard let doc = cmark_parser_finish(parser) else {
                return body(UnsafeBufferPointer(start: nil, count: 0), [])
            }

            // Headings in document order, with their plain text.
            var toc: [TOCEntry] = []
            toc.reserveCapacity(8)
            var slugs = Slug.Registry()
            collectHeadings(doc, into: &toc, slugs: &slugs)

            let exts = cmark_parser_get_syntax_extensions(parser)
            guard let raw = cmark_render_html_with_mem(doc, flags, exts, mem) else {
                return body(UnsafeBufferPointer(start: nil, count: 0), toc)
            }
            return body(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)), toc)
        }
    }

    /// Headings can only sit in container blocks (the document, block quotes, lists,
    /// list items, footnote definitions), so the walk never enters paragraphs, tables or
    /// inline content — most of the tree.
    static func collectHeadings(_ node: OpaquePointer, into toc: inout [TOCEntry], slugs: inout Slug.Registry) {
        var scratch: [UInt8] = []
        collectHeadings(node, into: &toc, slugs: &slugs, scratch: &scratch)
    }

    /// `scratch` is reused for every heading's text: one String per heading, no
    /// intermediate String per text node or for the slug (a heading-dense 20 MB
    /// document has 49,600 of them).
    private static func collectHeadings(_ node: OpaquePointer, into toc: inout [TOCEntry], slugs: inout Slug.Registry,
                                        scratch: inout [UInt8]) {
        var child = cmark_node_first_child(node)
        while let c = child {
            switch cmark_node_get_type(c) {
            case CMARK_NODE_HEADING:
                scratch.removeAll(keepingCapacity: true)
                appendPlainText(c, to: &scratch)
                let text = String(decoding: scratch, as: UTF8.self)
                let base = Slug.make(asciiBytes: scratch) ?? Slug.make(text)
                toc.append(
                    TOCEntry(level: Int(cmark_node_get_heading_level(c)), text: text, anchor: slugs.unique(base)))
            case CMARK_NODE_BLOCK_QUOTE, CMARK_NODE_LIST, CMARK_NODE_ITEM, CMARK_NODE_FOOTNOTE_DEFINITION,
                CMARK_NODE_CUSTOM_BLOCK:
                collectHeadings(c, into: &toc, slugs: &slugs, scratch: &scratch)
            default:
                break
            }
            child = cmark_node_next(c)
        }
    }

    /// Concatenated text and code of a node's descendants.
    static func plainText(_ node: OpaquePointer) -> String {
        var bytes: [UInt8] = []
        appendPlainText(node, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Walks the children directly (no iterator, no String per text node).
    static func appendPlainText(_ node: OpaquePointer, to out: inout [UInt8]) {
        var child = cmark_node_first_child(node)
        while let n = child {
            let t = cmark_node_get_type(n)
            if t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE {
                if let lit = cmark_node_get_literal(n) {
                    out.append(contentsOf: UnsafeRawBufferPointer(start: lit, count: strlen(lit)))
                }
            } else if t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK {
                out.append(0x20)
            } else if cmark_node_first_child(n) != nil {
                appendPlainText(n, to: &out)
            }
            child = cmark_node_next(n)
        }
    }

    /// Gives the n-th `<hK>` opening tag the n-th anchor. In safe mode every `<hK>` in
    /// cmark's output is a heading (raw HTML is omitted and text is escaped); with raw
    /// HTML allowed, user-written headings may carry their own attributes and are skipped.
    static func addHeadingAnchors(_ src: UnsafeBufferPointer<UInt8>, _ toc: [TOCEntry]) -> String {
        let extra = toc.reduce(0) { $0 + 2 * $1.anchor.utf8.count + 96 }  // ≥ the tag text added per heading (73 bytes)
        return String(unsafeUninitializedCapacity: src.count + extra) { out in
            var o = 0
            emitWithAnchors(src, toc) { piece in
                UnsafeMutableRawPointer(out.baseAddress! + o).copyMemory(
                    from: piece.baseAddress!, byteCount: piece.count)
                o += piece.count
            }
            return o
        }
    }

    /// Passes `src` to `emit` in pieces, with the n-th `<hK>` opening tag given the n-th
    /// anchor: `<hK id="A"><a class="anchor" href="#A" aria-hidden="true">#</a>`. Scans
    /// the bytes for `<h` (``dossier_find_pair``) and hands over the runs between headings whole.
    static func emitWithAnchors(_ src: UnsafeBufferPointer<UInt8>, _ toc: [TOCEntry],
                                _ emit: (UnsafeRawBufferPointer) -> Void) {
        guard let base = src.baseAddress else { return }
        let n = src.count
        func put(_ p: UnsafePointer<UInt8>, _ count: Int) {
            if count > 0 { emit(UnsafeRawBufferPointer(start: p, count: count)) }
        }
        var i = 0, copied = 0, index = 0
        var tag: [UInt8] = []
        func append(_ s: StaticString) {
            tag.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        // The next `<hK>` of the next entry's level K: a search for the pair `<h` (16 bytes
        // at a time), then a look at the two bytes after it.
        while index < toc.count, i + 3 < n, let hit = dossier_find_pair(base + i, n - i, 0x3C, 0x68) {
            i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            guard i + 3 < n else { break }
            guard src[i + 2] == UInt8(0x30 + toc[index].level), src[i + 3] == 0x3E else { i += 2; continue }
            put(base + copied, i - copied)
            var anchor = toc[index].anchor
            tag.removeAll(keepingCapacity: true)
            tag.append(contentsOf: UnsafeBufferPointer(start: base + i, count: 3))   // "<hK"
            anchor.withUTF8 { a in
                append(" id=\"")
                tag.append(contentsOf: a)
                append("\"><a class=\"anchor\" href=\"#")
                tag.append(contentsOf: a)
                append("\" aria-hidden=\"true\" tabindex=\"-1\">#</a>")
            }
            tag.withUnsafeBufferPointer { put($0.baseAddress!, $0.count) }
            i += 4
            copied = i
            index += 1
        }
        put(base + copied, n - copied)
    }
}

// MARK: - Slugs

/// Heading anchors as GitHub makes them: lower-cased, punctuation removed (letters,
/// digits, `-`, `_` and spaces kept), spaces → `-`; repeats get `-1`, `-2`, …
/// An empty result becomes `section`.
public enum Slug {
    public static func make(_ text: String) -> String {
        // ASCII headings (nearly all) take a byte path; anything else the Unicode one.
        if let ascii = text.utf8.withContiguousStorageIfAvailable({ make(asciiBytes: $0) })
            ?? make(asciiBytes: Array(text.utf8))
        {
            return ascii
        }
        var s = ""
        for ch in text.lowercased() {
            if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" { s.append(ch) }
            else if ch == " " { s.append("-") }
        }
        return s.isEmpty ? "section" : s
    }

    /// The slug of ASCII text given as bytes, or nil when it holds a non-ASCII byte
    /// (then ``make(_:)`` takes the Unicode path).
    static func make<C: Collection>(asciiBytes text: C) -> String? where C.Element == UInt8 {
        var ok = true
        let s = String(unsafeUninitializedCapacity: max(text.count, 7)) { out in
            var n = 0
            for b in text {
                switch b {
                case 0x41...0x5A: out[n] = b + 0x20; n += 1                          // A–Z
                case 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F: out[n] = b; n += 1         // a–z 0–9 - _
                case 0x20: out[n] = 0x2D; n += 1                                     // space
                case 0x80...: ok = false; return 0
                default: break
                }
            }
            if n == 0 {                                                               // "section"
                for (i, b) in "section".utf8.enumerated() { out[i] = b }
                return 7
            }
            return n
        }
        return ok ? s : nil
    }

    /// Keeps anchors unique within one page. A page has a few headings: up to 16 anchors
    /// are kept in a list compared in order (hashing each into a dictionary cost more);
    /// past that they move to a dictionary. `MarkdownTests` compares it with a dictionary
    /// alone.
    public struct Registry {
        var few: [(anchor: String, count: Int)] = []
        var seen: [String: Int] = [:]
        public init() {}

        func count(_ anchor: String) -> Int? {
            if seen.isEmpty { return few.first { $0.anchor == anchor }?.count }
            return seen[anchor]
        }

        /// Sets `anchor`'s count and returns the one it had.
        @discardableResult
        mutating func set(_ anchor: String, _ n: Int) -> Int? {
            guard seen.isEmpty else { return seen.updateValue(n, forKey: anchor) }
            if let k = few.firstIndex(where: { $0.anchor == anchor }) {
                defer { few[k].count = n }
                return few[k].count
            }
            if few.count < 16 {
                if few.isEmpty { few.reserveCapacity(8) }
                few.append((anchor, n))
            } else {
                seen = Dictionary(uniqueKeysWithValues: few.map { ($0.anchor, $0.count) })
                seen[anchor] = n
                few = []
            }
            return nil
        }

        public mutating func unique(_ base: String) -> String {
            if let n = set(base, 0) {
                var k = n + 1
                var candidate = base + "-" + String(k)
                while count(candidate) != nil { k += 1; candidate = base + "-" + String(k) }
                set(base, k)
                set(candidate, 0)
                return candidate
            }
            return base
        }
    }
}
