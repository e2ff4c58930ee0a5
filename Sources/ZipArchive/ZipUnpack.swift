#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ZipReader {
    /// Unpacks every entry under `folder` (which must be new or empty): folders made as
    /// needed, files created afresh (never over an existing one), no links, no
    /// permissions but the default ones. Stops at the first damaged entry.
    public func unpack(to folder: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        for entry in entries {
            let target = folder.appendingPathComponent(entry.name)
            if entry.isFolder {
                try fm.createDirectory(at: target, withIntermediateDirectories: true)
                continue
            }
            let data = try contents(of: entry)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            do { try Data(data).write(to: target, options: .withoutOverwriting) } catch {
                throw ZipError("entry '\(entry.name)': cannot be written (a file of that name exists?)")
            }
        }
    }
}
