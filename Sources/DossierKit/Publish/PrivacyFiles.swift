#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Reading the files that say what privacy budget was spent — a project's
/// `privacy-ledger.txt`, a site's `game/privacy.json` — fails closed
/// (docs/game-privacy.md, "The release ledger"): only a file that does not exist counts
/// as none. One that exists but cannot be read, or is not UTF-8, is an error naming it,
/// never taken as empty: an empty ledger would let a release spend its budget again, or
/// draw a fresh privacy key over data already released.
enum PrivacyFiles {
    /// The file's bytes; nil only when there is no file at `url` (no such file, or a
    /// folder on the way is missing).
    static func bytesIfPresent(_ url: URL, shown: String) throws -> Data? {
        var st = stat()
        if stat(url.path, &st) != 0 {
            let e = errno
            if e == ENOENT || e == ENOTDIR { return nil }
            throw DossierError(file: shown, "cannot read this privacy file (\(String(cString: strerror(e))))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw DossierError(file: shown, "is a folder, not a privacy file")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DossierError(file: shown, "cannot read this privacy file (\(String(cString: strerror(errno))))")
        }
        return data
    }

    /// ``bytesIfPresent(_:shown:)`` as UTF-8 text.
    static func textIfPresent(_ url: URL, shown: String, what: String = "a privacy ledger is UTF-8") throws -> String? {
        guard let data = try bytesIfPresent(url, shown: shown) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DossierError(file: shown, "not UTF-8 text; \(what) (docs/game-privacy.md)")
        }
        return text
    }
}
