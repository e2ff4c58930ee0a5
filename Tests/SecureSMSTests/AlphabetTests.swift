import Foundation
import Testing
@testable import SecureSMS
import SplitMix64

@Suite struct AlphabetTests {
    @Test func basicTableHas128DistinctCodePoints() {
        #expect(GSMAlphabet.basic.count == 128)
        #expect(Set(GSMAlphabet.basic).count == 128)
        #expect(GSMAlphabet.basic[0x09] == "Ç")
        #expect(GSMAlphabet.basic[0x1B] == "\u{1B}")
    }

    @Test func everyPlaintextCharacterRoundTripsThroughSeptets() throws {
        for s in plainChars {
            let text = String(s)
            let sep = try GSMAlphabet.septets(text)
            #expect(sep.count == (GSMAlphabet.extensionTable.values.contains(s) ? 2 : 1))
            #expect(try GSMAlphabet.text(sep) == text)
        }
    }

    @Test func extensionCharactersCountTwoSeptets() throws {
        #expect(try GSMAlphabet.septetCount("abc") == 3)
        #expect(try GSMAlphabet.septetCount("€10 [x]") == 10)
        #expect(try GSMAlphabet.septets("{") == [0x1B, 0x28])
        #expect(try GSMAlphabet.septets("€") == [0x1B, 0x65])
    }

    @Test func lowercaseCCedillaIsReadAsCode09() throws {
        #expect(try GSMAlphabet.septets("ç") == [0x09])
        #expect(try GSMAlphabet.septets("Ç") == [0x09])
    }

    @Test func decomposedAccentsAreNormalisedFirst() throws {
        #expect(try GSMAlphabet.septets("e\u{301}") == [0x05])  // é as e + combining acute
    }

    @Test func charactersOutsideTheAlphabetAreRejectedByPosition() {
        #expect(throws: SecureSMSError.notGSM(position: 3)) { try GSMAlphabet.septets("ab✓c") }
        #expect(throws: SecureSMSError.notGSM(position: 1)) { try GSMAlphabet.septets("\u{1B}") }
        // a form feed is rejected
        #expect(throws: SecureSMSError.notGSM(position: 2)) { try GSMAlphabet.septets("a\u{0C}") }
    }

    @Test func errorMessagesDoNotEchoTheCharacter() {
        let e = SecureSMSError.notGSM(position: 2)
        #expect(!e.description.contains("✓"))
    }

    @Test func loneEscapeIsNotText() {
        #expect(throws: SecureSMSError.malformedPlaintext) { try GSMAlphabet.text([0x41, 0x1B]) }
        #expect(throws: SecureSMSError.malformedPlaintext) { try GSMAlphabet.text([0x1B, 0x41]) }
    }

    @Test func safeAlphabetIs118CharactersWithoutTheRiskyOnes() {
        #expect(SafeAlphabet.radix == 118)
        let chars = Set(SafeAlphabet.characters)
        for bad: Unicode.Scalar in ["@", " ", "\n", "\r", "\u{1B}", "Ç", "_", "*", "\"", "'"] {
            #expect(!chars.contains(bad))
        }
        #expect(chars.count == 118)
        // digit values follow GSM code order
        #expect(SafeAlphabet.characters.first == "£")
        #expect(SafeAlphabet.characters.last == "à")
        for (i, c) in SafeAlphabet.characters.enumerated() { #expect(SafeAlphabet.digit(c) == i) }
    }

    @Test func capacityArithmeticHolds() {
        // 156 digits of base 118 must hold 1072 bits; 155 must not (so 156 is the minimum).
        let bits = Double(SMSProtocol.bodyBytes * 8)
        #expect(Double(SMSProtocol.bodyLength) * log2(118.0) >= bits)
        #expect(Double(SMSProtocol.bodyLength - 1) * log2(118.0) < bits)
        #expect(SMSProtocol.headerLength + SMSProtocol.bodyLength == 160)
        #expect(SMSProtocol.maxCounter == 118 * 118 * 118 - 1)
    }
}

@Suite struct BaseNTests {
    @Test func maximumBodyValueFitsAndOneMoreDigitValueOverflows() {
        let maxBody = [UInt8](repeating: 0xFF, count: 134)
        let digits = BaseN.encode(maxBody, radix: 118, digits: 156)
        #expect(digits != nil)
        #expect(BaseN.decode(digits!, radix: 118, byteCount: 134) == maxBody)
        // the largest 156-digit number is ≥ 2^1072, so decoding it must report overflow
        #expect(BaseN.decode([Int](repeating: 117, count: 156), radix: 118, byteCount: 134) == nil)
        #expect(BaseN.encode(maxBody, radix: 118, digits: 155) == nil)
    }

    @Test func matchesHexForRadix16() {
        let bytes: [UInt8] = [0x01, 0xAB, 0x00, 0xFF]
        #expect(BaseN.encode(bytes, radix: 16, digits: 8) == [0, 1, 10, 11, 0, 0, 15, 15])
    }

    @Test func randomValuesRoundTrip() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let b = (0..<134).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let d = BaseN.encode(b, radix: 118, digits: 156)!
            #expect(d.allSatisfy { (0..<118).contains($0) })
            #expect(BaseN.decode(d, radix: 118, byteCount: 134) == b)
        }
    }
}
