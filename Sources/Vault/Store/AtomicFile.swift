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
        case .create:
            throw VaultError(.io, "cannot create a temporary file", file: url.deletingLastPathComponent().path)
        case .write:
            throw VaultError(.io, "cannot write the file", file: url.path)
        }
    }
}
