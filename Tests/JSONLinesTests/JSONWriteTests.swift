// JSONOut, the one writer, against Foundation's JSONSerialization (the call it replaced
// in the vault's Bitwarden export): the same bytes for random values whose keys sort
// the same both ways (ASCII lower-case letters), compact and pretty.
import Foundation
import JSONLines
import Testing

@Suite struct JSONWriteTests {
    struct Rng: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let texts = ["", "plain", "quote \" back \\ slash / solidus", "ctl \u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}\n\r\t",
                        "é 🙂 \u{2028}\u{2029}", "<script>&'"]

    /// A random value and the same value as Foundation objects.
    func random(_ depth: Int, _ g: inout Rng) -> (JSONOut, Any) {
        switch Int.random(in: 0...(depth > 3 ? 4 : 6), using: &g) {
        case 0: return (.null, NSNull())
        case 1: let b = Bool.random(using: &g); return (.bool(b), b)
        case 2: let n = Int.random(in: -1_000_000...1_000_000, using: &g); return (.int(n), n)
        case 3: let d = Double(Int.random(in: -5000...5000, using: &g)) / 8; return (.double(d), d)
        case 4: let s = Self.texts.randomElement(using: &g)!; return (.string(s), s)
        case 5:
            let items = (0..<Int.random(in: 0...3, using: &g)).map { _ in random(depth + 1, &g) }
            return (.array(items.map(\.0)), items.map(\.1))
        default:
            var ours: [String: JSONOut] = [:], theirs: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &g) {
                let k = String((0..<Int.random(in: 1...6, using: &g)).map { _ in "abcxyz".randomElement(using: &g)! })
                let v = random(depth + 1, &g)
                ours[k] = v.0
                theirs[k] = v.1
            }
            return (.object(ours), theirs)
        }
    }

    @Test func writesWhatJSONSerializationWrote() throws {
        var g = Rng(state: 44)
        for _ in 0..<2000 {
            let (ours, theirs) = random(0, &g)
            guard JSONSerialization.isValidJSONObject(theirs) else { continue }
            for pretty in [false, true] {
                let options: JSONSerialization.WritingOptions =
                    pretty
                    ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
                let reference = try JSONSerialization.data(withJSONObject: theirs, options: options)
                #expect(ours.written(pretty: pretty) == [UInt8](reference), "\(theirs)")
            }
        }
    }

    @Test func numbersHaveOneText() {
        #expect(JSONOut.numberText(100) == "100")
        #expect(JSONOut.numberText(-0.5) == "-0.5")
        #expect(JSONOut.numberText(1e20) == "1e+20")
        #expect(JSONOut.numberText(1e-7) == "1e-07")
        #expect(JSONOut.numberText(.nan) == "null")
    }

    @Test func readValuesWriteBackTheirText() throws {
        let text = #"{"b":[1,2.5,-0,1e2,true,null,"x\u0001"],"a":{}}"#
        let node = try JSONReader.document(text, file: "t", integers: true)
        #expect(String(decoding: JSONOut(node).written(), as: UTF8.self)
                == #"{"a":{},"b":[1,2.5,0,100,true,null,"x\u0001"]}"#)
    }
}
