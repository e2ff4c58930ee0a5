#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

extension Vault {
    /// The bytes of a vault file, refused before reading when bigger than ``maxFileSize``.
    static func readBounded(_ url: URL) throws -> Data {
        let tooBig = { (n: Int) in
            VaultError(.invalidInput, "the vault file is \(n) bytes, more than the maximum of \(maxFileSize >> 20) MiB",
                       file: url.path)
        }
        var st = stat()
        if stat(url.path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            let what = st.st_mode & S_IFMT == S_IFDIR ? "a folder" : "a special file (a device, pipe or socket)"
            throw VaultError(.invalidInput, "is \(what), not a vault file: name the vault file itself",
                             file: url.path)
        }
        guard let handle = PlainFile(forReadingAtPath: url.path) else {
            throw VaultError(.io, "cannot read the vault file", file: url.path)
        }
        defer { try? handle.close() }
        if let size = try? handle.seekToEnd(), size > UInt64(maxFileSize) { throw tooBig(Int(size)) }
        do {
            try handle.seek(toOffset: 0)
            let data = try handle.read(upToCount: maxFileSize + 1) ?? Data()
            if data.count > maxFileSize { throw tooBig(data.count) }
            return data
        } catch let e as VaultError {
            throw e
        } catch {
            throw VaultError(.io, "cannot read the vault file", file: url.path)
        }
    }
}
