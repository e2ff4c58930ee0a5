/// Trimming at both ends, scalar by scalar, as Foundation's `trimmingCharacters(in:)`
/// does with the named character sets (whose members are listed on each).
extension StringProtocol {
    /// Without leading and trailing white space: `CharacterSet.whitespaces`, i.e.
    /// U+0009 and the space separators (Unicode category Zs).
    public func trimmingWhitespace() -> String {
        trimmingScalars { isWhitespace($0) }
    }

    /// Without leading and trailing white space and line ends:
    /// `CharacterSet.whitespacesAndNewlines`, i.e. U+0009–U+000D, U+0085 and the
    /// separators (Unicode categories Zs, Zl, Zp).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { isWhitespaceOrNewline($0) }
    }

    /// Without leading and trailing punctuation (`CharacterSet.punctuationCharacters`:
    /// Unicode categories Pc, Pd, Ps, Pe, Pi, Pf, Po).
    public func trimmingPunctuation() -> String {
        trimmingScalars { isPunctuation($0) }
    }

    /// Without leading and trailing scalars that occur in `set`
    /// (`CharacterSet(charactersIn: set)`).
    public func trimming(scalarsIn set: String) -> String {
        let members = Set(set.unicodeScalars)
        return trimmingScalars { members.contains($0) }
    }

    /// Without the leading and trailing scalars for which `drop` holds.
    public func trimmingScalars(where drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, drop(scalars[start]) { start = scalars.index(after: start) }
        while end > start {
            let before = scalars.index(before: end)
            guard drop(scalars[before]) else { break }
            end = before
        }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}

/// Whether `u` is in `CharacterSet.whitespaces`: tab, a space separator (Zs), or
/// U+200B ZERO WIDTH SPACE, which Foundation's set has kept from older Unicode.
public func isWhitespace(_ u: Unicode.Scalar) -> Bool {
    if u.value < 0x80 { return u == " " || u == "\t" }
    return u.value == 0x200B || u.properties.generalCategory == .spaceSeparator
}

/// Whether `u` is in `CharacterSet.whitespacesAndNewlines`.
public func isWhitespaceOrNewline(_ u: Unicode.Scalar) -> Bool {
    if u.value < 0x80 { return u == " " || (0x09...0x0D).contains(u.value) }
    if u.value == 0x85 || u.value == 0x200B { return true }
    switch u.properties.generalCategory {
    case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
    default: return false
    }
}

/// Whether `u` is in `CharacterSet.punctuationCharacters` (categories P*).
public func isPunctuation(_ u: Unicode.Scalar) -> Bool {
    switch u.properties.generalCategory {
    case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
         .initialPunctuation, .finalPunctuation, .otherPunctuation: return true
    default: return false
    }
}

/// Whether `u` is in `CharacterSet.alphanumerics`: Unicode categories L*, M* and N*.
/// (Categories come from the Swift standard library's Unicode data. Foundation's sets on
/// Linux come from older tables: for scalars first assigned after Unicode 8.0 — Tangut,
/// and recent additions — the two can differ; `TextAgainstFoundationTests` compares every
/// scalar assigned by Unicode 8.0.)
public func isAlphanumeric(_ u: Unicode.Scalar) -> Bool {
    switch u.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
         .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber: return true
    default: return false
    }
}

extension StringProtocol {
    /// The runs between scalars that are not alphanumeric, empty runs included
    /// (`components(separatedBy: CharacterSet.alphanumerics.inverted)`).
    public func alphanumericRuns() -> [String] {
        var out: [String] = []
        var run = String.UnicodeScalarView()
        for u in unicodeScalars {
            if isAlphanumeric(u) { run.append(u) } else { out.append(String(run)); run = String.UnicodeScalarView() }
        }
        out.append(String(run))
        return out
    }
}
