#if canImport(Glibc)
import Glibc
#endif
#if DEBUG
import Synchronization
#endif

// MARK: - Named pause points, for tests that stop the database server at an exact moment

/// Pause points for crash and outage tests, active only in debug builds (like the
/// write points of `DOSSIER_FAULT_AT`, Sources/WebDAV/FaultPoint.swift).
///
/// With `DOSSIER_PAUSE_AT=LABEL:N` and `DOSSIER_PAUSE_FILE=PATH` in the environment, the
/// Nth time the process reaches the point named LABEL it creates `PATH.reached` and waits
/// until the file PATH exists, then goes on. A test waits for `PATH.reached`, does what it
/// tests (stops the database server), then creates PATH. The points:
///
/// - `commit`: just before a write transaction commits (one per ingested upload);
/// - `snapshot`: inside a build's read snapshot, after its first query;
/// - `folder-store`: as `recall ingest` starts to store a log into a logs folder;
/// - `own-read`: a build's participant unit has read its log (``OwnInputRead``) and not
///   yet looked at the file again to stamp it (docs/incremental.md, "Each log read once");
/// - `plan-read`: a build's plan has read an input file it could not take from its stamp,
///   and not yet hashed it;
/// - `sections-read`: a build has made its sections (a study's strings files read), and
///   not yet planned;
/// - `units-listed`: a build's plan has listed a section's units (a vault unlocked, the
///   keystores' inventories read) and not yet hashed their inputs.
/// - `unit-build`: a build's plan is done and a unit that is not reused is about to be
///   built (its inputs stamped by the plan, not yet read by the unit).
/// - `site-committed`: a build has put its site's files in place and not yet written their
///   manifest (docs/output-manifest.md, "One command at a time").
/// - `ledger-copy`: a publish has committed its release's row to the study database's
///   privacy ledger and not yet rewritten the project's text copy (docs/game-privacy.md).
///
/// In release builds ``reached(_:)`` does nothing.
public enum PausePoint {
    #if DEBUG
    /// Times each label was reached; locked: units reach `unit-build` on several threads at
    /// once (an unlocked dictionary crashed a test build in CI).
    private static let counts = Mutex<[String: Int]>([:])
    private static let target: (label: String, n: Int)? = {
        guard let spec = environment("DOSSIER_PAUSE_AT") else { return nil }
        let parts = spec.split(separator: ":")
        guard let label = parts.first else { return nil }
        return (String(label), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
    }()
    #endif

    public static func reached(_ label: String) {
        #if DEBUG
        guard let target, target.label == label, let file = environment("DOSSIER_PAUSE_FILE") else { return }
        let n = counts.withLock { c in
            c[label, default: 0] += 1
            return c[label]!
        }
        guard n == target.n else { return }
        let marker = file + ".reached"
        let fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd >= 0 { close(fd) }
        while access(file, F_OK) != 0 { usleep(20_000) }
        #endif
    }
}
