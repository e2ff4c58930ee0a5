import ArgumentParser
import Crypto
import DossierKit
import StudyStore

/// `dossier db …`: the study database itself — its schema and moving it between
/// SQLite and PostgreSQL (docs/store.md).
struct DbCommand: ParsableCommand {
    static let configuration = HelpText.command("db", subcommands: [DbMigrate.self, DbCopy.self, DbImportLogs.self])
}

/// Reads a database argument; a password in it is refused.
func storeLocation(_ text: String, option: String) throws -> StoreLocation {
    do { return try StoreLocation.parse(text, place: option) } catch { throw DossierError(error.message) }
}

/// Opens a store; a failure names the database and what to fix.
func openStudyStore(_ location: StoreLocation, create: Bool) throws -> StoreConnection {
    if case .sqlite(let path) = location, !create, !FileManager.default.fileExists(atPath: path) {
        throw DossierError(file: path, "database not found")
    }
    do { return try openStore(location, create: create) } catch {
        throw DossierError(file: location.shown, error.message)
    }
}

struct DbMigrate: ParsableCommand {
    static let configuration = HelpText.command("db migrate")
    @Option(help: "A SQLite file (created if missing) or a postgres:// location.") var database: String
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let location = try storeLocation(database, option: "--database")
        let conn = try openStudyStore(location, create: true)
        let step: (from: Int?, to: Int)
        do { step = try StudySchema.migrate(conn) } catch { throw DossierError(file: location.shown, error.message) }
        let from = step.from.map { "version \($0)" } ?? "no schema"
        quiet.say(step.from == step.to ? "\(location.shown): schema version \(step.to), up to date"
                                       : "\(location.shown): \(from) → schema version \(step.to)")
    }
}

struct DbCopy: ParsableCommand {
    static let configuration = HelpText.command("db copy")
    @Argument(help: "The database to copy from.") var from: String
    @Argument(help: "The database to copy into (a SQLite file is created).") var to: String
    @Flag(help: "Replace what TO holds.") var replace = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let source = try storeLocation(from, option: "FROM"), target = try storeLocation(to, option: "TO")
        guard source.text != target.text, !Self.sameFile(source, target) else {
            throw ValidationError("FROM and TO are the same database")
        }
        let src = try openStudyStore(source, create: false)
        let dst = try openStudyStore(target, create: true)
        let counts: [(table: String, rows: Int)]
        do { counts = try StoreCopy.copy(from: src, to: dst, replace: replace) } catch let e as StoreError {
            let named = [source, target].contains {
                e.message.hasPrefix($0.shown + ": ") || e.message.hasPrefix($0.shown + " ")
            }
            throw DossierError(named ? e.message : "\(source.shown) → \(target.shown): \(e.message)")
        }
        let shown = counts.filter { $0.table != "meta" }.map { "\($0.table) \($0.rows)" }.joined(separator: ", ")
        quiet.say("copied \(source.shown) → \(target.shown): \(shown)")
    }
}

extension DbCopy {
    /// Two SQLite locations naming one file (a symbolic or hard link, `./a` and `a`): the
    /// same device and inode (not a copy: at best every row deleted and put back).
    static func sameFile(_ a: StoreLocation, _ b: StoreLocation) -> Bool {
        guard case .sqlite(let p) = a, case .sqlite(let q) = b else { return false }
        var x = stat(), y = stat()
        return stat(p, &x) == 0 && stat(q, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }
}

struct DbImportLogs: ParsableCommand {
    static let configuration = HelpText.command("db import-logs")
    @Option(help: "A SQLite file (created if missing) or a postgres:// location.") var database: String
    @Argument(help: "Log files or folders of logs.") var inputs: [String]
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let location = try storeLocation(database, option: "--database")
        var files: [String] = []
        for i in inputs {
            var dir = false
            guard FileManager.default.fileExists(atPath: i, isDirectory: &dir) else {
                throw DossierError(file: i, "not found")
            }
            if dir {
                let names = try FileManager.default.contentsOfDirectory(atPath: i).sorted()
                files += names.filter { !$0.hasPrefix(".") && ($0.hasSuffix(".jsonl") || $0.hasSuffix(".csv")) }
                    .map { (i.hasSuffix("/") ? i : i + "/") + $0 }
            } else { files.append(i) }
        }
        let table: RecallLogTable
        do { table = try RecallLogTable(openStudyStore(location, create: true)) } catch let e as StoreError {
            throw DossierError(file: location.shown, e.message)
        }
        var stored = 0, known = 0
        for f in files {
            guard let data = FileManager.default.contents(atPath: f) else {
                throw DossierError(file: f, "cannot read the file")
            }
            let hash = SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            let name = f.split(separator: "/").last.map(String.init) ?? f
            do {
                if try table.store(name: name, bytes: [UInt8](data), sha256: hash) { stored += 1 } else {
                    known += 1
                    quiet.note("\(f): already stored")
                }
            } catch let e as StoreError { throw DossierError(file: location.shown, e.message) }
        }
        quiet.say("\(stored) stored, \(known) already there")
    }
}
