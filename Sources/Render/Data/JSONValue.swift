import CMarkArena
import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A JSON value written deterministically: object keys sorted by their UTF-8 bytes,
/// two-space indentation, `\n` line ends, a final newline, and numbers in one stable
/// form (see ``formatNumber(_:)``). Same value → same bytes, on every machine.
public indirect enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral v: String) { self = .string(v) }
    public init(integerLiteral v: Int) { self = .int(v) }
    public init(floatLiteral v: Double) { self = .double(v) }
    public init(booleanLiteral v: Bool) { self = .bool(v) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, b in b }))
    }
    public init(nilLiteral: ()) { self = .null }

    public static func number(_ d: Double?) -> JSONValue { d.map { .double($0) } ?? .null }
    public static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// Numbers: integers (and doubles with no fraction below 2^53) print without a
    /// point; other finite doubles print with at most 6 significant decimals after
    /// rounding to 10 significant digits, trailing zeros removed, no exponent for
    /// 1e-6 ≤ |x| < 1e15; non-finite values become `null`.
    public static func formatNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        // Whole hundredths (durations in ms / 1000 · 100, medians of .5): no printf,
        // same digits (see `DecimalText.exactHundredths`; `DataWriterTests`).
        if let k = DecimalText.exactHundredths(d) { return DecimalText.hundredths(k) }
        // Whole thousandths (ms / 1000: every cell of the keystroke-dynamics tables,
        // 3 % of a study build through printf), likewise (`ThousandthsFastPathTests`).
        if let k = DecimalText.exactThousandths(d) { return DecimalText.thousandths(k) }
        return formatNumberPrintf(d)
    }

    /// The reference path of ``formatNumber(_:)`` for any finite non-integer `d`: C's
    /// `%.10g` (as Foundation's String(format:) prints it), trailing zeros and a bare
    /// point removed unless there is an exponent, `-0` as `0`.
    static func formatNumberPrintf(_ d: Double) -> String {
        // Through a C function into a stack buffer: `withVaList` and an array per number
        // were ≈ 3 % of a study build (the keystroke-dynamics tables' means and SDs).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buf in
            let n = Int(dossier_format_g10(d, buf.baseAddress, 40))
            return buf.withMemoryRebound(to: UInt8.self) { u in
                trimmedNumber(UnsafeBufferPointer(rebasing: u[..<max(0, min(n, 39))]))
            }
        }
    }

    /// printf's `%g` text as ``formatNumber(_:)`` writes it.
    static func trimmedNumber(_ b: UnsafeBufferPointer<UInt8>) -> String {
        if b.contains(0x65) { return String(decoding: b, as: UTF8.self) }   // an exponent: as printed
        var end = b.count
        if b.contains(0x2E) {
            while end > 0, b[end - 1] == 0x30 { end -= 1 }                    // trailing zeros
            if end > 0, b[end - 1] == 0x2E { end -= 1 }                       // a bare point
        }
        let s = String(decoding: UnsafeBufferPointer(rebasing: b[..<end]), as: UTF8.self)
        return s == "-0" ? "0" : s
    }

    /// The serialised text.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: 0, pretty: pretty)
        if pretty { out += "\n" }
        return out
    }

    public var data: Data { Data(serialized().utf8) }

    private func write(into out: inout String, indent: Int, pretty: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.formatNumber(d)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: " ", count: indent + 2) }
                v.write(into: &out, indent: indent + 2, pretty: pretty)
            }
            if pretty { out += "\n" + String(repeating: " ", count: indent) }
            out += "]"
        case .object(let dict):
            if dict.isEmpty { out += "{}"; return }
            out += "{"
            for (i, key) in dict.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
                .enumerated()
            {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: " ", count: indent + 2) }
                JSONValue.writeString(key, into: &out)
                out += pretty ? ": " : ":"
                dict[key]!.write(into: &out, indent: indent + 2, pretty: pretty)
            }
            if pretty { out += "\n" + String(repeating: " ", count: indent) }
            out += "}"
        }
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        JSONText.append(s, to: &out)
        out += "\""
    }
}

/// Encodes any `Encodable` deterministically (sorted keys, stable numbers) by way of
/// Foundation's encoder and ``JSONValue``.
public enum JSONOutput {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        enc.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        let raw = try enc.encode(value)
        return try JSONValue.read(raw).data
    }
}
