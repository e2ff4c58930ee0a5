import Foundation
import Testing
@testable import SecureSMS
import SplitMix64

@Suite struct ProtocolTests {
    let now = Date(timeIntervalSince1970: 1_700_000_100)

    @Test func paddingRoundTripsAndIsCanonical() throws {
        for len in [0, 1, 72, 143, 144] {
            let s = [UInt8](repeating: 0x41, count: len)
            let p = try SMSProtocol.pad(s)
            #expect(p.count == 144)
            #expect(try SMSProtocol.unpad(p) == s)
        }
        // a plaintext ending in an extension character keeps it
        let ext: [UInt8] = [0x41, 0x1B, 0x65]
        #expect(try SMSProtocol.unpad(SMSProtocol.pad(ext)) == ext)
        var bad = try SMSProtocol.pad([0x41])
        bad[100] = 1  // non-zero after the terminator
        #expect(throws: SecureSMSError.malformedPlaintext) { try SMSProtocol.unpad(bad) }
        #expect(throws: SecureSMSError.tooLong(septets: 145, limit: 144)) {
            try SMSProtocol.pad([UInt8](repeating: 0, count: 145))
        }
    }

    @Test func packingIsMSBFirst() {
        // septets 1111111, 0000001 → bits 1111111 0000001 (+ 2 zero bits) = FE 04
        #expect(SMSProtocol.pack([0x7F, 0x01]) == [0xFE, 0x04])
        var rng = SplitMix64(seed: 3)
        let s = (0..<144).map { _ in UInt8.random(in: 0...127, using: &rng) }
        let p = SMSProtocol.pack(s)
        #expect(p.count == 126)
        #expect(SMSProtocol.unpack(p, count: 144) == s)
    }

    @Test func randomPlaintextsRoundTripInOneSafeSMS() throws {
        var (alice, bob) = try makePair()
        var rng = SplitMix64(seed: 42)
        let safe = Set(SafeAlphabet.characters)
        for i in 0..<300 {
            let text = randomPlaintext(maxSeptets: i < 5 ? [0, 1, 143, 144, 144][i] : 144, using: &rng)
            let msg = try alice.encrypt(text, now: now)
            #expect(msg.unicodeScalars.count == 160)
            #expect(msg.unicodeScalars.allSatisfy { safe.contains($0) })
            // the message is also valid GSM: every character costs one septet
            #expect(try GSMAlphabet.septetCount(msg) == 160)
            let expected = text.precomposedStringWithCanonicalMapping.replacingOccurrences(of: "ç", with: "Ç")
            #expect(try bob.decrypt(msg, now: now) == expected)
        }
        #expect(alice.sentCount == 300)
        #expect(bob.receivedCount == 300)
    }

    @Test func tooLongPlaintextIsRejectedAndNothingMoves() throws {
        var (alice, _) = try makePair()
        let before = try snapshot(alice)
        #expect(throws: SecureSMSError.tooLong(septets: 146, limit: 144)) {
            try alice.encrypt(String(repeating: "€", count: 73), now: now)
        }
        #expect(try snapshot(alice) == before)
    }

    @Test func everySingleChangedCharacterFailsAndChangesNoState() throws {
        var (alice, bob) = try makePair(seed: 9)
        let msg = Array(try alice.encrypt("Meet at the north gate at 6. Bring €20 [cash].", now: now).unicodeScalars)
        let before = try snapshot(bob)
        for i in msg.indices {
            // replace with the next safe character (cyclic), so the change stays parseable
            let d = SafeAlphabet.digit(msg[i])!
            var changed = msg
            changed[i] = SafeAlphabet.characters[(d + 1) % SafeAlphabet.radix]
            var s = String.UnicodeScalarView(); s.append(contentsOf: changed)
            #expect(throws: (any Error).self) { try bob.decrypt(String(s), now: now) }
            #expect(try snapshot(bob) == before)
        }
        var ok = String.UnicodeScalarView(); ok.append(contentsOf: msg)
        #expect(try bob.decrypt(String(ok), now: now).hasPrefix("Meet"))
    }

    @Test func wrongContactFailsVerification() throws {
        var (alice, _) = try makePair(seed: 1)
        var (_, carol) = try makePair(seed: 2)
        let msg = try alice.encrypt("hello", now: now)
        let before = try snapshot(carol)
        #expect(throws: SecureSMSError.verificationFailed) { try carol.decrypt(msg, now: now) }
        #expect(try snapshot(carol) == before)
    }

    @Test func ownMessagesDoNotDecryptWithOwnReceiveChain() throws {
        var (alice, _) = try makePair()
        let msg = try alice.encrypt("note to self", now: now)
        #expect(throws: SecureSMSError.verificationFailed) { try alice.decrypt(msg, now: now) }
    }

    @Test func replayIsRejected() throws {
        var (alice, bob) = try makePair()
        let m0 = try alice.encrypt("one", now: now)
        let m1 = try alice.encrypt("two", now: now)
        #expect(try bob.decrypt(m0, now: now) == "one")
        #expect(throws: SecureSMSError.replayed(counter: 0)) { try bob.decrypt(m0, now: now) }
        #expect(try bob.decrypt(m1, now: now) == "two")
        #expect(throws: SecureSMSError.replayed(counter: 1)) { try bob.decrypt(m1, now: now) }
        #expect(bob.receivedCount == 2)
    }

    @Test func lateMessagesDecryptOnceFromSkippedKeys() throws {
        var (alice, bob) = try makePair()
        let msgs = try (0..<6).map { try alice.encrypt("m\($0)", now: now) }
        #expect(try bob.decrypt(msgs[4], now: now) == "m4")
        #expect(bob.receive!.skipped.map(\.counter) == [0, 1, 2, 3])
        #expect(try bob.decrypt(msgs[1], now: now) == "m1")
        #expect(throws: SecureSMSError.replayed(counter: 1)) { try bob.decrypt(msgs[1], now: now) }
        #expect(try bob.decrypt(msgs[5], now: now) == "m5")
        #expect(try bob.decrypt(msgs[0], now: now) == "m0")
        #expect(bob.receive!.skipped.map(\.counter) == [2, 3])
    }

    @Test func upToMaxSkipLostMessagesAreTolerated() throws {
        var (alice, bob) = try makePair()
        for _ in 0..<Contact.maxSkip { _ = try alice.encrypt("lost", now: now) }
        let arrives = try alice.encrypt("after the gap", now: now)
        #expect(try bob.decrypt(arrives, now: now) == "after the gap")
        #expect(bob.receive!.skipped.count == Contact.maxSkip)
    }

    @Test func moreThanMaxSkipLostIsRefusedWithoutStateChange() throws {
        var (alice, bob) = try makePair()
        for _ in 0...Contact.maxSkip { _ = try alice.encrypt("lost", now: now) }
        let arrives = try alice.encrypt("too far", now: now)
        let before = try snapshot(bob)
        #expect(throws: SecureSMSError.tooFarAhead(counter: Contact.maxSkip + 1, expected: 0, limit: Contact.maxSkip)) {
            try bob.decrypt(arrives, now: now)
        }
        #expect(try snapshot(bob) == before)
    }

    @Test func storedSkippedKeysAreBoundedOldestDiscarded() throws {
        var (alice, bob) = try makePair()
        var first: String?
        for i in 0..<60 { let m = try alice.encrypt("x", now: now); if i == 0 { first = m } }
        _ = try bob.decrypt(try alice.encrypt("a", now: now), now: now)   // skips 0..59
        for _ in 0..<60 { _ = try alice.encrypt("x", now: now) }
        _ = try bob.decrypt(try alice.encrypt("b", now: now), now: now)   // skips 61..120 → 120 waiting
        #expect(bob.receive!.skipped.count == Contact.maxStoredSkipped)
        #expect(bob.discardedKeys == 20)
        #expect(bob.receive!.skipped.first!.counter == 20)
        #expect(throws: SecureSMSError.replayed(counter: 0)) { try bob.decrypt(first!, now: now) }
    }

    @Test func pastedMessagesSurviveWrappingAndSpaces() throws {
        var (alice, bob) = try makePair()
        let msg = Array(try alice.encrypt("wrapped", now: now))
        let wrapped = "  " + String(msg[0..<50]) + "\r\n" + String(msg[50..<120]) + " \n" + String(msg[120...]) + "\n"
        #expect(try bob.decrypt(wrapped, now: now) == "wrapped")
    }

    @Test func truncatedOrForeignTextIsNotAMessage() throws {
        var (alice, bob) = try makePair()
        let msg = try alice.encrypt("hi", now: now)
        #expect(throws: SecureSMSError.self) { try bob.decrypt(String(msg.dropLast()), now: now) }
        #expect(throws: SecureSMSError.self) { try bob.decrypt(String(msg.dropLast()) + "@", now: now) }
    }

    @Test func resyncStartsFreshChains() throws {
        var (alice, bob) = try makePair()
        let old = try alice.encrypt("before", now: now)
        alice.beginExchange()
        bob.beginExchange()
        #expect(alice.isResyncing)
        try agree(&alice, &bob, now: now)
        #expect(alice.resyncedAt == now)
        #expect(alice.send!.next == 0)
        #expect(!alice.hasOpenExchange)
        #expect(throws: SecureSMSError.verificationFailed) { try bob.decrypt(old, now: now) }
        #expect(try bob.decrypt(try alice.encrypt("after", now: now), now: now) == "after")
    }

    @Test func ownKeyIsRefusedAsTheirs() throws {
        var c = Contact(name: "X", now: now)
        let own = c.ownPublicKey!
        #expect(throws: SecureSMSError.self) { try c.complete(theirs: own, confirmed: "", now: now) }
    }

    @Test func pendingContactCannotEncrypt() {
        var c = Contact(name: "X", now: now)
        #expect(throws: SecureSMSError.self) { try c.encrypt("hi", now: now) }
    }
}

@Suite struct KeyExchangeTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func keyMessagesRoundTripInTheSafeAlphabetAndCatchDamage() throws {
        for _ in 0..<20 {
            let pub = Array(KeyExchange.generate().publicKey.rawRepresentation)
            let m = KeyExchange.message(publicKey: pub)
            #expect(m.unicodeScalars.count == KeyExchange.prefix.count + 40)
            #expect(m.unicodeScalars.dropFirst(KeyExchange.prefix.count).allSatisfy { SafeAlphabet.digit($0) != nil })
            #expect(try KeyExchange.parse(" " + m.prefix(30) + "\n" + m.dropFirst(30)) == pub)
        }
        let m = Array(KeyExchange.message(publicKey: [UInt8](repeating: 9, count: 32)).unicodeScalars)
        var caught = 0
        for i in KeyExchange.prefix.count..<m.count {
            var t = m
            t[i] = SafeAlphabet.characters[(SafeAlphabet.digit(m[i])! + 1) % SafeAlphabet.radix]
            if (try? KeyExchange.parse(String(String.UnicodeScalarView(t)))) == nil { caught += 1 }
        }
        #expect(caught == 40)
    }

    @Test func substitutedKeyChangesTheSafetyNumberAndIsRefused() throws {
        // Mallory sits between Alice and Bob and replaces each key message with her own.
        var alice = Contact(name: "Bob", now: now), bob = Contact(name: "Alice", now: now)
        let m1 = KeyExchange.generate(), m2 = KeyExchange.generate()
        let aliceSees = try alice.safetyNumber(theirs: Array(m1.publicKey.rawRepresentation))
        let bobSees = try bob.safetyNumber(theirs: Array(m2.publicKey.rawRepresentation))
        #expect(aliceSees != bobSees)
        let before = try snapshot(alice)
        #expect(throws: SecureSMSError.safetyNumberMismatch(contact: "Bob")) {
            try alice.complete(theirs: Array(m1.publicKey.rawRepresentation), confirmed: bobSees, now: now)
        }
        #expect(try snapshot(alice) == before)
        #expect(alice.isPending)
        // the genuine keys still agree afterwards
        try agree(&alice, &bob, now: now)
        #expect(try bob.decrypt(try alice.encrypt("ok", now: now), now: now) == "ok")
    }

    @Test func bothSidesShowTheSameNumberInEightGroups() throws {
        let a = Contact(name: "B", now: now), b = Contact(name: "A", now: now)
        let na = try a.safetyNumber(theirs: b.ownPublicKey!), nb = try b.safetyNumber(theirs: a.ownPublicKey!)
        #expect(na == nb)
        #expect(na.split(separator: " ").map(\.count) == [5, 5, 5, 5, 5, 5, 5, 5])
        #expect(KeyExchange.matches(na.replacingOccurrences(of: " ", with: "-"), nb))
        #expect(!KeyExchange.matches(String(na.dropLast()), nb))
    }

    @Test func lowOrderKeyIsRefused() throws {
        let c = Contact(name: "X", now: now)
        #expect(throws: SecureSMSError.self) {
            try KeyExchange.chains(own: c.ownPrivateKey!, theirs: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test func descriptionsNeverShowSecrets() throws {
        let k = SMSProtocol.messageKeys([UInt8](repeating: 7, count: 32))
        #expect(!"\(k)".contains("\(k.encryption[0])"))
        let pair = try makePair()
        #expect("\(pair.alice)" == "Contact(Bob, active, keys redacted)")
    }
}

@Suite struct NormalizeTests {
    @Test func phonePunctuationBecomesGSMAndIsListed() throws {
        let (t, changes) = GSMNormalize.apply("\u{201C}It\u{2019}s\u{201D} \u{2013} fine\u{2026}\u{00A0}ok \u{2019}")
        #expect(t == "\"It's\" - fine... ok '")
        #expect(try GSMAlphabet.septetCount(t) == t.count)
        #expect(changes.map(\.count) == [1, 2, 1, 1, 1, 1])
        #expect(changes[1].summary == "2 × \u{2019} (U+2019) → '")
        #expect(GSMNormalize.apply("plain").changes.isEmpty)
    }
}
