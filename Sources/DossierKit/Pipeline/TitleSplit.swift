import Render
#if canImport(Glibc)
import Glibc
#endif

// Where "On this page" goes: after the page's title (docs/design-system.md, "Contents on
// long pages").

enum TitleSplit {
    /// Elements without an end tag.
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                                    "source", "track", "wbr"]

    /// `html` cut where the element holding its first `</h1>` ends at the top level: right
    /// after `</h1>` when the `h1` is a top-level element, else after the top-level element
    /// the `h1` sits in. The head is empty (the whole page is the body) when there is no
    /// `</h1>` or the tags never close back to the top level.
    ///
    /// Walks the UTF-8 bytes (``cutByBytes(_:)``); a page where a byte walk could read a
    /// tag differently from the walk over Characters (``splitByCharacter(_:)``, kept as
    /// its twin for `TitleSplitTests`) takes that walk. Every content page's whole HTML
    /// passes through here, twice: over Characters it was 69 % of a page build's
    /// instructions (docs/perf-pages.md).
    /// The title split of a Markdown page in the built-in `page` template (`<article
    /// class="content-page">`, the Markdown, `</article>`): its `<h1>` sits inside the
    /// article, so ``split(_:)`` would cut after the whole article and "On this page"
    /// would come after the page on a phone. The cut is made inside it: the head is the
    /// Markdown up to its title (``split(_:)`` of the article's content), the body the
    /// article holding the rest. Nil when `html` is not such an article or its content
    /// has no title (then ``split(_:)`` gives the same as before: all of it the body).
    ///
    /// The article's content is cut where it lies in `html` (``cutByBytes(_:)`` of its
    /// bytes): the head is a slice of `html`, the body the article's opening tag and the
    /// rest of `html`, one String. A content the byte walk cannot decide is copied out and
    /// cut by ``split(_:)``, as every page once was (the copies were 1 % of a pages build).
    static func splitInsideArticle(_ html: String) -> (head: Substring, body: Substring)? {
        let open = "<article class=\"content-page\">\n", close = "\n</article>\n"
        let o = open.utf8.count, c = close.utf8.count
        enum Cut { case notTheArticle, byCharacter, at(Int?) }
        var text = html
        let cut: Cut = text.withUTF8 { b in
            guard b.count >= o + c, memcmp(b.baseAddress!, open, o) == 0,
                  memcmp(b.baseAddress! + (b.count - c), close, c) == 0 else { return .notTheArticle }
            return cutByBytes(UnsafeBufferPointer(rebasing: b[o..<(b.count - c)])).map { .at($0) } ?? .byCharacter
        }
        switch cut {
        case .notTheArticle: return nil
        case .byCharacter: return splitInsideArticleByCharacter(html)
        case .at(let at):
            guard let at, at > 0 else { return nil }                    // no title: all of it the body
            let u = html.utf8
            let i = u.index(u.startIndex, offsetBy: o + at)
            var body = open
            body.reserveCapacity(u.count - at)
            body.append(contentsOf: html[i...])
            return (html[u.index(u.startIndex, offsetBy: o)..<i], body[...])
        }
    }

    /// ``splitInsideArticle(_:)`` through a copy of the article's content and ``split(_:)``.
    static func splitInsideArticleByCharacter(_ html: String) -> (head: Substring, body: Substring)? {
        let open = "<article class=\"content-page\">\n", close = "\n</article>\n"
        let bytes = html.utf8, o = open.utf8.count, c = close.utf8.count
        guard bytes.count >= o + c, bytes.starts(with: open.utf8), bytes.suffix(c).elementsEqual(close.utf8)
        else { return nil }
        let inner = String(decoding: bytes.dropFirst(o).dropLast(c), as: UTF8.self)
        let (head, rest) = split(inner)
        guard !head.isEmpty else { return nil }
        let body = open + rest + close
        return (head, body[...])
    }

    static func split(_ html: String) -> (head: Substring, body: Substring) {
        var text = html
        let cut: Int?? = text.withUTF8 { cutByBytes($0) }
        guard let known = cut else { return splitByCharacter(html) }
        guard let at = known else { return (html[html.startIndex..<html.startIndex], html[...]) }
        let i = html.utf8.index(html.utf8.startIndex, offsetBy: at)
        return (html[..<i], html[i...])
    }

    /// The byte offset to cut `html` at (``split(_:)``); `.some(nil)` for "no cut" (the
    /// whole page is the body); nil when the page needs the Character walk: some ASCII
    /// byte forms one Character with the scalar next to it (a combining mark, a zero
    /// width joiner or a spacing mark after it, a prepended concatenation mark before
    /// it), or a tag name starts with or runs into a non-ASCII byte. Otherwise every
    /// delimiter the walk reads (`<`, `>`, `/`, `-`, `!`, a tag name's letters) is a
    /// Character of its own, and the two walks read the same tags.
    static func cutByBytes(_ b: UnsafeBufferPointer<UInt8>) -> Int?? {
        guard let base = b.baseAddress, !asciiJoinsNeighbour(b) else { return b.isEmpty ? .some(nil) : nil }
        let n = b.count
        func find(_ needle: String, from: Int) -> Int? { ByteSearch.find(needle, in: b, from: from) }
        guard let title = find("</h1>", from: 0) else { return .some(nil) }
        let titleEnd = title + 5
        var depth = 0
        var i = 0
        while i < n {
            if i >= titleEnd && depth == 0 { return .some(i) }
            guard b[i] == 0x3C else {                                             // "<"
                // To the next `<` at once; the top-level check above would have run at
                // every byte before it (here depth > 0 or i < titleEnd).
                let lt = memchr(base + i, 0x3C, n - i)
                let at = lt.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? n
                if depth == 0 && titleEnd <= at { return .some(titleEnd) }
                i = at
                continue
            }
            if i + 4 <= n, b[i + 1] == 0x21, b[i + 2] == 0x2D, b[i + 3] == 0x2D {  // "<!--"
                guard let end = find("-->", from: i) else { return .some(nil) }
                i = end + 3
                continue
            }
            guard let gt = memchr(base + i, 0x3E, n - i) else { return .some(nil) }
            let close = base.distance(to: gt.assumingMemoryBound(to: UInt8.self))
            var s = i + 1
            while s < close && b[s] == 0x2F { s += 1 }                            // leading "/"s
            var e = s
            while e < close, isNameByte(b[e]) { e += 1 }
            if e < close && b[e] >= 0x80 { return nil }                          // a non-ASCII name
            let closing = i + 1 < close && b[i + 1] == 0x2F
            let selfClosing = close > i + 1 && b[close - 1] == 0x2F
            i = close + 1
            if e == s { continue }                                                // <!doctype …>, a stray <
            if closing { depth -= 1; continue }
            // The name, lower-cased, compared as bytes (a String per tag and a Set look-up
            // were half of this walk).
            let name = UnsafeBufferPointer(rebasing: b[s..<e])
            let script = isName(name, "script")
            if script || isName(name, "style") {                                 // raw text up to its end tag
                let end = script ? find("</script>", from: i) : find("</style>", from: i)
                guard let end else { return .some(nil) }
                i = end + name.count + 3
                continue
            }
            if !isVoid(name) && !selfClosing { depth += 1 }
        }
        return depth == 0 && i >= titleEnd ? .some(n) : .some(nil)
    }

    /// Whether the tag name `name` (ASCII letters, digits, `-`) is `word` (lower case) in
    /// any case: for these bytes, setting bit 0x20 is lower-casing.
    static func isName(_ name: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard name.count == word.utf8CodeUnitCount else { return false }
        for k in 0..<name.count where name[k] | 0x20 != word.utf8Start[k] { return false }
        return true
    }

    /// Whether the tag name `name` is one of ``void`` in any case.
    static func isVoid(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: return isName(name, "br") || isName(name, "hr")
        case 3: return isName(name, "col") || isName(name, "img") || isName(name, "wbr")
        case 4: return isName(name, "area") || isName(name, "base") || isName(name, "link") || isName(name, "meta")
        case 5: return isName(name, "embed") || isName(name, "input") || isName(name, "track")
        case 6: return isName(name, "source")
        default: return false
        }
    }

    /// ASCII letters and digits and `-`: what `Character.isLetter || isNumber || "-"`
    /// accepts among ASCII bytes.
    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D
    }

    /// Whether some ASCII byte of `b` is not a Character by itself: followed by a scalar
    /// that extends the Character before it (Grapheme_Extend, a spacing mark, the zero
    /// width joiner, an emoji modifier, or Thai/Lao AM), or preceded by a scalar that
    /// joins the one after it (Unicode's Prepend characters). `\r\n` is one Character
    /// too, but neither byte is one the walk reads.
    ///
    /// A scalar's two answers are remembered from its last run: a page repeats a few
    /// scalars thousands of times (the en dash of every timeline tooltip, `·`, `…`), and
    /// each answer is a look-up of Unicode properties (26 M instructions for 50
    /// participant pages). `TitleSplitTests` compares it with
    /// its plain twin kept there, `asciiJoinsNeighbourScalarByScalar`.
    static func asciiJoinsNeighbour(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i = 0
        var knownFirst: UInt32 = 0, knownLast: UInt32 = 0   // 0: none yet (never a scalar ≥ 0x80)
        while i < n {
            // To the next non-ASCII byte, 32 bytes tested at a step (a page is mostly
            // ASCII; eight at a step in Swift was ≈ 1.9 instructions a byte of the page).
            i = ByteSearch.nextNonASCII(in: b, from: i)
            if i >= n { break }
            let start = i
            while i < n && b[i] >= 0x80 { i += 1 }
            // a run of non-ASCII bytes b[start..<i]: its first and its last scalar (one
            // that answered "no" before answers "no" again)
            if start > 0 {
                let first = scalar(b, at: start)
                if first != knownFirst {
                    if extendsPrevious(first) { return true }
                    knownFirst = first
                }
            }
            if i < n {
                var at = i - 1
                while at > start && b[at] & 0xC0 == 0x80 { at -= 1 }
                let last = scalar(b, at: at)
                if last != knownLast {
                    if joinsNext(last) { return true }
                    knownLast = last
                }
            }
        }
        return false
    }

    /// The scalar whose UTF-8 starts at `b[k]` (a String's bytes are valid UTF-8).
    static func scalar(_ b: UnsafeBufferPointer<UInt8>, at k: Int) -> UInt32 {
        let lead = UInt32(b[k])
        if lead < 0xE0 { return (lead & 0x1F) << 6 | UInt32(b[k + 1] & 0x3F) }
        if lead < 0xF0 { return (lead & 0x0F) << 12 | UInt32(b[k + 1] & 0x3F) << 6 | UInt32(b[k + 2] & 0x3F) }
        return (lead & 0x07) << 18 | UInt32(b[k + 1] & 0x3F) << 12 | UInt32(b[k + 2] & 0x3F) << 6
            | UInt32(b[k + 3] & 0x3F)
    }

    static func extendsPrevious(_ v: UInt32) -> Bool {
        guard let u = Unicode.Scalar(v) else { return true }
        if u.properties.isGraphemeExtend || u.properties.generalCategory == .spacingMark { return true }
        return v == 0x200D || v == 0x0E33 || v == 0x0EB3 || (0x1F3FB...0x1F3FF).contains(v)
    }

    /// Unicode's Grapheme_Cluster_Break=Prepend scalars, and every other format
    /// character (a superset is safe: it only sends a page to the Character walk).
    static func joinsNext(_ v: UInt32) -> Bool {
        guard let u = Unicode.Scalar(v) else { return true }
        if u.properties.generalCategory == .format { return true }
        switch v {
        case 0x0D4E, 0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A, 0x11A84...0x11A89, 0x11D46, 0x11F02: return true
        default: return false
        }
    }
}

extension TitleSplit {
    /// ``split(_:)`` over Characters: the definition, and the answer for pages whose
    /// bytes ``cutByBytes(_:)`` leaves to it.
    static func splitByCharacter(_ html: String) -> (head: Substring, body: Substring) {
        let whole = (head: html[html.startIndex..<html.startIndex], body: html[...])
        guard let title = firstRange(of: "</h1>", in: html[...]) else { return whole }
        let bytes = html.utf8
        var depth = 0
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if i >= title.upperBound && depth == 0 { return (html[..<i], html[i...]) }
            guard bytes[i] == UInt8(ascii: "<") else { i = bytes.index(after: i); continue }
            let rest = html[i...]
            if rest.hasPrefix("<!--") {
                guard let end = firstRange(of: "-->", in: rest) else { return whole }
                i = end.upperBound
                continue
            }
            guard let close = rest.firstIndex(of: ">") else { return whole }
            let tag = rest[rest.index(after: rest.startIndex)..<close]
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber || $0 == "-" }.lowercased()
            i = rest.index(after: close)
            if name.isEmpty { continue }                                  // <!doctype …>, a stray <
            if tag.hasPrefix("/") { depth -= 1; continue }
            if name == "script" || name == "style" {                       // raw text up to its end tag
                guard let end = firstRange(of: "</\(name)>", in: html[i...]) else { return whole }
                i = end.upperBound
                continue
            }
            if !void.contains(name) && !tag.hasSuffix("/") { depth += 1 }
        }
        return depth == 0 && i >= title.upperBound ? (html[...], html[html.endIndex...]) : whole
    }

    /// The first occurrence of `needle` in `text`, Character by Character.
    static func firstRange(of needle: String, in text: Substring) -> Range<String.Index>? {
        var i = text.startIndex
        while i < text.endIndex {
            if text[i...].hasPrefix(needle) { return i..<text.index(i, offsetBy: needle.count) }
            i = text.index(after: i)
        }
        return nil
    }
}
