#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

// MARK: - Atomic writes

/// Writes a file so that a crash leaves either the old or the new bytes: a temporary
/// file in the same folder (mode 0600), fsync, rename over the target, fsync the folder.
enum AtomicWrite {
    static func write(_ data: Data, to url: URL) throws {
        let dir = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let temp = ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        switch DurableReplace.write(data, to: url.path, tempName: temp) {
        case nil: return
        case .create(let e):
            throw SecureSMSError.keystore("\(dir.path): cannot write here: \(ErrnoAdvice.words(e))")
        case .write(let e):
            throw SecureSMSError.keystore(
                "\(url.path): could not save: \(ErrnoAdvice.words(e)); the keystore on disk is as it was")
        }
    }
}
