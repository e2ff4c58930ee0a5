#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore
import TextBasics

/// Where Dossier talks to people: progress and notes to standard error, never secrets.
public enum Console {
    /// Prints each diagnostic of `error` as `file:line: message` on standard error.
    public static func error(_ error: DossierError) {
        for d in error.diagnostics {
            let text = d.severity == .error ? "error: " : ""
            let line = d.description
            Stdio.writeError(Data(StoreError.scrubbed((d.file == nil ? text : "") + line + "\n").utf8))
        }
    }

    /// A line on standard error.
    public static func note(_ message: String) {
        Stdio.writeError(Data(StoreError.scrubbed(message + "\n").utf8))
    }
}

/// Dossier's version, recorded in outputs that say what made them.
public enum DossierVersion {
    public static let string = "0.1.0"
}
