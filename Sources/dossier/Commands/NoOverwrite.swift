#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import DossierKit

/// Commands that write files of data at a path the user names (`recall simulate`,
/// `recall import-desktop`, `game simulate`, `experiences import`) never replace a file
/// already there unless `--force` is given: a simulation run into a study's real logs
/// folder, or over a real telemetry file, would otherwise destroy data without a word.
enum NoOverwrite {
    /// Throws, before anything is written, when any of `paths` exists and `force` is off:
    /// naming the first such file and counting the others.
    static func check(_ paths: [String], force: Bool, command: String) throws {
        guard !force else { return }
        let there = paths.filter { access($0, F_OK) == 0 }
        guard let first = there.first else { return }
        let more = there.count - 1
        throw DossierError(file: first, "already exists" + (more > 0 ? " (and \(more) more of the files to write)" : "")
            + "; \(command) never replaces a file unless --force is given. Nothing was written")
    }
}
