#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics
import Privacy
import StudyStore

// MARK: - `dossier publish` and the privacy ledger (docs/game-privacy.md, "The release ledger")

/// Before a publish: reads the release's spend from the site (`game/privacy.json`) and
/// the project's ledger, and refuses a release that would take the total past the
/// lifetime budget (unless `allowOverBudget`). After a successful publish: appends the
/// release to the ledger, unless the ledger already holds it (same inputs, same noise:
/// nothing new was revealed).
public struct PrivacyLedgerHook: Sendable {
    /// The ledger's file name in the project folder.
    public static let fileName = "privacy-ledger.txt"
    /// Where a site states its release's spend.
    public static let releasePath = "game/privacy.json"

    public let ledgerURL: URL
    let ledger: Ledger
    let entry: Ledger.Entry
    /// True when the ledger already records this release.
    public let alreadyRecorded: Bool
    /// The study database that keeps the ledger (nil: the ledger is the text file alone).
    let databasePath: String?
    /// The ledger as messages name it, and the budget checked again as the release is
    /// recorded in a database (nil: `--exceed-privacy-budget`, or no database).
    let shownLedger: String, recheckMilli: Int?
    /// With a database: the text copy differs from the database's ledger (so recording
    /// writes it even when the release is recorded already).
    let copyStale: Bool
    /// The text ledger's lock (`<ledger>.lock`), held from before the ledger is read until
    /// this publish ends: two publishes of one project read, check and append one after
    /// the other, so neither's spend is written over (nil where no lock can be had).
    let lock: CommandLock?

    struct ReleaseFile: Decodable {
        var release: String; var section: String; var epsilon: String; var delta: String; var lifetimeEpsilon: String
        /// Set when the release was built from a study database (docs/game-privacy.md,
        /// "One key and one ledger per database").
        var database: String?; var seal: String?
    }

    /// Nil when the site holds no release that spends privacy budget. A release built from a
    /// database is checked against that database's key and ledger, found through `project`
    /// (the project given to publish; with `--site`, the project in the current folder).
    public static func prepare(site: URL, ledgerURL: URL, shownLedger: String, allowOverBudget: Bool,
                               project: Project? = nil) throws -> PrivacyLedgerHook? {
        let file = site.appendingPathComponent(releasePath)
        guard let text = try PrivacyFiles.textIfPresent(file, shown: file.path,
                                                        what: "a privacy release file is UTF-8 JSON: rebuild the site")
        else { return nil }
        let data = Data(text.utf8)
        guard let r = try? JSONDecoder().decode(ReleaseFile.self, from: data), let eps = PrivacyNumber.milli(r.epsilon),
              var life = PrivacyNumber.milli(r.lifetimeEpsilon) else {
            throw DossierError(file: file.path, "not a privacy release file (docs/game-privacy.md): rebuild the site")
        }
        var ledger = Ledger()
        var ledgerURL = ledgerURL, shownLedger = shownLedger
        var databasePath: String? = nil
        var found: DatabaseLedger? = nil
        if r.database != nil || r.seal != nil {
            found = try databaseLedger(release: r, file: file.path, project: project)
            ledgerURL = found!.textLedger
        }
        let lock = CommandLock.take(ledgerURL.path + ".lock", .write, command: "publish",
                                    subject: "this privacy ledger (one publish at a time reads and adds to it)") {
            Console.note($0)
        }
        if let f = found {   // read under the lock: another publish of this project may have just added to it
            databasePath = f.path
            shownLedger = f.shown
            ledger = try f.read()
            life = min(life, f.lifetimeMilli)
        }
        // (Fails closed: a ledger that cannot be read is an error, not an empty ledger.)
        var copied = Set<String>()   // the releases the text file records
        if let text = try PrivacyFiles.textIfPresent(ledgerURL, shown: ledgerURL.path) {
            let parsed: Ledger
            do { parsed = try Ledger.parse(text) } catch {
                throw DossierError(file: ledgerURL.path, line: error.line, error.message)
            }
            // With a database the text file is a copy; releases only it records (an older
            // project's ledger) are carried into the database on the next record.
            for e in parsed.entries where !ledger.contains(release: e.release) { ledger.entries.append(e) }
            copied = Set(parsed.entries.map(\.release))
        }
        let entry = Ledger.Entry(
            release: r.release, epsilonMilli: eps, delta: r.delta, section: r.section, published: "")
        let recorded = ledger.contains(release: r.release)
        if !recorded && !allowOverBudget,
           let refusal = refusal(ledger, entry, lifetimeMilli: life, shown: shownLedger) {
            throw refusal
        }
        // With a database: a copy that lacks a row (a publish stopped between the two
        // writes) or holds a release the database lacks is mended at the next record.
        let stale = databasePath != nil && Set(ledger.entries.map(\.release)) != copied
        return PrivacyLedgerHook(ledgerURL: ledgerURL, ledger: ledger, entry: entry, alreadyRecorded: recorded,
                                 databasePath: databasePath, shownLedger: shownLedger,
                                 recheckMilli: allowOverBudget || databasePath == nil ? nil : life,
                                 copyStale: stale, lock: lock)
    }

    /// The one budget rule (checked when the ledger is read, and again inside the
    /// database transaction that records the release): the refusal of `entry` when the
    /// ledger's total plus its ε would pass the lifetime budget; nil when it fits.
    static func refusal(_ ledger: Ledger, _ entry: Ledger.Entry, lifetimeMilli: Int,
                        shown: String) -> DossierError? {
        guard ledger.spentMilli + entry.epsilonMilli > lifetimeMilli else { return nil }
        return overBudget(entry, spentMilli: ledger.spentMilli, lifetimeMilli: lifetimeMilli, shown: shown)
    }

    /// The refusal of a release that would take the ledger past its lifetime budget.
    static func overBudget(_ entry: Ledger.Entry, spentMilli: Int, lifetimeMilli: Int, shown: String) -> DossierError {
        DossierError(
            file: shown,
            "publishing release \(entry.release) would spend ε = \(PrivacyNumber.text(milli: entry.epsilonMilli)) on "
                + "top of the ε = \(PrivacyNumber.text(milli: spentMilli)) already spent, past the lifetime budget ε = "
                + "\(PrivacyNumber.text(milli: lifetimeMilli)); nothing was published — pass --exceed-privacy-budget "
                + "to publish anyway")
    }

    /// A line for the log, with the total of `committed` (the ledger as ``record(at:)``
    /// left it: with a database, its rows as committed, another project's releases
    /// recorded since this publish read the ledger included).
    public func summary(of committed: Ledger) -> String {
        alreadyRecorded
            ? "privacy: release \(entry.release) is already in the ledger (no new spend; total ε = "
                + "\(PrivacyNumber.text(milli: committed.spentMilli)))"
            : "privacy: recorded release \(entry.release), ε = \(PrivacyNumber.text(milli: entry.epsilonMilli)) "
                + "(total ε = \(PrivacyNumber.text(milli: committed.spentMilli)))"
    }

    /// Appends the release (written to a temporary file and moved into place); returns the
    /// ledger as it now stands.
    @discardableResult
    public func record(at date: Date = Date()) throws -> Ledger {
        guard !alreadyRecorded || copyStale else { return ledger }
        var l = ledger, e = entry
        e.published = ISODateText.format(date)
        if !alreadyRecorded { l.entries.append(e) }
        if let databasePath {   // the text ledger becomes a copy of the database's, as committed
            l = try Self.appendToDatabase(databasePath, l.entries, new: alreadyRecorded ? nil : e,
                                          lifetimeMilli: recheckMilli, shown: shownLedger)
        }
        PausePoint.reached("ledger-copy")   // (tests stop a publish here: debug builds only)
        let tmp = ledgerURL.deletingLastPathComponent().appendingPathComponent(
            "." + ledgerURL.lastPathComponent + ".tmp")
        try Data(l.text.utf8).write(to: tmp)
        // rename(2) replaces the old ledger atomically.
        guard rename(tmp.path, ledgerURL.path) == 0 else {
            try? FileManager.default.removeItem(at: tmp)
            throw DossierError(file: ledgerURL.path, "cannot write the privacy ledger (errno \(errno))")
        }
        return l
    }
}

extension PrivacyLedgerHook {
    /// The hook's ``record(at:)`` made at most once in a publish: just before the first
    /// change on the server, or after a publish that found the server already holding the
    /// site. Nothing to do without a release.
    public final class Once: @unchecked Sendable {
        let hook: PrivacyLedgerHook?
        private var done = false
        private var committed: Ledger?

        public init(_ hook: PrivacyLedgerHook?) { self.hook = hook }

        public func record() throws {
            guard let hook, !done else { return }
            committed = try hook.record()
            done = true
        }

        /// The log line, once recorded (nil before).
        public var summary: String? { committed.flatMap { hook?.summary(of: $0) } }

        /// What to say when the publish failed after the spend was recorded.
        public var noteAfterFailure: String? {
            guard let hook, done, !hook.alreadyRecorded else { return nil }
            return "privacy: release \(hook.entry.release) stays in the ledger (\(hook.ledgerURL.lastPathComponent)): "
                + "some of its files may already be public; publishing it again spends nothing more"
        }
    }
}

