extension StringProtocol {
    /// `%XX` escapes decoded (hex digits in either case), as Foundation's
    /// `removingPercentEncoding`: nil when a `%` is not followed by two hex digits or the
    /// decoded bytes are not UTF-8 (where Foundation gives U+FFFD for a lone continuation
    /// byte such as `%A9`, this gives nil, and callers keep the raw text); a leading
    /// byte-order mark is dropped.
    public func percentDecoded() -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
            out.append(h << 4 | l)
        }
        if out.starts(with: [0xEF, 0xBB, 0xBF]) { out.removeFirst(3) }
        return String(validating: out, as: UTF8.self)
    }
}

private func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    default: return nil
    }
}
