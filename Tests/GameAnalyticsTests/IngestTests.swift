import Foundation
import Testing
import _CryptoExtras
import Crypto
@testable import GameAnalytics

/// One key pair for the whole suite (RSA generation is slow).
let testKeys: (privatePEM: String, publicPEM: String) = try! Upload.makeKeyPair(bits: 2048)

@Suite struct IngestTests {
    let cohort = Simulator(players: 3, seed: 21).run()
    /// The device's signing key (one device for all three players here).
    let device = Curve25519.Signing.PrivateKey()

    func upload(_ p: Player, signedBy key: Curve25519.Signing.PrivateKey? = nil) throws -> Data {
        let body = Data(TelemetryJSONL.lines(for: p).joined(separator: "\n").utf8)
        let plain = try SignedUpload.make(
            body: body, player: p.id, signingKey: key ?? device, resultKey: Data(repeating: 7, count: 32))
        return try Upload.seal(plain, publicKeyPEM: testKeys.publicPEM)
    }

    func db() throws -> (StudyDatabase, URL) {
        let dir = try tempDir()
        return (try StudyDatabase(path: dir.appendingPathComponent("s.sqlite").path), dir)
    }

    @Test func roundTripStoresThePlayer() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        let p = cohort.players[0]
        #expect(
            Ingest.ingest(try upload(p), name: "u1", key: key, into: db)
                == .stored(player: p.id, sessions: p.sessions.count))
        #expect(try db.readCohort().players == [p])
    }

    @Test func theSameUploadTwiceIsStoredOnce() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        let p = cohort.players[1]
        let first = try upload(p), second = try upload(p)
        #expect(first != second)   // fresh data key each time…
        #expect(
            Ingest.ingest(first, name: "a", key: key, into: db) == .stored(player: p.id, sessions: p.sessions.count))
        // …same content hash
        #expect(Ingest.ingest(second, name: "b", key: key, into: db) == .duplicate(player: p.id))
        #expect(Ingest.ingest(first, name: "a", key: key, into: db) == .duplicate(player: p.id))
        #expect(try db.uploadCount() == 1)
        #expect(try db.readCohort().players == [p])
    }

    @Test func aTamperedUploadIsRejectedAndNothingElseIsLost() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        let kept = cohort.players[0]
        _ = Ingest.ingest(try upload(kept), name: "a", key: key, into: db)
        var bad = try upload(cohort.players[1])
        bad[bad.count - 40] ^= 0x01       // a ciphertext byte
        guard case .rejected(let reason) = Ingest.ingest(bad, name: "b", key: key, into: db) else {
            Issue.record("tampered upload accepted"); return
        }
        #expect(reason.contains("authentication failed"))
        var header = try upload(cohort.players[1])
        header[10] ^= 0x80                 // the wrapped key block
        guard case .rejected = Ingest.ingest(header, name: "c", key: key, into: db) else {
            Issue.record("altered key block accepted"); return
        }
        guard case .rejected(let r3) = Ingest.ingest(Data("hello".utf8), name: "d", key: key, into: db) else { return }
        #expect(r3.contains("not a RocketMouse upload"))
        guard
            case .rejected(let r4) = Ingest.ingest(
                try upload(cohort.players[1]).prefix(300), name: "e", key: key, into: db)
        else { return }
        #expect(r4.contains("truncated") || r4.contains("authentication failed"))
        #expect(try db.readCohort().players == [kept])
        #expect(try db.uploadCount() == 1)
    }

    @Test func anUploadForAnotherStudyKeyIsRejected() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = try Upload.makeKeyPair(bits: 2048)
        let wrong = try Upload.privateKey(pem: other.privatePEM)
        guard case .rejected(let reason) = Ingest.ingest(try upload(cohort.players[2]), name: "x", key: wrong, into: db)
        else {
            Issue.record("opened with the wrong key"); return
        }
        #expect(reason.contains("different study key"))
        #expect(try db.readCohort().players.isEmpty)
    }

    @Test func malformedOrConflictingContentIsRejectedInOneTransaction() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        let garbage = try Upload.seal(
            try SignedUpload.make(
                body: Data("{\"type\":\"survey\"}\n".utf8), player: "p1", signingKey: device,
                resultKey: Data(count: 32)), publicKeyPEM: testKeys.publicPEM)
        guard case .rejected(let r1) = Ingest.ingest(garbage, name: "g", key: key, into: db) else {
            Issue.record("accepted"); return
        }
        #expect(r1.hasPrefix("malformed content: line 2"))
        let p = cohort.players[0]
        _ = Ingest.ingest(try upload(p), name: "a", key: key, into: db)
        // Same player and session numbers, different data, plus a new session: all or nothing.
        var changed = p
        changed.sessions[0].score += 1
        changed.sessions.append(Session(index: 99, start: 0, end: 10, score: 0))
        guard case .rejected(let r2) = Ingest.ingest(try upload(changed), name: "b", key: key, into: db) else {
            Issue.record("accepted"); return
        }
        #expect(r2.contains("different data is already stored"))
        #expect(try db.readCohort().players == [p])
    }

    @Test func anUnsignedUploadIsRefused() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        let plain = Data(TelemetryJSONL.lines(for: cohort.players[0]).joined(separator: "\n").utf8)
        guard
            case .rejected(let r) = Ingest.ingest(
                try Upload.seal(plain, publicKeyPEM: testKeys.publicPEM), name: "u", key: key, into: db)
        else {
            Issue.record("unsigned upload accepted"); return
        }
        #expect(r.contains("unsigned upload"))
        #expect(try db.readCohort().players.isEmpty)
    }

    @Test func theFirstDeviceKeyIsPinnedAndAnotherIsRefused() throws {
        let (db, dir) = try db()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try Upload.privateKey(pem: testKeys.privatePEM)
        var p = cohort.players[0]
        let first = p
        p.sessions = [Session(index: 50, start: 0, end: 1000, score: 1)]
        #expect(
            Ingest.ingest(try upload(first), name: "a", key: key, into: db)
                == .stored(player: p.id, sessions: first.sessions.count))
        guard
            case .rejected(let r) = Ingest.ingest(
                try upload(p, signedBy: Curve25519.Signing.PrivateKey()), name: "f", key: key, into: db)
        else {
            Issue.record("forged upload accepted"); return
        }
        #expect(r.contains("pinned to another device"))
        #expect(try db.pinnedKey(p.id) == device.publicKey.rawRepresentation.base64EncodedString())
        #expect(Ingest.ingest(try upload(p), name: "b", key: key, into: db) == .stored(player: p.id, sessions: 1))
    }
}

/// A device record with a field too many or too few names that field (docs/game-telemetry.md,
/// "… names the field"), shown without control characters.
@Suite struct DeviceRecordFieldTests {
    func record(_ fields: [(String, String)]) -> Data {
        let members = fields.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",")
        return Data(("{" + members + "}\n{\"type\":\"session\"}\n").utf8)
    }
    let five = [("type", "device"), ("player", "P1"), ("signing_key", "a"), ("result_key", "b"), ("signature", "c")]

    @Test func anUnknownFieldIsNamed() {
        do { _ = try SignedUpload.open(record(five + [("colour", "red")])); Issue.record("accepted") } catch {
            #expect(error.description.hasSuffix("needs exactly type, player, signing_key, result_key and signature: "
                                                + "'colour' is not one of them"), "\(error)")
        }
    }

    @Test func aMissingFieldIsNamed() {
        do { _ = try SignedUpload.open(record(five.filter { $0.0 != "result_key" })); Issue.record("accepted") } catch {
            #expect(error.description.hasSuffix("'result_key' is missing"), "\(error)")
        }
    }

    @Test func aFieldNameIsShownWithoutControlCharacters() {
        do { _ = try SignedUpload.open(record(five + [("\\u001b[31mred", "x")])); Issue.record("accepted") } catch {
            #expect(error.description.contains("'\\u{1B}[31mred' is not one of them"), "\(error)")
            #expect(!error.description.unicodeScalars.contains { $0.value == 0x1B })
        }
    }
}
