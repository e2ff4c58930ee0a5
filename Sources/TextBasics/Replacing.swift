/// Literal search and replacement over UTF-8 bytes: a match is the exact byte sequence
/// of the target, wherever it starts (as Foundation's `range(of:)` and
/// `replacingOccurrences(of:with:)` find an ASCII target; Dossier's targets are ASCII
/// or fixed text, never text that canonical equivalence could match another way).
extension StringProtocol {
    /// A copy with every non-overlapping occurrence of `target` (left to right)
    /// replaced by `replacement`. An empty target changes nothing.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let bytes = Array(utf8)
        guard !t.isEmpty, bytes.count >= t.count else { return String(self) }
        var out: [UInt8] = []
        var i = 0, last = 0, changed = false
        while let at = byteOffset(of: t, in: bytes, from: i) {
            if !changed { out.reserveCapacity(bytes.count); changed = true }
            out.append(contentsOf: bytes[last..<at])
            out.append(contentsOf: replacement.utf8)
            i = at + t.count
            last = i
        }
        guard changed else { return String(self) }
        out.append(contentsOf: bytes[last...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The first occurrence of `target` at or after `from` (the start when nil), or nil.
    public func textRange(of target: String, from: Index? = nil) -> Range<Index>? {
        let t = Array(target.utf8)
        let u = utf8
        let start = u.distance(from: u.startIndex, to: from ?? startIndex)
        guard !t.isEmpty, let at = byteOffset(of: t, in: Array(u), from: start) else { return nil }
        let lower = u.index(u.startIndex, offsetBy: at)
        return lower..<u.index(lower, offsetBy: t.count)
    }

    /// The last occurrence of `target`, or nil (`range(of:options: .backwards)`).
    public func lastTextRange(of target: String) -> Range<Index>? {
        let t = Array(target.utf8)
        let bytes = Array(utf8)
        guard !t.isEmpty, bytes.count >= t.count else { return nil }
        var at = bytes.count - t.count
        while at >= 0 {
            if bytes[at..<at + t.count].elementsEqual(t) {
                let lower = utf8.index(utf8.startIndex, offsetBy: at)
                return lower..<utf8.index(lower, offsetBy: t.count)
            }
            at -= 1
        }
        return nil
    }
}

/// The first offset ≥ `from` where `target` (non-empty) starts in `bytes`.
func byteOffset(of target: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
    guard let first = target.first, bytes.count >= target.count else { return nil }
    var i = from
    let lastStart = bytes.count - target.count
    while i <= lastStart {
        if bytes[i] == first, bytes[i..<i + target.count].elementsEqual(target) { return i }
        i += 1
    }
    return nil
}
