extension StringProtocol {
    /// Unicode Normalization Form C (canonical composition), as Foundation's
    /// `precomposedStringWithCanonicalMapping`, from the standard library's own tables.
    public var nfc: String { String(decoding: String(self)._nfcCodeUnits, as: UTF8.self) }

    /// Whether `self` and `other` are equal ignoring case: both full-uppercased, then
    /// lowercased, then in NFC, compared scalar by scalar (Foundation's
    /// `caseInsensitiveCompare(_:) == .orderedSame` for the titles and header names
    /// Dossier compares).
    public func equalsIgnoringCase<T: StringProtocol>(_ other: T) -> Bool {
        func folded<U: StringProtocol>(_ s: U) -> String { s.uppercased().lowercased().nfc }
        return folded(self).unicodeScalars.elementsEqual(folded(other).unicodeScalars)
    }
}
