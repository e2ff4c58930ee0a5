import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The KDBX "inner random stream" that hides protected values (passwords, protected
/// strings) inside the decrypted XML: one keystream, consumed in document order by every
/// `<Value Protected="True">` (history versions included), each value XOR'ed with the next
/// bytes.
///
/// - id 2, Salsa20 (KDBX 3.1): key = SHA-256(stream key), nonce E8 30 09 4B 97 20 5D 2A,
///   64-bit block counter from 0.
/// - id 3, ChaCha20 (KDBX 4): h = SHA-512(stream key); key = h[0..<32],
///   nonce = h[32..<44] (RFC 8439, 32-bit counter from 0).
final class InnerStream {
    private enum Cipher { case salsa20([UInt32]), chacha20(SymmetricKey, Insecure.ChaCha20CTR.Nonce) }
    private let cipher: Cipher
    private var buffer: [UInt8] = []
    private var position = 0
    private var blocks: UInt64 = 0

    init(id: UInt32, key: Data) throws {
        switch id {
        case 2:
            let k = Array(SHA256.hash(data: key))
            cipher = .salsa20(Salsa20.state(key: k, nonce: [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]))
        case 3:
            let h = Array(SHA512.hash(data: key))
            cipher = .chacha20(SymmetricKey(data: h[0..<32]), try Insecure.ChaCha20CTR.Nonce(data: h[32..<44]))
        case 0:
            throw VaultError(.unsupported, "the database hides protected values with no stream (id 0): not supported")
        default:
            throw VaultError(.unsupported, "inner random stream \(id) is not supported (2 Salsa20 and 3 ChaCha20 are)")
        }
    }

    /// XORs `data` with the next `data.count` keystream bytes.
    func apply(_ data: Data) throws -> Data {
        var out = [UInt8](data)
        for i in out.indices {
            if position == buffer.count { try refill() }
            out[i] ^= buffer[position]
            position += 1
        }
        return Data(out)
    }

    private func refill() throws {
        let count: UInt64 = 64   // blocks of 64 bytes at a time
        switch cipher {
        case .salsa20(let state):
            buffer = []
            for b in 0..<count { buffer += Salsa20.block(state, counter: blocks + b) }
        case .chacha20(let key, let nonce):
            guard blocks + count <= UInt64(UInt32.max) else {
                throw VaultError(.invalidInput, "protected values exceed the ChaCha20 stream")
            }
            buffer = Array(try Insecure.ChaCha20CTR.encrypt(Data(count: Int(count) * 64), using: key,
                                                            counter: .init(offset: UInt32(blocks)), nonce: nonce))
        }
        blocks += count
        position = 0
    }
}

/// Salsa20/20 (D. J. Bernstein's specification): 256-bit key, 64-bit nonce, 64-bit counter.
enum Salsa20 {
    /// The 16-word input with key and nonce set and the counter words (8, 9) zero.
    static func state(key: [UInt8], nonce: [UInt8]) -> [UInt32] {
        func word(_ b: [UInt8], _ i: Int) -> UInt32 {
            UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        }
        let sigma: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]   // "expand 32-byte k"
        var s = [UInt32](repeating: 0, count: 16)
        s[0] = sigma[0]; s[5] = sigma[1]; s[10] = sigma[2]; s[15] = sigma[3]
        for i in 0..<4 { s[1 + i] = word(key, 4 * i); s[11 + i] = word(key, 16 + 4 * i) }
        s[6] = word(nonce, 0); s[7] = word(nonce, 4)
        return s
    }

    /// 64 keystream bytes for block `counter`.
    static func block(_ input: [UInt32], counter: UInt64) -> [UInt8] {
        var s = input
        s[8] = UInt32(truncatingIfNeeded: counter)
        s[9] = UInt32(truncatingIfNeeded: counter >> 32)
        var x = s
        func qr(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            x[b] ^= (x[a] &+ x[d]).rotl(7)
            x[c] ^= (x[b] &+ x[a]).rotl(9)
            x[d] ^= (x[c] &+ x[b]).rotl(13)
            x[a] ^= (x[d] &+ x[c]).rotl(18)
        }
        for _ in 0..<10 {
            qr(0, 4, 8, 12); qr(5, 9, 13, 1); qr(10, 14, 2, 6); qr(15, 3, 7, 11)   // columns
            qr(0, 1, 2, 3); qr(5, 6, 7, 4); qr(10, 11, 8, 9); qr(15, 12, 13, 14)   // rows
        }
        var out = [UInt8]()
        out.reserveCapacity(64)
        for i in 0..<16 {
            let w = x[i] &+ s[i]
            out += [UInt8(w & 0xff), UInt8(w >> 8 & 0xff), UInt8(w >> 16 & 0xff), UInt8(w >> 24)]
        }
        return out
    }
}

private extension UInt32 {
    func rotl(_ n: UInt32) -> UInt32 { self << n | self >> (32 - n) }
}
