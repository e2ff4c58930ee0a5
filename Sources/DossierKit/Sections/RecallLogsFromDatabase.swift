// Compiled only with the recall domain.
#if DOMAIN_RECALL
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore

// MARK: - `recall: database:` — participant logs read from the study database (docs/store.md)

/// The logs of a recall study kept in a database's `recall_logs` table, read in one
/// snapshot (SQLite read transaction, PostgreSQL REPEATABLE READ READ ONLY). Each log's
/// bytes are kept under `.dossier/recall-logs/<sha256>.<jsonl|csv>` (written once, checked
/// against their hash; `dossier check` keeps them in a temporary folder instead), so the
/// build reads them as it reads logs in a folder, and an unchanged log is not rebuilt. A
/// log is named `recall_logs/<name>` in messages and in the study tables' source-file
/// column — as a log `<name>` in a folder `recall_logs` of the project would be, so the
/// two sites are the same bytes.
enum RecallLogsFromDatabase {
    struct Log { var name: String; var path: String; var shown: String }

    /// The `database:` of the recall section, nil when it has none.
    static func location(_ config: SectionConfig) throws -> StoreLocation? {
        guard let s = try config.string("database") else { return nil }
        do {
            if StoreLocation.isPostgres(s) { return try StoreLocation.parse(s, place: "recall.database") }
        } catch { throw config.errorNamingKey("database", error.message) }
        return try config.path("database").map { .sqlite(path: $0.path) }
    }

    /// Every `.jsonl` and `.csv` log of the table, in byte order of the names.
    static func read(_ location: StoreLocation, project: Project, shown: String) throws -> [Log] {
        let folder = project.cacheFolder.appendingPathComponent("recall-logs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let table = try RecallLogTable(location, create: false)
            return try table.conn.transaction(.snapshot) { () throws -> [Log] in
                var logs: [Log] = []
                for entry in try table.list() {
                    let ext = entry.name.split(separator: ".").last.map { $0.lowercased() } ?? ""
                    guard ext == "jsonl" || ext == "csv", !entry.name.hasPrefix(".") else { continue }
                    guard RecallLogTable.isHash(entry.sha256) else {
                        throw DossierError(file: shown, "recall_logs row \(entry.name): sha256 is not 64 hex digits")
                    }
                    let path = folder.appendingPathComponent("\(entry.sha256).\(ext)").path
                    if !FileManager.default.fileExists(atPath: path) {
                        guard let bytes = try table.bytes(name: entry.name) else { continue }
                        let digest = SHA256.hash(data: bytes)
                            .map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
                        guard digest == entry.sha256 else {
                            throw DossierError(file: shown,
                                               "recall_logs row \(entry.name): its bytes do not match its sha256")
                        }
                        try AtomicFile.write(Data(bytes), to: URL(fileURLWithPath: path), mode: 0o600)
                    }
                    logs.append(Log(name: entry.name, path: path, shown: "recall_logs/" + entry.name))
                }
                PausePoint.reached("snapshot")
                return logs
            }
        } catch let e as StoreError {
            throw DossierError(file: shown, e.message)
        }
    }

    /// The database as messages name it (a SQLite file relative to the project).
    static func shown(_ location: StoreLocation, _ project: Project) -> String {
        location.engine == .sqlite ? project.display(URL(fileURLWithPath: location.text)) : location.shown
    }

    /// The log's file name without its extension (its page's name, as for a file).
    static func stem(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = last.lastIndex(of: ".") else { return last }
        return String(last[..<dot])
    }
}
#endif
