// Each TextBasics helper against the Foundation method it replaces, on many inputs:
// the helpers exist so the shipped binary carries no ICU (docs/benchmarks.md,
// "5. Start-up"); their output bytes must be what Foundation gave.
import Foundation
import TextBasics
import XCTest

final class NumberFormattingAgainstFoundationTests: XCTestCase {
    /// Doubles that stress printf: ties, negatives, tiny and huge values, NaN, infinities.
    static let doubles: [Double] = {
        var xs: [Double] = [0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1.005, 2.675, 0.045,
                            1e-7, -1e-7, 0.004999, 0.005, -0.005, 0.015, 123.456, -123.456,
                            1e15, 9e15, 1e16, 1e21, 1.7976931348623157e308, 5e-324, -1e300,
                            .nan, .infinity, -.infinity, 99.95, 99.995, 999.5, 0.1, 0.2, 0.3]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let scale = pow(10.0, Double(Int.random(in: -8...18, using: &g)))
            xs.append(Double.random(in: -1...1, using: &g) * scale)
            // exact halves at two and three decimals (binary-exact ties)
            xs.append(Double(Int.random(in: -100_000...100_000, using: &g)) / 8)
        }
        return xs
    }()

    func testFixedPointMatchesStringFormat() {
        for x in Self.doubles {
            for d in 0...6 {
                XCTAssertEqual(fixedPoint(x, decimals: d), String(format: "%.\(d)f", x), "\(x) %.\(d)f")
            }
        }
    }

    func testCFormatMatchesStringFormatForEveryFormatDossierUses() {
        for x in Self.doubles {
            for f in ["%.0f", "%.1f", "%.2f", "%.3f", "%.3g", "%.6g", "%.10g", "%.2e", "took %.3f s",
                      " (%.2f s)", "%.1f MB", "%.0f kB"] {
                XCTAssertEqual(cFormat(f, x), String(format: f, x), "\(x) \(f)")
            }
        }
        var g = SystemRandomNumberGenerator()
        var ints: [Int] = [0, 1, -1, 7, 999, 1000, 123_456_789_012, Int.max, Int.min]
        ints += (0..<500).map { _ in Int.random(in: -1_000_000...1_000_000, using: &g) }
        for i in ints {
            for f in ["%d", "%03d", "S%03d", "%012d", "00000000-0000-4000-8000-%012d"] {
                XCTAssertEqual(cFormat(f, i), String(format: f, i), "\(i) \(f)")
            }
        }
        for _ in 0..<500 {
            let u = UInt64.random(in: 0...UInt64.max, using: &g)
            XCTAssertEqual(cFormat("%016llx", u), String(format: "%016llx", u))
            let s = UInt32.random(in: 0...0x10FFFF, using: &g)
            XCTAssertEqual(cFormat("%04X", s), String(format: "%04X", s))
            XCTAssertEqual(cFormat("U+%04X", s), String(format: "U+%04X", s))
        }
        for b in UInt8.min...UInt8.max {
            XCTAssertEqual(cFormat("%%%02X", b), String(format: "%%%02X", b))
            XCTAssertEqual(lowercaseHex([b]), String(format: "%02x", b))
            XCTAssertEqual(uppercaseHex([b]), String(format: "%02X", b))
        }
        let mixed = cFormat("%d passwords of length %d: mean %.3f ms, worst %.3f ms", 12, 16, 0.12345, 2.5)
        XCTAssertEqual(mixed,
                       String(format: "%d passwords of length %d: mean %.3f ms, worst %.3f ms", 12, 16, 0.12345, 2.5))
        XCTAssertEqual(cFormat("%.1f", 1e300).count, String(format: "%.1f", 1e300).count)
    }

    func testHexOfManyBytes() {
        let bytes = (0..<1000).map { _ in UInt8.random(in: 0...255) }
        XCTAssertEqual(lowercaseHex(bytes), bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(uppercaseHex(bytes), bytes.map { String(format: "%02X", $0) }.joined())
    }
}

final class TextAgainstFoundationTests: XCTestCase {
    func testWhitespaceSetsMatchCharacterSetOnEveryScalar() {
        // Every scalar assigned by Unicode 8.0: for later ones the standard library's
        // (newer) Unicode data decides, where Foundation's Linux tables are older (Tangut,
        // Unicode 9.0, is not alphanumeric there; nor are most letters of 15.1 to 17.0).
        for v in 0...0x10FFFF {
            guard let u = Unicode.Scalar(v), let age = u.properties.age,
                  age.major < 8 || (age.major == 8 && age.minor == 0) else { continue }
            XCTAssertEqual(isWhitespace(u), CharacterSet.whitespaces.contains(u), "U+\(String(v, radix: 16))")
            XCTAssertEqual(isWhitespaceOrNewline(u), CharacterSet.whitespacesAndNewlines.contains(u),
                           "U+\(String(v, radix: 16))")
            XCTAssertEqual(isPunctuation(u), CharacterSet.punctuationCharacters.contains(u),
                           "U+\(String(v, radix: 16))")
            XCTAssertEqual(isAlphanumeric(u), CharacterSet.alphanumerics.contains(u), "U+\(String(v, radix: 16))")
        }
    }

    static let texts: [String] = [
        "", " ", "\t", "a", " a ", "\t a b \n", "\n\r\n x \r\n", "\u{00A0}x\u{3000}", "\u{2028}y\u{2029}",
        "\u{85}z\u{85}", " \u{301}e ", "e\u{301}", "-x-", "[a]", "{b}", ": k: ", "\r\rq\r", "…!x?¿",
        "«quote»", "\u{200B}z\u{200B}", "\u{FEFF}bom", "🙂 ok 🙂", "a\r\nb\rc\nd", "%41%42", "%zz", "100%",
        "%E2%82%AC", "%C3", "%c3%a9", "a%2Fb", "&lt;b&gt; &amp;amp; &quot;&#39;&#x27;", "x--y---z", "--",
    ]

    func testTrimmingMatchesTrimmingCharacters() {
        for t in Self.texts {
            XCTAssertEqual(t.trimmingWhitespace(), t.trimmingCharacters(in: .whitespaces), t.debugDescription)
            XCTAssertEqual(t.trimmingWhitespaceAndNewlines(), t.trimmingCharacters(in: .whitespacesAndNewlines),
                           t.debugDescription)
            XCTAssertEqual(t.trimmingPunctuation(), t.trimmingCharacters(in: .punctuationCharacters),
                           t.debugDescription)
            for set in ["-", ": ", "[]", "\r", "{}"] {
                XCTAssertEqual(t.trimming(scalarsIn: set), t.trimmingCharacters(in: CharacterSet(charactersIn: set)),
                               t.debugDescription)
            }
        }
    }

    func testAlphanumericRunsMatchComponentsSeparatedByInvertedAlphanumerics() {
        for t in Self.texts + ["jo.doe@example.com", "Bank of 🙂 Ünïcode_42", "a--b", "x\u{200D}y"] {
            XCTAssertEqual(t.alphanumericRuns(), t.components(separatedBy: CharacterSet.alphanumerics.inverted),
                           t.debugDescription)
        }
    }

    func testReplacingAndRangesMatchFoundation() {
        let pairs = [("\r\n", " "), ("\n", "%0A"), ("\r", "%0D"), ("%", "%25"), ("&amp;", "&"), ("&lt;", "<"),
                     ("-", " "), ("--", "—"), ("\\", "\\\\"), ("\"", "\\\""), (" ", "\u{00A0}"), ("é", "e"), ("", "x")]
        // Texts with a combining mark are left out: Foundation does not match inside a
        // grapheme cluster (" " before U+0301) and matches canonically equivalent text ("é"
        // against "e\u{301}"); these functions match bytes, for Dossier's ASCII and fixed
        // targets (Sources/TextBasics/Replacing.swift).
        let plain = (Self.texts + Self.texts.map({ $0 + $0 })).filter { t in
            let marks: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
            return !t.unicodeScalars.contains { marks.contains($0.properties.generalCategory) }
        }
        for t in plain {
            for (a, b) in pairs where !a.isEmpty {
                XCTAssertEqual(t.replacingAll(a, with: b), t.replacingOccurrences(of: a, with: b),
                               "\(t.debugDescription) \(a)")
                XCTAssertEqual(t.textRange(of: a).map { t.utf8.distance(from: t.startIndex, to: $0.lowerBound) },
                               t.range(of: a).map { t.utf8.distance(from: t.startIndex, to: $0.lowerBound) })
                let last = t.range(of: a, options: .backwards)
                XCTAssertEqual(t.lastTextRange(of: a).map { t.utf8.distance(from: t.startIndex, to: $0.lowerBound) },
                               last.map { t.utf8.distance(from: t.startIndex, to: $0.lowerBound) })
            }
        }
        XCTAssertEqual("abc".replacingAll("", with: "x"), "abc")
        let s = "a{{x}}b{{x}}c"
        let first = s.textRange(of: "{{x}}")!
        XCTAssertEqual(s.textRange(of: "{{x}}", from: first.upperBound),
                       s.range(of: "{{x}}", range: first.upperBound..<s.endIndex))
    }

    func testPercentDecodingMatchesRemovingPercentEncoding() {
        var inputs = Self.texts
        for _ in 0..<2000 {
            let n = Int.random(in: 0...6)
            let pieces = ["%", "a", "F", "0", "9", "g", "%C3", "%A9", "%2", "é", "/"]
            inputs.append((0..<n).map { _ in pieces.randomElement()! }.joined())
        }
        // One known, deliberate difference: bytes that are not UTF-8 give nil here always;
        // Foundation gives nil for some (`%C3` before a non-continuation byte) and U+FFFD
        // for others (a lone continuation byte such as `%A9`). Every caller keeps the raw
        // text on nil, so a name is never silently changed into U+FFFD.
        for t in inputs {
            let foundation = t.removingPercentEncoding
            if let ours = t.percentDecoded() {
                XCTAssertEqual(ours, foundation, t.debugDescription)
            } else {
                XCTAssertTrue(foundation == nil || foundation!.unicodeScalars.contains("\u{FFFD}"), t.debugDescription)
            }
        }
    }

    func testNFCMatchesPrecomposedStringWithCanonicalMapping() {
        let pieces = ["e\u{301}", "a\u{30A}", "\u{212B}", "\u{1E9B}\u{323}", "한", "\u{1100}\u{1161}\u{11A8}", "ﬁ", "Å",
                      "q\u{307}\u{323}",
                      "\u{0344}", "x", "\u{0958}", "🙂", " "]
        var inputs = pieces
        for _ in 0..<2000 { inputs.append((0..<Int.random(in: 1...5)).map { _ in pieces.randomElement()! }.joined()) }
        for t in inputs {
            XCTAssertEqual(Array(t.nfc.unicodeScalars), Array(t.precomposedStringWithCanonicalMapping.unicodeScalars),
                           t.debugDescription)
        }
    }

    func testEqualsIgnoringCaseMatchesCaseInsensitiveCompare() {
        let words = ["Content-Type", "content-type", "CONTENT-TYPE", "Straße", "STRASSE", "strasse", "Élan", "élan",
                     "e\u{301}lan",
                     "ǅ", "ǆ", "Σ", "ς", "σ", "bank", "Bank ", "İ", "i", "x"]
        for a in words {
            for b in words {
                XCTAssertEqual(a.equalsIgnoringCase(b), a.caseInsensitiveCompare(b) == .orderedSame, "\(a) \(b)")
            }
        }
    }

    func testPathTextMatchesNSString() {
        // "" and "a" are left out: corelibs NSString.deletingLastPathComponent traps on them.
        let paths = ["a/b/c.txt", "a/b/", "/a", "/", "a.b/c", ".hidden", "dir/.hidden", "x.tar.gz", "x.", "a//b",
                     "/a/b.c/", "../x.md", "./y", "c:/z.png", "a/b.C"]
        for p in paths {
            let ns = p as NSString
            XCTAssertEqual(PathText.deletingLastComponent(p), ns.deletingLastPathComponent, p)
            XCTAssertEqual(PathText.lastComponent(p), ns.lastPathComponent, p)
            XCTAssertEqual(PathText.pathExtension(p), ns.pathExtension, p)
            XCTAssertEqual(PathText.deletingExtension(p), ns.deletingPathExtension, p)
        }
    }
}

/// `ISODateText` (writing) and `Date.ISO8601FormatStyle` (reading, FoundationEssentials),
/// which replaced `ISO8601DateFormatter`, write and read the same text.
final class ISO8601AgainstFormatterTests: XCTestCase {
    func testFormatStyleMatchesISO8601DateFormatter() throws {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        plain.timeZone = TimeZone(identifier: "UTC")
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1),
                     Date(timeIntervalSince1970: 951_782_400),
                     Date(timeIntervalSince1970: 1_700_000_000.9995), Date(timeIntervalSince1970: 4_102_444_800)]
        for _ in 0..<3000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -2e9...5e9))) }
        // Times a half millisecond from a whole one, before and after 1970 (the rounding rule).
        for _ in 0..<3000 {
            dates.append(Date(timeIntervalSince1970: (Double.random(in: -2e9...5e9) * 1000).rounded() / 1000 + 0.0005))
        }
        for d in dates {
            XCTAssertEqual(ISODateText.format(d), plain.string(from: d), "\(d.timeIntervalSince1970)")
            XCTAssertEqual(ISODateText.format(d, fractionalSeconds: true), fractional.string(from: d),
                           "\(d.timeIntervalSince1970)")
            let day = DateFormatter()
            day.locale = Locale(identifier: "en_US_POSIX")
            day.timeZone = TimeZone(identifier: "UTC")
            day.dateFormat = "yyyy-MM-dd"
            XCTAssertEqual(String(ISODateText.format(d).prefix(10)), day.string(from: d))
            let text = plain.string(from: d)
            XCTAssertEqual(try? Date.ISO8601FormatStyle().parse(text), plain.date(from: text))
        }
        for text in ["2026-11-29T08:50:00Z", "2026-11-29T08:50:00+02:00", "2026-11-29 08:50:00Z", "2026-11-29",
                     "garbage", ""] {
            XCTAssertEqual(try? Date.ISO8601FormatStyle().parse(text), ISO8601DateFormatter().date(from: text), text)
        }
    }
}
