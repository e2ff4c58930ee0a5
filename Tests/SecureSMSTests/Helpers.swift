import Crypto
import Foundation
@testable import SecureSMS
import SplitMix64

/// Every character a plaintext may hold: the basic table (no ESC) and the extension characters.
let plainChars: [Unicode.Scalar] = GSMAlphabet.basic.enumerated().filter { $0.offset != 0x1B }.map(\.element)
    + Array(GSMAlphabet.extensionTable.values)

/// A random plaintext whose septet count is at most `maxSeptets`.
func randomPlaintext(maxSeptets: Int, using rng: inout SplitMix64) -> String {
    let target = Int.random(in: 0...maxSeptets, using: &rng)
    var out = String.UnicodeScalarView()
    var used = 0
    while used < target {
        let s = plainChars.randomElement(using: &rng)!
        let cost = GSMAlphabet.extensionIndex[s] != nil ? 2 : 1
        if used + cost > target { if target - used == 1 { continue } else { break } }
        out.append(s)
        used += cost
    }
    return String(out)
}

/// A deterministic X25519 private key from a seed.
func testKey(_ rng: inout SplitMix64) -> Curve25519.KeyAgreement.PrivateKey {
    try! Curve25519.KeyAgreement.PrivateKey(
        rawRepresentation: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
}

/// Completes an open exchange on both sides (they compare the same safety number).
func agree(_ a: inout Contact, _ b: inout Contact, now t: Date) throws {
    let pa = a.ownPublicKey!, pb = b.ownPublicKey!
    let number = try a.safetyNumber(theirs: pb)
    try a.complete(theirs: pb, confirmed: number, now: t)
    try b.complete(theirs: pa, confirmed: try b.safetyNumber(theirs: pa), now: t)
}

/// A connected pair of contacts (Alice's view of Bob, Bob's view of Alice).
func makePair(seed: UInt64 = 1) throws -> (alice: Contact, bob: Contact) {
    var rng = SplitMix64(seed: seed)
    let t = Date(timeIntervalSince1970: 1_700_000_000)
    var a = Contact(name: "Bob", ownKey: testKey(&rng), now: t)
    var b = Contact(name: "Alice", ownKey: testKey(&rng), now: t)
    try agree(&a, &b, now: t)
    return (a, b)
}

/// The full stored state of a contact, to prove an operation changed nothing.
func snapshot(_ c: Contact) throws -> Data { try Keystore.encoder().encode(c) }

/// The repository root (tests read docs/ from it).
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func tempDir() throws -> URL {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("sms-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}

/// Cheap scrypt for tests (the cost parameter is stored in the file, so this is the real code path).
func testKDF() -> Keystore.KDFParams { Keystore.KDFParams(log2n: 10, r: 8, p: 1, salt: Keystore.randomData(16)) }

/// The keystore tests' clock: one fixed moment.
let testNow = Date(timeIntervalSince1970: 1_800_000_000)

/// Alice's new keystore in `dir`: password "correct horse", the cheap KDF, made at `testNow`.
func newTestKeystore(in dir: URL, lockSeconds: Int = 300) throws -> Keystore {
    try Keystore.create(at: dir.appendingPathComponent("me.keystore"), account: "alice", password: "correct horse",
                        lockSeconds: lockSeconds, kdf: testKDF(), now: testNow)
}
