#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Known words of a log line, read in place (docs/perf-study.md, round seven)

/// A string value of the line being parsed, compared with the words it may be without
/// becoming a String. (An enum of 17 bytes, not a pair of both: `LineFields`, which
/// holds five, is set up for every line.)
enum LineWord {
    /// The value's bytes between its quotes, in the line (valid while it is): a value
    /// without escapes.
    case bytes(UnsafeBufferPointer<UInt8>)
    /// A value that held escapes, decoded.
    case text(String)

    /// The value as text (for messages and fields kept as text).
    var string: String {
        switch self {
        case .bytes(let b): return String(decoding: b, as: UTF8.self)
        case .text(let s): return s
        }
    }

    /// Whether the value is `word`.
    func isWord(_ word: StaticString) -> Bool {
        switch self {
        case .bytes(let b):
            return b.count == word.utf8CodeUnitCount && memcmp(b.baseAddress!, word.utf8Start, b.count) == 0
        case .text(let s): return s == word.description
        }
    }

    /// The case `table` has for the value (`E(rawValue: string)` without the string).
    func named<E>(in table: WordTable<E>) -> E? {
        switch self {
        case .bytes(let b): return PackedWord(b).flatMap(table.value)
        case .text(let s): return E(rawValue: s)
        }
    }

    /// ``string``, but a one-byte ASCII value (nearly every key label) comes from a
    /// table instead of being made and checked.
    var label: String {
        if case .bytes(let b) = self, b.count == 1, b[0] < 0x80 { return Self.ascii[Int(b[0])] }
        return string
    }

    /// Every one-byte ASCII string, by its byte.
    static let ascii: [String] = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }
}

/// A word of at most 16 bytes as two integers (its bytes in order, zero-padded) and its
/// length: two words are compared in three integer comparisons.
struct PackedWord: Equatable {
    private var low: UInt64 = 0, high: UInt64 = 0
    private var count = 0

    /// Nil for more than 16 bytes (longer than any word looked up).
    init?<S: Sequence<UInt8>>(_ bytes: S) {
        for b in bytes {
            guard count < 16 else { return nil }
            if count < 8 { low |= UInt64(b) << (8 * count) } else { high |= UInt64(b) << (8 * (count - 8)) }
            count += 1
        }
    }
}

/// The cases of an enum by their raw values, packed (``PackedWord``): what
/// ``LineWord/named(in:)`` looks a value up in.
struct WordTable<E: RawRepresentable>: Sendable where E.RawValue == String, E: Sendable {
    private let entries: [(word: PackedWord, value: E)]

    init(_ cases: [E]) { entries = cases.map { (PackedWord($0.rawValue.utf8)!, $0) } }

    func value(_ word: PackedWord) -> E? {
        for e in entries where e.word == word { return e.value }
        return nil
    }
}
