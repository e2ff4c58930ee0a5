import Foundation
import Testing
@testable import SecureSMS

@Suite struct KeystoreTests {
    let t0 = testNow

    func newStore(_ dir: URL, lockSeconds: Int = 300) throws -> Keystore {
        try newTestKeystore(in: dir, lockSeconds: lockSeconds)
    }

    @Test func roundTripsContactsAndChainState() throws {
        let dir = try tempDir()
        var ks = try newStore(dir)
        let pair = try makePair()
        ks.contacts = [pair.alice]
        var c = ks.contacts[0]
        _ = try c.encrypt("x", now: t0)
        ks.contacts[0] = c
        try ks.save()
        let again = try Keystore.open(at: ks.url, password: "correct horse", now: t0)
        #expect(again.account == "alice")
        #expect(again.contacts.count == 1)
        #expect(try snapshot(again.contacts[0]) == snapshot(c))
    }

    @Test func fileHoldsNoNamesKeysOrPasswordInTheClear() throws {
        let dir = try tempDir()
        var ks = try newStore(dir)
        let pair = try makePair()
        ks.contacts = [pair.alice]
        try ks.save()
        let bytes = try Data(contentsOf: ks.url)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("Bob"))
        #expect(!text.contains("alice"))
        #expect(!text.contains("correct horse"))
        let ck = pair.alice.send!.chainKey
        #expect(!text.contains(ck.base64EncodedString()))
        #expect(bytes.range(of: ck) == nil)
    }

    @Test func threeWrongPasswordsLockAndARestartDoesNotReset() throws {
        let dir = try tempDir()
        let ks = try newStore(dir, lockSeconds: 600)
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "a", now: t0)
        }
        #expect(throws: SecureSMSError.wrongPassword(remaining: 1)) {
            try Keystore.open(at: ks.url, password: "b", now: t0)
        }
        #expect(throws: SecureSMSError.wrongPassword(remaining: 0)) {
            try Keystore.open(at: ks.url, password: "c", now: t0)
        }
        // Every call above re-read the file, as a new process would: the lock is on disk.
        let until = t0.addingTimeInterval(600)
        #expect(try Keystore.lockoutState(at: ks.url).lockedUntil == until)
        #expect(throws: SecureSMSError.locked(until: until)) {
            try Keystore.open(at: ks.url, password: "correct horse", now: t0.addingTimeInterval(599))
        }
        let opened = try Keystore.open(at: ks.url, password: "correct horse", now: t0.addingTimeInterval(600))
        #expect(opened.account == "alice")
    }

    @Test func failureCounterSurvivesRestartAndResetsOnSuccess() throws {
        let dir = try tempDir()
        let ks = try newStore(dir)
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "a", now: t0)
        }
        #expect(try Keystore.lockoutState(at: ks.url).failures == 1)
        _ = try Keystore.open(at: ks.url, password: "correct horse", now: t0)
        #expect(try Keystore.lockoutState(at: ks.url).failures == 0)
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "a", now: t0)
        }
    }

    @Test func passwordChangeTakesEffect() throws {
        let dir = try tempDir()
        var ks = try newStore(dir)
        try ks.changePassword(to: "new one", now: t0)
        #expect(throws: SecureSMSError.wrongPassword(remaining: 2)) {
            try Keystore.open(at: ks.url, password: "correct horse", now: t0)
        }
        #expect(try Keystore.open(at: ks.url, password: "new one", now: t0).passwordChangedAt == t0)
    }

    @Test func tamperedPayloadIsReportedDamaged() throws {
        let dir = try tempDir()
        let ks = try newStore(dir)
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: ks.url)) as! [String: Any]
        var payload = Data(base64Encoded: json["payload"] as! String)!
        payload[20] ^= 1
        json["payload"] = payload.base64EncodedString()
        try JSONSerialization.data(withJSONObject: json).write(to: ks.url)
        #expect(throws: SecureSMSError.self) { try Keystore.open(at: ks.url, password: "correct horse", now: t0) }
    }

    @Test func savesLeaveNoTemporaryFilesAndRefuseToOverwrite() throws {
        let dir = try tempDir()
        var ks = try newStore(dir)
        for _ in 0..<5 { try ks.save() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["me.keystore"])
        #expect(throws: SecureSMSError.self) {
            try Keystore.create(at: ks.url, account: "x", password: "y", kdf: testKDF(), now: t0)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: ks.url.path)[.posixPermissions] as! Int
        #expect(mode == 0o600)
    }
}

@Suite struct KeystoreHardeningTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func store(_ dir: URL) throws -> Keystore {
        try Keystore.create(
            at: dir.appendingPathComponent("k.keystore"), account: "a", password: "pw", kdf: testKDF(), now: t0)
    }

    /// Rewrites one value of the clear envelope, as a hostile or damaged file would.
    func edit(_ url: URL, _ body: (inout [String: Any]) -> Void) throws {
        var env = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        body(&env)
        try JSONSerialization.data(withJSONObject: env).write(to: url)
    }

    /// Deriving with any of these would run for hours or exhaust memory: the time limit
    /// stops such a hang; the named field in each error shows the check.
    @Test(.timeLimit(.minutes(1))) func outOfRangeKDFParametersAreRefusedBeforeAnyWork() throws {
        let dir = try tempDir()
        let url = try store(dir).url
        let cases: [(String, Any, String)] = [
            ("p", 9_007_199_254_740_993, "kdf.p"), ("p", 1_000_000, "kdf.p"), ("r", 0, "kdf.r"),
            ("log2n", 40, "kdf.log2n"), ("log2n", 9, "kdf.log2n")
        ]
        for (field, value, named) in cases {
            let saved = try Data(contentsOf: url)
            try edit(url) { env in var k = env["kdf"] as! [String: Any]; k[field] = value; env["kdf"] = k }
            do {
                _ = try Keystore.open(at: url, password: "pw", now: t0)
                Issue.record("opened with \(field) = \(value)")
            } catch let e as SecureSMSError {
                #expect(e.description.contains(named) && e.description.contains(url.path), "\(e)")
            }
            try saved.write(to: url)
        }
        try edit(url) { env in var k = env["kdf"] as! [String: Any]; k["r"] = 32; k["log2n"] = 20; env["kdf"] = k }
        #expect(throws: SecureSMSError.self) { try Keystore.open(at: url, password: "pw", now: t0) }
    }

    /// A read-only open (build, check) never saves the payload, but counts its tries like
    /// every open (issue #35): the lock comes, and a right password after it lapses leaves
    /// the file as it was.
    @Test func readOnlyOpenNeverSavesThePayloadButCountsTries() throws {
        let dir = try tempDir()
        let url = try store(dir).url
        let before = try Data(contentsOf: url)
        for _ in 0..<3 {
            #expect(throws: SecureSMSError.self) {
                try Keystore.open(at: url, password: "wrong", now: t0, readOnly: true)
            }
        }
        let locked = try Keystore.lockoutState(at: url)
        #expect(locked.lockedUntil != nil)
        #expect(throws: SecureSMSError.locked(until: locked.lockedUntil!)) {
            try Keystore.open(at: url, password: "pw", now: t0, readOnly: true)
        }
        var ks = try Keystore.open(
            at: url, password: "pw", now: locked.lockedUntil!.addingTimeInterval(1), readOnly: true)
        #expect(try Data(contentsOf: url) == before)
        #expect(throws: SecureSMSError.self) { try ks.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func passwordChangeKeepsTheCostUnlessAskedAndDefaultIsTwoToThe17() throws {
        #expect(Keystore.KDFParams.standard(salt: Data()).log2n == 17)
        let dir = try tempDir()
        var ks = try store(dir)
        try ks.changePassword(to: "new", now: t0)
        #expect(try Keystore.open(at: ks.url, password: "new", now: t0).kdfLog2n == 10)
        try ks.changePassword(to: "newer", log2n: 11, now: t0)
        #expect(try Keystore.open(at: ks.url, password: "newer", now: t0).kdfLog2n == 11)
    }

    @Test func aHeldLockMakesOthersWaitThenGiveUpClearly() throws {
        let dir = try tempDir()
        let url = try store(dir).url
        do {
            let held = try Keystore.open(at: url, password: "pw", now: t0, lockWait: 0)
            #expect(throws: SecureSMSError.busy(path: url.path, waited: 0)) {
                try Keystore.open(at: url, password: "pw", now: t0, lockWait: 0)
            }
            withExtendedLifetime(held) {}
        }
        // released with the value: the next command gets it at once
        _ = try Keystore.open(at: url, password: "pw", now: t0, lockWait: 0)
    }

    @Test func keystoresOfTheContactCodeEraStillOpenAndAreFlagged() throws {
        // A payload contact as written before X25519: chains from codes, no key_agreement;
        // and a pending one holding a contact code.
        let dir = try tempDir()
        var ks = try store(dir)
        var (alice, _) = try makePair()
        alice.keyAgreement = nil
        var carol = Contact(name: "Carol", now: t0)
        carol.pendingKey = nil
        carol.pendingCode = Data(repeating: 1, count: 10)
        ks.contacts = [alice, carol]
        try ks.save()
        var again = try Keystore.open(at: ks.url, password: "pw", now: t0)
        #expect(again.contacts[0].usesLegacyCodes)
        #expect(Inventory(again).contacts[0].warnings.contains { $0.contains("X25519") })
        #expect(Inventory(again).contacts[0].warnings.allSatisfy { !$0.contains("; ") })
        #expect(again.contacts[1].isPending && !again.contacts[1].hasOpenExchange)
        again.contacts[1].beginExchange()
        #expect(again.contacts[1].ownKeyMessage != nil && again.contacts[1].pendingCode == nil)
        _ = try again.contacts[0].encrypt("still works", now: t0)
    }
}

@Suite struct InventoryTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func inventoryCountsAndWarnsButHoldsNoSecrets() throws {
        let dir = try tempDir()
        var ks = try Keystore.create(
            at: dir.appendingPathComponent("k"), account: "alice", password: "pw", kdf: testKDF(), now: t0)
        var (bob, bobSide) = try makePair()
        var texts: [String] = []
        for i in 0..<15 {
            let text = "secret message number \(i)"
            texts.append(text)
            let m = try bobSide.encrypt(text, now: t0)
            if i == 0 || i == 14 { _ = try bob.decrypt(m, now: t0) }
        }
        let m = try bob.encrypt("reply text", now: t0)
        texts.append("reply text")
        let carol = Contact(name: "Carol", now: t0)
        ks.contacts = [bob, carol]
        let inv = Inventory(ks)
        #expect(inv.contacts.map(\.name) == ["Bob", "Carol"])
        let b = inv.contacts[0]
        #expect(b.sent == 1 && b.received == 2 && b.skippedBacklog == 13)
        #expect(b.nextReceiveCounter == 15 && b.nextSendCounter == 1)
        #expect(b.warnings.count == 1)
        #expect(inv.contacts[1].status == "pending")
        #expect(!inv.contacts[1].warnings.isEmpty)
        // contacts.csv joins warnings with "; ": none may hold it (docs/securesms-report.md)
        #expect(inv.contacts.allSatisfy { $0.warnings.allSatisfy { !$0.contains("; ") } })

        let e = JSONEncoder(); e.dateEncodingStrategy = .iso8601
        let json = String(decoding: try e.encode(inv), as: UTF8.self) + "\(inv)"
        var secrets = texts + [m, carol.pendingKey!.base64EncodedString(), carol.ownKeyMessage!]
        for key in [bob.send!.chainKey, bob.receive!.chainKey] + bob.receive!.skipped.map(\.key) {
            secrets.append(key.base64EncodedString())
            secrets.append(key.map { String(format: "%02x", $0) }.joined())
            secrets.append(String(key.base64EncodedString().prefix(12)))
        }
        for s in secrets { #expect(!json.contains(s), "inventory leaks a secret") }
    }
}
