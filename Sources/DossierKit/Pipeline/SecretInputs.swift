#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Inputs whose bytes are a secret (``SectionUnit/secretPaths``: a vault's or a keystore's
/// `password_file:`). An unsalted SHA-256 of a password file lets anyone who holds the
/// manifest or the build state test guesses of the password, and its size tells the
/// password's length; so such a file is never read to plan, never recorded as an input,
/// and stands in its unit's key for its times and inode (docs/output-manifest.md,
/// "Secret inputs").
extension BuildContext {
    /// The text that stands for input `path` of unit `u` in the unit's key: its SHA-256
    /// (``inputDigestOnce(_:)``), or for a secret input ``secretInputKey(_:)``.
    func inputKey(_ path: String, of u: SectionUnit) throws -> String {
        u.secretPaths.isEmpty || !u.secretPaths.contains(path) ? try inputDigestOnce(path) : try secretInputKey(path)
    }

    /// A secret input's part of a key: `secret`, its mtime and ctime in ns, inode and
    /// device — any write to the file changes it, its bytes and size are not in it. A file
    /// changed within the last second ("racily clean", as for other stamps) gets a key no
    /// build will see again, so the unit is built now and once more after that second.
    func secretInputKey(_ path: String) throws -> String {
        guard let s = BuildState.InputStamp.current(path), access(path, R_OK) == 0 else {
            throw DossierError(file: project.display(URL(filePath: path, directoryHint: .notDirectory)),
                               "cannot read input file")
        }
        let stamp = "secret \(s.mtime) \(s.ctime) \(s.inode) \(s.device)"
        return max(s.mtime, s.ctime) < s.takenAt - 1_000_000_000 ? stamp : stamp + " racy " + UUID().uuidString
    }
}
