import Crypto
import Foundation
import RecallStudy
import Sealing
import XCTest

final class RecallIngestTests: XCTestCase {
    static let keys = try! Envelope.makeKeyPair(bits: 2048)
    let device = String(repeating: "ab", count: 16)
    let log = Data(("{\"type\":\"session\",\"format\":\"dossier-recall/1\",\"participant\":\"P1\"}\n"
        + "{\"t\":0,\"type\":\"button\",\"button\":\"begin\"}\n").utf8)

    func folder() throws -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("recall-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    func upload(_ body: Data, name: String = "rc-000000000000000000000001.rcu", log: String = "recall-P1-1.jsonl",
                key: Curve25519.Signing.PrivateKey) throws -> Data {
        try Envelope.seal(try RecallUpload.make(body: body, device: device, upload: name, log: log, key: key),
                          publicKeyPEM: Self.keys.publicPEM)
    }

    func testStoresOnceAndRefusesWithReasons() throws {
        let dir = try folder(), sink = try FolderRecallLogSink(folder: dir)
        let key = try Envelope.privateKey(pem: Self.keys.privatePEM), device = Curve25519.Signing.PrivateKey()
        let u = try upload(log, key: device)
        let name = "rc-000000000000000000000001.rcu"
        XCTAssertEqual(RecallIngest.ingest(u, name: name, key: key, into: sink), .stored(log: "recall-P1-1.jsonl"))
        XCTAssertEqual(FileManager.default.contents(atPath: dir.appendingPathComponent("recall-P1-1.jsonl").path), log)
        XCTAssertEqual(RecallIngest.ingest(u, name: name, key: key, into: sink), .duplicate(log: "recall-P1-1.jsonl"))
        func reason(_ o: RecallIngestOutcome) -> String {
            if case .rejected(let r) = o { return r }
            return "accepted: \(o)"
        }
        XCTAssertTrue(reason(RecallIngest.ingest(u, name: "rc-x.rcu", key: key, into: sink)).contains("replayed"))
        XCTAssertTrue(reason(RecallIngest.ingest(u.prefix(u.count - 1), name: name, key: key, into: sink))
            .contains("authentication failed"))
        // Another key claiming the same device id.
        let forged = try upload(log + Data("{\"t\":5,\"type\":\"page\",\"page\":\"recall\"}\n".utf8),
                                name: "rc-000000000000000000000002.rcu", log: "recall-P1-2.jsonl", key: .init())
        XCTAssertTrue(reason(RecallIngest.ingest(forged, name: "rc-000000000000000000000002.rcu", key: key, into: sink))
            .contains("pinned to another signing key"))
        // The device's own different log under a name already stored: a conflict.
        let other = try upload(log + Data("{\"t\":9,\"type\":\"page\",\"page\":\"recall\"}\n".utf8),
                               name: "rc-000000000000000000000003.rcu", key: device)
        XCTAssertTrue(reason(RecallIngest.ingest(other, name: "rc-000000000000000000000003.rcu", key: key, into: sink))
            .contains("a different log named recall-P1-1.jsonl"))
        // A body that is not a log.
        let junk = try upload(Data("hello\n".utf8), name: "rc-000000000000000000000004.rcu", log: "recall-P9-1.jsonl",
                              key: device)
        XCTAssertTrue(reason(RecallIngest.ingest(junk, name: "rc-000000000000000000000004.rcu", key: key, into: sink))
            .hasPrefix("malformed log: recall-P9-1.jsonl:1"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(names, [".recall-devices", "recall-P1-1.jsonl"])
    }

    /// A refused conflict pins nothing: a forged upload naming a stored log cannot pin an
    /// unused device id to its own key (docs/recall-upload.md, "Device pins").
    func testARefusedConflictPinsNoDevice() throws {
        let dir = try folder(), sink = try FolderRecallLogSink(folder: dir)
        let key = try Envelope.privateKey(pem: Self.keys.privatePEM)
        XCTAssertEqual(RecallIngest.ingest(try upload(log, key: .init()), name: "rc-000000000000000000000001.rcu",
                                           key: key, into: sink), .stored(log: "recall-P1-1.jsonl"))
        let newDevice = String(repeating: "cd", count: 16), name = "rc-000000000000000000000002.rcu"
        let forged = try Envelope.seal(
            try RecallUpload.make(body: log + Data("{\"t\":9,\"type\":\"page\",\"page\":\"recall\"}\n".utf8),
                                  device: newDevice, upload: name, log: "recall-P1-1.jsonl", key: .init()),
            publicKeyPEM: Self.keys.publicPEM)
        guard case .rejected(let reason) = RecallIngest.ingest(forged, name: name, key: key, into: sink) else {
            return XCTFail("a conflicting upload was accepted")
        }
        XCTAssertTrue(reason.contains("a different log named recall-P1-1.jsonl"), reason)
        XCTAssertNil(try sink.pinnedKey(device: newDevice))
    }

    func testAGameUploadIsNotARecallUpload() throws {
        let plain = Data("{\"type\":\"device\",\"player\":\"p1\"}\n{}\n".utf8)
        XCTAssertThrowsError(try RecallUpload.open(plain)) {
            XCTAssertTrue(($0 as! RecallUploadProblem).message.hasPrefix("not a recall upload"))
        }
    }
}
