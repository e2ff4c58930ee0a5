#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Atomic writes

public enum AtomicFile {
    /// temp file in the same folder → write → fsync → rename → fsync the folder.
    public static func write(_ data: Data, to url: URL) throws {
        let temp = ".\(url.lastPathComponent).\(UUID().uuidString).tmp"
        switch DurableReplace.write(data, to: url.path, tempName: temp) {
        case nil: return
        case .create(let code):
            throw VaultError(.io, "cannot create a temporary file here: \(ErrnoAdvice.words(code)); \(unchanged)",
                             file: url.deletingLastPathComponent().path)
        case .write(let code):
            throw VaultError(.io, "cannot write the file: \(ErrnoAdvice.words(code)); \(unchanged)", file: url.path)
        }
    }

    static let unchanged = "the file on disk is as it was"
}
