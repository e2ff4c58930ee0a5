// JSONValue.read (the one JSON reader, JSONLines' JSONReader, which replaced Foundation's
// JSONSerialization so the binary carries no ICU) gives the JSONValue the JSONSerialization path gave: the
// reference below is that path, kept here as the plain twin. Compared by the bytes
// JSONOutput writes. (Integers beyond ±2^53 are not compared: JSONSerialization typed
// some of them, such as -2^62, as doubles; JSONValue.read keeps every integer that fits an Int.)
import Foundation
import Render
import Testing
import SplitMix64

/// `JSONSerialization` output as a JSONValue: the conversion `JSONOutput` used before.
private func viaSerialization(_ any: Any) -> JSONValue {
    switch any {
    case is NSNull: return .null
    case let n as NSNumber:
        let kind = String(cString: n.objCType)
        if kind == "c" || kind == "B" { return .bool(n.boolValue) }
        if kind == "d" || kind == "f" { return .double(n.doubleValue) }
        return .int(n.intValue)
    case let s as String: return .string(s)
    case let a as [Any]: return .array(a.map(viaSerialization))
    case let d as [String: Any]: return .object(d.mapValues(viaSerialization))
    default: return .string(String(describing: any))
    }
}

private struct Sample: Codable, Equatable {
    var name: String
    var yaw: Double
    var big: Int64
    var flags: [Bool]
    var maybe: Double?
    var nested: [String: [Double]]
}

@Test func jsonReadGivesWhatJSONSerializationGaveForEncoderOutput() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let doubles: [Double] = [0, -0.0, 1, -1.5, 0.1, 1e-7, 123456.789, 1e15, 1e16, 9_007_199_254_740_993, 1e300,
                             -2.5e-300, 3.14159]
    let names = ["", "plain", "quote \" back \\ slash / solidus", "ctl \u{1}\u{1F}\n\t", "é 🙂 \u{2028}", "<script>&"]
    var g = SplitMix64(seed: 45)
    for _ in 0..<300 {
        let s = Sample(name: names.randomElement(using: &g)!,
                       yaw: doubles.randomElement(using: &g)! * Double.random(in: -2...2, using: &g),
                       big: Int64.random(in: -(1 << 53)...(1 << 53), using: &g), flags: [Bool.random(using: &g),
                               Bool.random(using: &g)],
                       maybe: Bool.random(using: &g) ? nil : doubles.randomElement(using: &g)!,
                       nested: ["a": doubles.shuffled(using: &g), "b": []])
        let raw = try encoder.encode(s)
        let reference = viaSerialization(try JSONSerialization.jsonObject(with: raw, options: [.fragmentsAllowed]))
        let ours = try JSONValue.read(raw).data
        if ours != reference.data {
            // Foundation on Linux misreads some large numbers with a fraction (it gave
            // -1044418591034672 for -1044418591034672.1). Where the two differ, everything
            // but `yaw` must be equal, and our `yaw` must be the encoded one to the 10
            // significant digits JSONOutput writes.
            var back = try JSONDecoder().decode(Sample.self, from: ours)
            var theirs = try JSONDecoder().decode(Sample.self, from: reference.data)
            #expect(abs(back.yaw - s.yaw) <= abs(s.yaw) * 1e-9)
            back.yaw = 0
            theirs.yaw = 0
            #expect(back == theirs)
        }
    }
}

@Test func jsonReadRefusesBrokenText() throws {
    for bad in ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", "{\"a\":1,}", "nan"] {
        #expect(throws: (any Error).self) { try JSONValue.read(Data(bad.utf8)) }
    }
    #expect(try JSONValue.read(Data("[\"\\ud83d\\ude42\", 1e2, -0, true, null]".utf8))
            == .array([.string("🙂"), .double(100), .int(0), .bool(true), .null]))
}
