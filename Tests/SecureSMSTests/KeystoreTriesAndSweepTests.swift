import Crypto
import Foundation
import Testing
@testable import SecureSMS

/// Issue #35: tries counted before the key is derived (read-only opens too), a lapsed lock
/// cleared by a right read-only open, killed saves' temporary files swept, a low-order key
/// refused before a safety number is shown, the report's contacts by ordinal.
@Suite struct KeystoreTriesAndSweepTests {
    let t0 = testNow

    func newStore(_ dir: URL, lockSeconds: Int = 300) throws -> Keystore {
        try newTestKeystore(in: dir, lockSeconds: lockSeconds)
    }

    /// While the (slow) key derivation runs, the try is already on disk: a process killed
    /// then leaves it counted. Read-only opens (build, check) count the same way.
    @Test(arguments: [false, true]) func aTryIsCountedBeforeTheKeyIsDerived(readOnly: Bool) throws {
        let ks = try newStore(try tempDir())
        var seen: [Int] = []
        let observe: (String, Keystore.KDFParams) throws -> (SymmetricKey, Data) = { pw, params in
            seen.append(try Keystore.lockoutState(at: ks.url).failures)
            return try Keystore.derive(password: pw, params: params)
        }
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "wrong", now: t0, readOnly: readOnly, lockWait: 0, derive: observe)
        }
        #expect(seen == [1])
        #expect(try Keystore.lockoutState(at: ks.url).failures == 1)
        _ = try Keystore.open(
            at: ks.url, password: "correct horse", now: t0, readOnly: readOnly, lockWait: 0, derive: observe)
        #expect(seen == [1, 2])                                   // counted before the check, then undone
        #expect(try Keystore.lockoutState(at: ks.url).failures == 0)
    }

    @Test func readOnlyOpensLockAfterThreeWrongTriesAndARightOneClearsALapsedLock() throws {
        let ks = try newStore(try tempDir(), lockSeconds: 600)
        let before = try Data(contentsOf: ks.url)
        for left in [2, 1, 0] {
            #expect(throws: SecureSMSError.wrongPassword(remaining: left)) {
                try Keystore.open(at: ks.url, password: "guess", now: t0, readOnly: true)
            }
        }
        let until = t0.addingTimeInterval(600)
        #expect(try Keystore.lockoutState(at: ks.url).lockedUntil == until)
        #expect(throws: SecureSMSError.locked(until: until)) {
            try Keystore.open(at: ks.url, password: "correct horse", now: t0.addingTimeInterval(10), readOnly: true)
        }
        let opened = try Keystore.open(
            at: ks.url, password: "correct horse", now: t0.addingTimeInterval(601), readOnly: true)
        #expect(opened.account == "alice")
        #expect(try Keystore.lockoutState(at: ks.url).lockedUntil == nil)
        #expect(try Keystore.lockoutState(at: ks.url).failures == 0)
        // The payload was never re-sealed by the read-only opens: the file is as it was.
        #expect(try Data(contentsOf: ks.url) == before)
    }

    @Test func temporaryFilesOfKilledSavesAreSweptOnOpen() throws {
        let dir = try tempDir()
        let ks = try newStore(dir)
        let fm = FileManager.default
        let stale = [".me.keystore.4242.123456789.tmp", ".me.keystore.1.2.tmp"]
        let kept = [
            ".me.keystore.notapid.tmp", ".other.keystore.1.2.tmp", "me.keystore.1.2.tmp", ".me.keystore.1.2.tmp.bak"
        ]
        for n in stale + kept { fm.createFile(atPath: dir.appendingPathComponent(n).path, contents: Data("old".utf8)) }
        _ = try Keystore.open(at: ks.url, password: "correct horse", now: t0, lockWait: 0)
        for n in stale { #expect(!fm.fileExists(atPath: dir.appendingPathComponent(n).path), "\(n)") }
        for n in kept { #expect(fm.fileExists(atPath: dir.appendingPathComponent(n).path), "\(n)") }
        // A read-only open (a build) sweeps too.
        fm.createFile(atPath: dir.appendingPathComponent(stale[0]).path, contents: Data("old".utf8))
        _ = try Keystore.open(at: ks.url, password: "correct horse", now: t0, readOnly: true)
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent(stale[0]).path))
    }

    /// Points of small order on Curve25519 (as 32 little-endian bytes): the shared secret
    /// would be all zero, so no safety number may be shown for them.
    @Test func aLowOrderKeyIsRefusedBeforeASafetyNumberIsShown() throws {
        let zero = [UInt8](repeating: 0, count: 32)
        var one = zero; one[0] = 1
        let order8: [UInt8] = [
            0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
            0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00
        ]
        let c = Contact(name: "X", now: t0)
        for key in [zero, one, order8] {
            #expect(throws: SecureSMSError.self) { _ = try c.safetyNumber(theirs: key) }
        }
        // An ordinary key still gets its number.
        #expect(try c.safetyNumber(theirs: Array(KeyExchange.generate().publicKey.rawRepresentation)).count == 47)
    }

    @Test func theInventoryLabelsContactsByOrdinalAndDropsLastMessageTimes() throws {
        var ks = try newStore(try tempDir())
        let pair = try makePair()
        var late = try makePair(seed: 2).alice
        late.name = "Aaron"
        late.addedAt = t0.addingTimeInterval(100)
        ks.contacts = [late, pair.alice]
        var c = ks.contacts[1]
        _ = try c.encrypt("hi", now: t0)
        ks.contacts[1] = c
        let inv = Inventory(ks).anonymised()
        #expect(inv.contacts.map(\.name) == ["contact 1", "contact 2"])
        #expect(inv.contacts[0].sent == 1)                        // Bob, added first, is contact 1
        #expect(inv.contacts.allSatisfy { $0.lastSentAt == nil && $0.lastReceivedAt == nil })
        let text = String(decoding: try JSONEncoder().encode(inv), as: UTF8.self)
        #expect(!text.contains("Bob") && !text.contains("Aaron"))
    }
}
