import Testing
@testable import XMLScan

/// All events of a document, rendered compactly: `<{ns}local a=v>`, `"text"`, `</local>`.
func events(_ xml: String) throws -> [String] {
    var scanner = try XMLScanner(Array(xml.utf8))
    var out: [String] = []
    while let e = try scanner.next() {
        switch e {
        case .start(let n, let attrs):
            out.append("<\(n)" + attrs.map { " \($0.name)=\($0.value)" }.joined() + ">")
        case .text(let t): out.append("\"\(t)\"")
        case .cdata(let t): out.append("[\(t)]")
        case .end(let n): out.append("</\(n)>")
        }
    }
    return out
}

/// The error a malformed document gives.
func failure(_ xml: String) -> XMLError? {
    do { _ = try events(xml); return nil } catch let e as XMLError { return e } catch { return nil }
}

func failure(bytes: [UInt8]) -> XMLError? {
    do {
        var scanner = try XMLScanner(bytes)
        while try scanner.next() != nil {}
        return nil
    } catch { return error }
}

@Suite struct WellFormedDocumentTests {
    @Test func namespacesResolveDefaultPrefixedAndShadowed() throws {
        let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns="urn:outer"><plain/><D:x xmlns:D="urn:inner" xmlns=""><D:y/><z a="1" \
        D:b="2"/></D:x><D:href/></D:multistatus>
        """
        #expect(try events(xml) == [
            "<{DAV:}multistatus>", "<{urn:outer}plain>", "</{urn:outer}plain>",
            "<{urn:inner}x>", "<{urn:inner}y>", "</{urn:inner}y>", "<z a=1 {urn:inner}b=2>", "</z>", "</{urn:inner}x>",
            "<{DAV:}href>", "</{DAV:}href>", "</{DAV:}multistatus>",
        ])
    }

    @Test func attributesInBothQuoteStylesWithReferencesAndWhitespaceNormalised() throws {
        var s = try XMLScanner(Array("<a one='x \"y\"' two=\"p&amp;q&#65;&#x42;&lt;\" three='a\tb\nc'/>".utf8))
        guard case .start(_, let attrs) = try s.next() else { Issue.record("no start"); return }
        #expect(attrs["one"] == "x \"y\"")
        #expect(attrs["two"] == "p&qAB<")
        #expect(attrs["three"] == "a b c")
    }

    @Test func textExpandsEntitiesAndCharacterReferences() throws {
        #expect(try events("<a>&lt;&gt;&amp;&quot;&apos; &#233;&#x1F600;</a>") == ["<a>", "\"<>&\"' é😀\"", "</a>"])
    }

    @Test func cdataCommentsAndProcessingInstructions() throws {
        let xml = "<!-- head --><?pi data?><a><!-- c --><![CDATA[<b>&amp;]]]]><?x?>t</a><!-- tail --> <?end?>\n"
        #expect(try events(xml) == ["<a>", "[<b>&amp;]]]", "\"t\"", "</a>"])
    }

    @Test func crlfAndLoneCRBecomeLineFeeds() throws {
        #expect(try events("<a>1\r\n2\r3</a>") == ["<a>", "\"1\n2\n3\"", "</a>"])
        #expect(failure("<a>\r\n\r\n<b></a>")?.line == 3)
    }

    @Test func byteOrderMarkAndNonASCIINamesAreRead() throws {
        #expect(try events("\u{FEFF}<?xml version='1.0'?><Größe Maß='1'/>") == ["<Größe Maß=1>", "</Größe>"])
    }

    @Test func locationIsTheStartOfTheLastEvent() throws {
        var s = try XMLScanner(Array("<a>\n  <b/>\n</a>".utf8))
        _ = try s.next(); _ = try s.next()
        #expect(s.next2Line() == 1)
        _ = try s.next()
        #expect(s.location() == (2, 3))
    }

    @Test func deepNestingUpToTheLimitIsRead() throws {
        let n = XMLScanner.maxDepth
        let xml = String(repeating: "<a>", count: n) + String(repeating: "</a>", count: n)
        #expect(try events(xml).count == 2 * n)
    }
}

extension XMLScanner {
    mutating func next2Line() -> Int { location().line }
}

@Suite struct MalformedDocumentTests {
    /// Each malformed class: the document, the line of the error and a word of its reason.
    static let cases: [(String, Int, String)] = [
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE a [<!ENTITY x \"y\">]>\n<a>&x;</a>", 2, "DOCTYPE"),
        ("<a>\n&lol;</a>", 2, "undefined entity"),
        ("<a>\n\n<b></a>", 3, "does not match"),
        ("<a></a>\n<b/>", 2, "second root"),
        ("<a/>\ntext", 2, "after the root"),
        ("text<a/>", 1, "before the root"),
        ("<a\nx=1/>", 2, "not quoted"),
        ("<a x='1'\n x=\"2\"/>", 2, "twice"),
        ("<a xmlns:p='u' xmlns:q='u' p:x='1'\nq:x='2'/>", 2, "same namespace"),
        ("<a>\n<b>\n", 3, "truncated"),
        ("<a>\n<!-- open", 2, "comment is not closed"),
        ("<a><![CDATA[\nx", 2, "CDATA"),
        ("<a x='1", 1, "not closed"),
        ("<a\n", 2, "truncated"),
        ("", 1, "no root"),
        ("<a>&#0;</a>", 1, "U+0000"),
        ("<a>&#xD800;</a>", 1, "U+D800"),
        ("<a>&#xFFFE;</a>", 1, "U+FFFE"),
        ("<a>&#99999999999;</a>", 1, "does not allow"),
        ("<a>&#x;</a>", 1, "malformed character reference"),
        ("<a>a & b</a>", 1, "&amp;"),
        ("<a>\n]]></a>", 2, "]]>"),
        ("<a>\n<!-- a -- b --></a>", 2, "'--'"),
        ("<a>\n<p:b/></a>", 2, "not declared"),
        ("<a xmlns:p=''/>", 1, "empty namespace"),
        ("<a>\n<?xml version='1.0'?></a>", 2, "very start"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", 1, "encoding"),
        ("<?xml version=\"2.0\"?><a/>", 1, "version"),
        ("<a b='<'/>", 1, "'<'"),
        ("<a x='1'y='2'/>", 1, "white space"),
        ("<a>\n</a >x</b>", 2, "after the root"),
        ("<1a/>", 1, "invalid character"),
        ("<a:b:c xmlns:a='u'/>", 1, "qualified name"),
        ("<a>\n\u{1}</a>", 2, "U+0001"),
        ("<![CDATA[x]]><a/>", 1, "outside the root"),
        ("<!ENTITY x 'y'><a/>", 1, "unknown markup"),
        ("<a xmlns:='u'/>", 1, "qualified name"),
        ("<a xmlns:p:q='u'/>", 1, "qualified name"),
        ("<a xmlns:xmlns='u'/>", 1, "'xmlns'"),
        ("<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>", 1, "reserved"),
        ("<?xml version='1&#46;0'?><a/>", 1, "references"),
        ("<?xml encoding='UTF-8' version='1.0'?><a/>", 1, "version, then"),
        ("<a>\n</a>\n<!-- tail", 3, "comment is not closed"),
        ("<a>\n<?pi", 2, "truncated"),
        ("<a>\n</b>", 2, "does not match"),
    ]

    @Test(arguments: cases)
    func malformedDocumentIsAnErrorWithItsLine(xml: String, line: Int, reason: String) {
        let e = failure(xml)
        #expect(e != nil, "accepted: \(xml)")
        #expect(e?.line == line, "\(xml): \(String(describing: e))")
        #expect(e?.reason.contains(reason) == true, "\(xml): \(String(describing: e))")
    }

    @Test func depthBeyondTheLimitIsAnError() {
        let n = XMLScanner.maxDepth + 1
        let e = failure(String(repeating: "<a>", count: n) + String(repeating: "</a>", count: n))
        #expect(e?.reason.contains("deeper") == true)
    }

    @Test func invalidUTF8AndUTF16AreErrors() {
        #expect(failure(bytes: Array("<a>\n".utf8) + [0xC3, 0x28] + Array("</a>".utf8))?.line == 2)
        #expect(
            failure(bytes: Array("<a>".utf8) + [0xED, 0xA0, 0x80] + Array("</a>".utf8))?.reason.contains("U+D800")
                == true)
        #expect(failure(bytes: [0xFF, 0xFE, 0x3C, 0x00, 0x61, 0x00])?.reason.contains("UTF-16") == true)
    }

    @Test func billionLaughsIsRefusedAtTheDoctype() {
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        for k in 1...9 { xml += "<!ENTITY lol\(k) \"" + String(repeating: "&lol\(k - 1);", count: 10) + "\">\n" }
        xml += "]>\n<lolz>&lol9;</lolz>"
        #expect(failure(xml)?.line == 2)
    }

    @Test func hugeFlatDocumentIsReadInLinearTime() throws {
        // 100,000 siblings, attributes and references: must not be quadratic
        let body = String(repeating: "<e k='v&amp;'>t&#65;</e>", count: 100_000)
        let clock = ContinuousClock()
        var count = 0
        let took = try clock.measure { count = try events("<r>" + body + "</r>").count }
        #expect(count == 300_002)
        #expect(took < .seconds(30))
    }
}
