#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Ids

enum ChartID {
    /// `chart-<slug of title, ≤ 24 chars>-<FNV-1a 32-bit hex of kind + title + description>`,
    /// or the caller's id reduced to `[A-Za-z0-9_-]` (prefixed with `chart-` when it does
    /// not start with a letter).
    static func make(_ options: ChartOptions, kind: String) -> String {
        if let given = options.id {
            // An id already clean (the narrow drawing's, `<wide id>-n`) is kept as it is.
            if let f = given.utf8.first, isLetter(f),
                given.utf8.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 0x2D || $0 == 0x5F })
            {
                return given
            }
            let clean = String(given.unicodeScalars.filter {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_"
            }.map(Character.init))
            if let f = clean.unicodeScalars.first, f.isASCII, f.properties.isAlphabetic { return clean }
            return "chart-" + clean
        }
        return fromASCIITitle(options, kind: kind) ?? fromTitlePlainly(options, kind: kind)
    }

    /// The id made from the title and description as written first: the title lowercased
    /// and walked by Unicode scalar (its length counted by `Character` after each), the
    /// hash over the three strings joined. The twin of ``fromASCIITitle(_:kind:)``.
    static func fromTitlePlainly(_ options: ChartOptions, kind: String) -> String {
        var slug = ""
        var dash = false
        for s in options.title.lowercased().unicodeScalars {
            if s.isASCII, s.properties.isAlphabetic || ("0"..."9").contains(s) {
                slug.unicodeScalars.append(s)
                dash = false
            } else if !dash, !slug.isEmpty {
                slug += "-"
                dash = true
            }
            if slug.count >= 24 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        var h: UInt32 = 0x811c9dc5
        for b in (kind + "\u{1f}" + options.title + "\u{1f}" + options.description).utf8 {
            h ^= UInt32(b)
            h = h &* 0x0100_0193
        }
        let hex = String(h, radix: 16)
        let hash = String(repeating: "0", count: 8 - hex.count) + hex
        return "chart-" + (slug.isEmpty ? "" : slug + "-") + hash
    }

    /// ``fromTitlePlainly(_:kind:)`` for an ASCII title, from its bytes: the slug's letters
    /// lowered and its digits kept in one pass, the hash run over the kind, the title and the
    /// description in turn. Each chart's wide drawing made its id the plain way, ≈ 20,000
    /// instructions (docs/perf-study.md, "the participant page's charts and tables").
    /// Nil for a title that is not ASCII (its lowercase may hold ASCII letters of its own).
    /// `ChartPiecesTwinTests.chartIDsAsMadePlainly` compares the two.
    static func fromASCIITitle(_ options: ChartOptions, kind: String) -> String? {
        var title = options.title
        return title.withUTF8 { t -> String? in
            var slug: [UInt8] = []
            slug.reserveCapacity(24)
            var dash = false
            for b in t {
                guard b < 0x80 else { return nil }
                if slug.count >= 24 { continue }
                let l = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
                if (l >= 0x61 && l <= 0x7A) || (l >= 0x30 && l <= 0x39) {
                    slug.append(l)
                    dash = false
                } else if !dash, !slug.isEmpty {
                    slug.append(0x2D)
                    dash = true
                }
            }
            while slug.last == 0x2D { slug.removeLast() }
            var h: UInt32 = 0x811c9dc5
            func mix(_ b: UInt8) { h = (h ^ UInt32(b)) &* 0x0100_0193 }
            for b in kind.utf8 { mix(b) }
            mix(0x1F)
            for b in t { mix(b) }
            mix(0x1F)
            for b in options.description.utf8 { mix(b) }
            let hex = String(h, radix: 16)
            let hash = String(repeating: "0", count: 8 - hex.count) + hex
            return "chart-" + (slug.isEmpty ? "" : String(decoding: slug, as: UTF8.self) + "-") + hash
        }
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}
