/// A strict, streaming (pull) reader of XML 1.0 with namespaces, in UTF-8, without DTDs.
/// docs/xml.md defines exactly what it accepts and refuses.
///
/// ```swift
/// var scanner = try XMLScanner(bytes)
/// while let event = try scanner.next() { … }   // nil after the root element closed
/// ```
///
/// Work is linear in the input; nesting is limited to ``maxDepth`` and nothing recurses.
public struct XMLScanner {
    /// The deepest element nesting accepted.
    public static let maxDepth = 256

    let s: [UInt8]
    var pos = 0
    private var open: [(qname: String, name: XMLName, declared: [String])] = []
    private var namespaces = XMLNamespaces()
    private var pendingEnd = false
    private var sawRoot = false
    private var eventStart = 0
    // incremental line counting for `location` (positions only move forward)
    private var countedTo = 0, countedLine = 1, countedColumn = 1

    /// Prepares the bytes (BOM, line endings, UTF-8 and character checks); throws the
    /// first invalid character.
    public init<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(XMLError) {
        s = try XMLInput.prepare(bytes)
    }

    /// The names of the elements open now, outermost first.
    public var openElements: [XMLName] { open.map(\.name) }

    /// The 1-based line and column where the last reported event began.
    public mutating func location() -> (line: Int, column: Int) {
        while countedTo < eventStart {
            let b = s[countedTo]
            if b == 0x0A { countedLine += 1; countedColumn = 1 } else if b & 0xC0 != 0x80 { countedColumn += 1 }
            countedTo += 1
        }
        return (countedLine, countedColumn)
    }

    /// The next event, or nil at the end of a well-formed document.
    public mutating func next() throws(XMLError) -> XMLEvent? {
        if pendingEnd {
            pendingEnd = false
            return .end(closeElement())
        }
        while true {
            eventStart = pos
            guard pos < s.count else {
                if let top = open.last {
                    throw fail("the document ends inside <\(top.qname)>: it is truncated or damaged")
                }
                if !sawRoot { throw fail("the document has no root element") }
                return nil
            }
            if open.isEmpty {
                while pos < s.count && XMLChars.isSpace(s[pos]) { pos += 1 }
                eventStart = pos
                if pos == s.count { continue }
                guard s[pos] == UInt8(ascii: "<") else {
                    throw fail(sawRoot ? "text after the root element" : "text before the root element")
                }
            }
            if s[pos] != UInt8(ascii: "<") { return .text(try text()) }
            if let event = try markup() { return event }
        }
    }

    // MARK: Markup

    /// At `<`: a tag (reported) or a comment / PI (skipped, nil).
    private mutating func markup() throws(XMLError) -> XMLEvent? {
        if has("<?") { try instruction(); return nil }
        if has("<!--") { try comment(); return nil }
        if has("<![CDATA[") {
            guard !open.isEmpty else { throw fail("a CDATA section outside the root element") }
            pos += 9
            let start = pos
            guard let end = find("]]>") else {
                throw failAt(s.count, "a CDATA section is not closed: the document is truncated")
            }
            pos = end + 3
            return .cdata(String(decoding: s[start..<end], as: UTF8.self))
        }
        if has("<!DOCTYPE") { throw fail("a DOCTYPE declaration is refused (no DTDs or entity declarations are read)") }
        if has("<!") { throw fail("unknown markup '<!'") }
        if has("</") { return .end(try endTag()) }
        return try startTag()
    }

    private mutating func startTag() throws(XMLError) -> XMLEvent {
        if sawRoot && open.isEmpty { throw fail("a second root element") }
        guard open.count < Self.maxDepth else { throw fail("elements are nested deeper than \(Self.maxDepth)") }
        pos += 1
        let qname = try name("an element name")
        var raw: [(qname: String, value: String, at: Int)] = []
        var seen: Set<String> = []
        var empty = false
        while true {
            let hadSpace = skipSpace()
            guard pos < s.count else { throw fail("the document ends inside the tag <\(qname)>: it is truncated") }
            if s[pos] == UInt8(ascii: ">") { pos += 1; break }
            if has("/>") { pos += 2; empty = true; break }
            guard hadSpace else { throw fail("attributes of <\(qname)> must be separated by white space") }
            let at = pos
            let aname = try name("an attribute name")
            try expectEquals(orFail: "attribute '\(aname)' has no '=' and value")
            let value = try attributeValue(aname)
            guard seen.insert(aname).inserted else { throw failAt(at, "attribute '\(aname)' is given twice") }
            raw.append((aname, value, at))
        }
        // namespace declarations first: they apply to the element's own name and attributes
        var declared: [String] = []
        for a in raw {
            let prefix: String
            if a.qname == "xmlns" { prefix = "" }
            else if a.qname.hasPrefix("xmlns:") { prefix = String(a.qname.dropFirst(6)) }
            else { continue }
            if prefix.isEmpty && a.qname != "xmlns" || prefix.contains(":") {
                throw failAt(a.at, "'\(a.qname)' is not a valid qualified name")
            }
            if prefix == "xmlns" { throw failAt(a.at, "the prefix 'xmlns' cannot be declared") }
            if prefix == "xml" && a.value != XMLNamespaces.xml {
                throw failAt(a.at, "the prefix 'xml' cannot be bound to another namespace")
            }
            if prefix != "xml" && (a.value == XMLNamespaces.xml || a.value == XMLNamespaces.xmlns) {
                throw failAt(a.at, "the namespace '\(a.value)' is reserved")
            }
            if !prefix.isEmpty && a.value.isEmpty {
                throw failAt(a.at, "the prefix '\(prefix)' cannot be bound to an empty namespace")
            }
            namespaces.push(prefix, a.value)
            declared.append(prefix)
        }
        let element = try resolve(qname, isElement: true, at: eventStart)
        var attributes: [XMLAttribute] = []
        var expanded: Set<String> = []
        for a in raw where a.qname != "xmlns" && !a.qname.hasPrefix("xmlns:") {
            let n = try resolve(a.qname, isElement: false, at: a.at)
            guard expanded.insert(n.description).inserted else {
                throw failAt(a.at, "attribute '\(a.qname)' is given twice (same namespace and name)")
            }
            attributes.append(XMLAttribute(name: n, value: a.value))
        }
        open.append((qname, element, declared))
        sawRoot = true
        pendingEnd = empty
        return .start(element, attributes: attributes)
    }

    private mutating func endTag() throws(XMLError) -> XMLName {
        pos += 2
        let qname = try name("an end-tag name")
        skipSpace()
        guard pos < s.count else { throw fail("the document ends inside the end tag </\(qname)>: it is truncated") }
        guard s[pos] == UInt8(ascii: ">") else { throw fail("the end tag </\(qname)> is not closed by '>'") }
        guard let top = open.last else { throw fail("end tag </\(qname)> without a start tag") }
        guard top.qname == qname else { throw failAt(eventStart, "end tag </\(qname)> does not match <\(top.qname)>") }
        pos += 1
        return closeElement()
    }

    private mutating func closeElement() -> XMLName {
        let top = open.removeLast()
        for p in top.declared { namespaces.pop(p) }
        return top.name
    }

    /// `prefix:local` → namespace-resolved name; an unprefixed attribute has no namespace.
    private func resolve(_ qname: String, isElement: Bool, at: Int) throws(XMLError) -> XMLName {
        let parts = qname.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return XMLName(local: qname, namespace: isElement ? namespaces.uri("") ?? "" : "", qualified: qname)
        case 2 where !parts[0].isEmpty && !parts[1].isEmpty:
            let prefix = String(parts[0])
            guard let uri = namespaces.uri(prefix) else {
                throw failAt(at, "the prefix '\(prefix)' of '\(qname)' is not declared")
            }
            return XMLName(local: String(parts[1]), namespace: uri, qualified: qname)
        default:
            throw failAt(at, "'\(qname)' is not a valid qualified name")
        }
    }

    // MARK: Comments, processing instructions, the XML declaration

    private mutating func comment() throws(XMLError) {
        pos += 4
        guard let dashes = find("--") else {
            throw failAt(s.count, "a comment is not closed: the document is truncated")
        }
        guard dashes + 2 < s.count else { throw failAt(s.count, "a comment is not closed: the document is truncated") }
        guard s[dashes + 2] == UInt8(ascii: ">") else { throw failAt(dashes, "'--' inside a comment") }
        pos = dashes + 3
    }

    private mutating func instruction() throws(XMLError) {
        let start = pos
        pos += 2
        let target = try name("a processing-instruction target")
        if target.lowercased() == "xml" {
            guard start == 0 && target == "xml" else {
                throw failAt(start, "an XML declaration is allowed only at the very start of the document")
            }
            try declaration()
            return
        }
        if has("?>") { pos += 2; return }
        guard pos < s.count else { throw fail("a processing instruction is not closed: the document is truncated") }
        guard skipSpace() else { throw fail("the target of a processing instruction must be followed by white space") }
        guard let end = find("?>") else {
            throw failAt(s.count, "a processing instruction is not closed: the document is truncated")
        }
        pos = end + 2
    }

    /// `<?xml version="1.x" encoding="UTF-8" standalone="yes"?>` (the `<?xml` read).
    private mutating func declaration() throws(XMLError) {
        var fields: [String: String] = [:]
        var order: [String] = []
        while true {
            let spaced = skipSpace()
            guard pos < s.count else { throw fail("the XML declaration is not closed: the document is truncated") }
            if has("?>") { pos += 2; break }
            guard spaced else { throw fail("the XML declaration's fields must be separated by white space") }
            let key = try name("an XML declaration field")
            try expectEquals(orFail: "XML declaration field '\(key)' has no value")
            let valueStart = pos
            let value = try attributeValue(key)
            if s[valueStart..<pos].contains(UInt8(ascii: "&")) {
                throw failAt(valueStart, "references are not allowed in the XML declaration")
            }
            fields[key] = value
            order.append(key)
        }
        let allowed = [
            ["version"], ["version", "encoding"], ["version", "standalone"], ["version", "encoding", "standalone"]
        ]
        guard allowed.contains(order) else {
            throw fail("the XML declaration must hold version, then optionally encoding and standalone")
        }
        let version = fields["version"] ?? ""
        guard version.hasPrefix("1."), version.count > 2, version.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw fail("XML version '\(version)' is not supported")
        }
        if let enc = fields["encoding"], !["utf-8", "us-ascii", "ascii"].contains(enc.lowercased()) {
            throw fail("the document declares encoding '\(enc)'; only UTF-8 (or ASCII) is read")
        }
        if let sa = fields["standalone"], sa != "yes" && sa != "no" { throw fail("standalone must be 'yes' or 'no'") }
    }

    // MARK: Text, attribute values, references

    private mutating func text() throws(XMLError) -> String {
        var out: [UInt8] = []
        while pos < s.count {
            let b = s[pos]
            if b == UInt8(ascii: "<") { break }
            if b == UInt8(ascii: "&") { try reference(into: &out); continue }
            if b == UInt8(ascii: "]") && has("]]>") { throw fail("']]>' is not allowed in text") }
            out.append(b)
            pos += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func attributeValue(_ owner: String) throws(XMLError) -> String {
        guard pos < s.count, s[pos] == UInt8(ascii: "\"") || s[pos] == UInt8(ascii: "'") else {
            throw fail("the value of '\(owner)' is not quoted")
        }
        let quote = s[pos]
        pos += 1
        var out: [UInt8] = []
        while true {
            guard pos < s.count else { throw fail("the value of '\(owner)' is not closed: the document is truncated") }
            let b = s[pos]
            if b == quote { pos += 1; break }
            if b == UInt8(ascii: "<") { throw fail("'<' inside the value of '\(owner)'") }
            if b == UInt8(ascii: "&") { try reference(into: &out); continue }
            out.append(b == 0x09 || b == 0x0A ? 0x20 : b)
            pos += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// At `&`: one of the five predefined entities or a character reference.
    private mutating func reference(into out: inout [UInt8]) throws(XMLError) {
        let at = pos
        pos += 1
        if pos < s.count && s[pos] == UInt8(ascii: "#") {
            pos += 1
            let hex = pos < s.count && s[pos] == UInt8(ascii: "x")
            if hex { pos += 1 }
            var value: UInt32 = 0, digits = 0
            while pos < s.count, let d = digit(s[pos], hex: hex) {
                value = min(value * (hex ? 16 : 10) + d, 0x110000)
                digits += 1
                pos += 1
            }
            guard digits > 0, pos < s.count, s[pos] == UInt8(ascii: ";") else {
                throw failAt(at, "a malformed character reference")
            }
            pos += 1
            guard XMLChars.isChar(value) else {
                throw failAt(at, "character reference to U+\(XMLInput.hex(value)), which XML does not allow")
            }
            XMLChars.append(value, to: &out)
            return
        }
        guard pos < s.count, XMLChars.isNameStart(XMLChars.scalar(s, pos).0) else {
            throw failAt(at, "'&' must start a reference ending in ';' (write &amp;)")
        }
        let entity = try name("an entity name")
        guard pos < s.count, s[pos] == UInt8(ascii: ";") else {
            throw failAt(at, "'&' must start a reference ending in ';' (write &amp;)")
        }
        pos += 1
        switch entity {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default: throw failAt(at, "undefined entity '&\(entity);'")
        }
    }

    private func digit(_ b: UInt8, hex: Bool) -> UInt32? {
        switch b {
        case 0x30...0x39: return UInt32(b - 0x30)
        case 0x41...0x46 where hex: return UInt32(b - 0x37)
        case 0x61...0x66 where hex: return UInt32(b - 0x57)
        default: return nil
        }
    }

    // MARK: Lexing helpers

    private mutating func name(_ what: String) throws(XMLError) -> String {
        let start = pos
        guard pos < s.count else { throw fail("the document ends where \(what) should be: it is truncated") }
        let (first, n) = XMLChars.scalar(s, pos)
        guard XMLChars.isNameStart(first) else { throw fail("\(what) is missing or starts with an invalid character") }
        pos += n
        while pos < s.count {
            let (c, k) = XMLChars.scalar(s, pos)
            guard XMLChars.isName(c) else { break }
            pos += k
        }
        return String(decoding: s[start..<pos], as: UTF8.self)
    }

    @discardableResult private mutating func skipSpace() -> Bool {
        let start = pos
        while pos < s.count && XMLChars.isSpace(s[pos]) { pos += 1 }
        return pos > start
    }

    /// `=` between optional white space (an attribute's or a declaration field's), or
    /// the error `reason` at the character found instead.
    private mutating func expectEquals(orFail reason: @autoclosure () -> String) throws(XMLError) {
        skipSpace()
        guard pos < s.count, s[pos] == UInt8(ascii: "=") else { throw fail(reason()) }
        pos += 1
        skipSpace()
    }

    private func has(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard pos + n <= s.count else { return false }
        let p = literal.utf8Start
        for k in 0..<n where s[pos + k] != p[k] { return false }
        return true
    }

    /// The first index ≥ `pos` where `literal` starts.
    private func find(_ literal: StaticString) -> Int? {
        let n = literal.utf8CodeUnitCount, p = literal.utf8Start
        var i = pos
        while i + n <= s.count {
            if s[i] == p[0] {
                var k = 1
                while k < n && s[i + k] == p[k] { k += 1 }
                if k == n { return i }
            }
            i += 1
        }
        return nil
    }

    private func fail(_ reason: String) -> XMLError { XMLInput.position(s, pos, reason) }
    private func failAt(_ at: Int, _ reason: String) -> XMLError { XMLInput.position(s, at, reason) }
}
