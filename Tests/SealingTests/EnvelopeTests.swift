import Crypto
import Foundation
import Sealing
import XCTest

final class EnvelopeTests: XCTestCase {
    static let keys = try! Envelope.makeKeyPair(bits: 2048)

    func testSealedBytesOpenAndEveryChangedByteIsRefused() throws {
        let key = try Envelope.privateKey(pem: Self.keys.privatePEM)
        let plain = Data("{\"type\":\"x\"}\nbody\n".utf8)
        let sealed = try Envelope.seal(plain, publicKeyPEM: Self.keys.publicPEM)
        XCTAssertEqual(Array(sealed.prefix(4)), Array("RMU1".utf8))
        XCTAssertEqual(try Envelope.open(sealed, privateKey: key), plain)
        // Every 7th byte flipped, and the last: one of the checks refuses each.
        for i in Swift.stride(from: 0, to: sealed.count, by: 7) + [sealed.count - 1] {
            var b = [UInt8](sealed); b[i] ^= 0x20
            XCTAssertThrowsError(try Envelope.open(Data(b), privateKey: key), "byte \(i)")
        }
        XCTAssertThrowsError(try Envelope.open(sealed.prefix(100), privateKey: key)) {
            XCTAssertEqual($0 as? Envelope.Failure, .truncated)
        }
        XCTAssertThrowsError(try Envelope.open(Data("RMUX".utf8) + sealed.dropFirst(4), privateKey: key)) {
            XCTAssertEqual($0 as? Envelope.Failure, .notSealed)
        }
        let other = try Envelope.privateKey(pem: try Envelope.makeKeyPair(bits: 2048).privatePEM)
        XCTAssertThrowsError(try Envelope.open(sealed, privateKey: other)) {
            XCTAssertEqual($0 as? Envelope.Failure, .wrongKey)
        }
    }

    func testHexAndDigest() {
        XCTAssertEqual(Hex.string([0, 15, 16, 255]), "000f10ff")
        XCTAssertEqual(Hex.sha256(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testSignedRecordLineVerifies() throws {
        let key = Curve25519.Signing.PrivateKey()
        let body = Data("line 1\nline 2\n".utf8)
        let line = try SignedRecord.line(type: "t", fields: [("a", "x\"y"), ("b", "z")], signed: ["b", "a"],
                                         context: "ctx\n", body: body, key: key)
        let (rec, rest) = SignedRecord.split(Data(line.utf8) + body)!
        XCTAssertEqual(rest, body)
        let r = try FlatJSON.object(rec)
        XCTAssertEqual(r["a"], "x\"y")
        let msg = SignedRecord.message(context: "ctx\n", fields: ["z", "x\"y"], body: body)
        XCTAssertEqual(msg, Data("ctx\nz\nx\"y\nline 1\nline 2\n".utf8))
        XCTAssertTrue(SignedRecord.verify(signingKey: r["signing_key"]!, signature: r["signature"]!, message: msg))
        XCTAssertFalse(SignedRecord.verify(signingKey: r["signing_key"]!, signature: r["signature"]!,
                                           message: msg + Data([0])))
    }
}

final class FlatJSONTests: XCTestCase {
    func testStringsAndEscapes() throws {
        let r = try FlatJSON.object(Data(#" { "a" : "\u00e9\n\"\/" , "b":"\ud83d\ude00" } "#.utf8))
        XCTAssertEqual(r, ["a": "é\n\"/", "b": "😀"])
        XCTAssertEqual(try FlatJSON.object(Data("{}".utf8)), [:])
    }

    func testRefusals() {
        for bad in [#"{"a":1}"#, #"{"a":"x",}"#, #"{"a":"x"} x"#, #"["a"]"#, #"{"a":"\ud83d"}"#, "{\"a\":\"\u{1}\"}",
                    #"{"a":"x""#, #"{"a" "x"}"#, #"{"a":{"b":"c"}}"#] {
            XCTAssertThrowsError(try FlatJSON.object(Data(bad.utf8)), bad)
        }
        XCTAssertThrowsError(try FlatJSON.object(Data(#"{"a":"x","\u0061":"y"}"#.utf8))) {
            XCTAssertEqual($0 as? FlatJSON.Problem, .duplicate("a"))
        }
    }

    func testQuoteRoundTrips() throws {
        let s = "a\"b\\c\n\u{1}é"
        XCTAssertEqual(try FlatJSON.object(Data(("{\"k\":" + FlatJSON.quote(s) + "}").utf8))["k"], s)
    }
}
