#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Privacy
#if DOMAIN_GAME
import GameAnalytics
#endif

// MARK: - A release built from a study database: its key and ledger are in that database
// (docs/game-privacy.md, "One key and one ledger per database")

extension PrivacyLedgerHook {
    struct DatabaseLedger {
        var path: String
        /// The database as messages name it; its ledger as they name it; the project's
        /// `privacy-ledger.txt` (a copy).
        var database: String, shown: String
        var textLedger: URL
        var lifetimeMilli: Int

        /// The ledger as committed now (read once the ledger's lock is held).
        func read() throws -> Ledger {
            #if DOMAIN_GAME
            let rows: [PrivacyLedgerRow]
            do { rows = try StudyDatabase(path: path, create: false).privacyLedger() } catch {
                throw DossierError(file: database, error.message)
            }
            return try PrivacyLedgerHook.ledger(of: rows, shown: database)
            #else
            return Ledger()
            #endif
        }
    }

    /// The database that `release` names, found through `project`, with its seal checked
    /// against the database's key (its ledger is not read here: ``DatabaseLedger/read()``).
    static func databaseLedger(release r: ReleaseFile, file: String, project: Project?) throws -> DatabaseLedger {
        #if DOMAIN_GAME
        let how =
            "publish it with the project whose study database made it (dossier publish PROJECT --site SITE --to URL)"
        guard let project, let cfg = project.sectionConfigs.first(where: { $0.key == GameSection.key }) else {
            throw DossierError(file: file, "this release was built from a study database, whose privacy ledger must "
                + "be checked before it is published, and no project with a game section was found: \(how)")
        }
        let section = try GameSection(config: cfg, project: project)
        guard let settings = section.privacy, let db = settings.database, let id = settings.databaseID,
            !settings.key.isEmpty
        else {
            throw DossierError(
                file: file,
                "the project \(project.display(project.root)) has no study database with a privacy "
                    + "key, so this release cannot be checked against its ledger: \(how)")
        }
        guard id == r.database else {
            throw DossierError(file: file, "this release was built from another study database than the project's "
                + "(\(settings.databaseShown)): \(how)")
        }
        let seal = ReleaseSeal.seal(
            key: settings.key, release: r.release, section: r.section, epsilon: r.epsilon, delta: r.delta,
            lifetimeEpsilon: r.lifetimeEpsilon, database: id)
        guard r.seal == seal else {
            throw DossierError(
                file: file,
                "the release file does not match its seal (it was edited, or made with another "
                    + "key): rebuild the site and publish what the build wrote")
        }
        return DatabaseLedger(path: db.text, database: settings.databaseShown,
                              shown: settings.databaseShown + " (its privacy ledger)",
                              textLedger: project.root.appendingPathComponent(fileName),
                              lifetimeMilli: settings.lifetimeMilli)
        #else
        throw DossierError(
            file: file, "this release was built from a study database; this dossier was built without the game section")
        #endif
    }

    /// Records `entries` in the database's ledger (those it holds already are kept as they
    /// are) and returns the database's ledger as committed. The budget is checked again
    /// inside that transaction, against every row committed by then (another project on
    /// this database may have published since `prepare` read it): `lifetimeMilli` nil
    /// means no check (`--exceed-privacy-budget`). A refusal adds nothing.
    static func appendToDatabase(_ path: String, _ entries: [Ledger.Entry], new entry: Ledger.Entry?,
                                 lifetimeMilli: Int?, shown: String) throws -> Ledger {
        #if DOMAIN_GAME
        let result: (added: Bool, ledger: [PrivacyLedgerRow])
        do {
            result = try StudyDatabase(path: path, create: false).appendPrivacyLedger(entries.map {
                PrivacyLedgerRow(
                    release: $0.release, epsilon: PrivacyNumber.text(milli: $0.epsilonMilli), delta: $0.delta,
                    section: $0.section, published: $0.published)
            }) { committed in
                guard let life = lifetimeMilli, let entry else { return true }
                return (try? checkBudget(committed, entries, new: entry, lifetimeMilli: life, shown: shown)) != nil
            }
        } catch {
            throw DossierError(file: path, error.message)
        }
        if !result.added, let life = lifetimeMilli, let entry {   // the refusal, from the ledger the check saw
            try checkBudget(result.ledger, entries, new: entry, lifetimeMilli: life, shown: shown)
        }
        return try ledger(of: result.ledger, shown: shown)
        #else
        return Ledger()
        #endif
    }

    #if DOMAIN_GAME
    /// Refuses `entry` when the releases of `committed` and `entries` (each counted once)
    /// leave no room for it; nothing to check when `committed` already holds it.
    static func checkBudget(_ committed: [PrivacyLedgerRow], _ entries: [Ledger.Entry], new entry: Ledger.Entry,
                            lifetimeMilli: Int, shown: String) throws(DossierError) {
        var all = try ledger(of: committed, shown: shown)
        guard !all.contains(release: entry.release) else { return }
        for e in entries where e.release != entry.release && !all.contains(release: e.release) {
            all.entries.append(e)
        }
        if let refusal = refusal(all, entry, lifetimeMilli: lifetimeMilli, shown: shown) { throw refusal }
    }

    /// The database's rows as a ledger; a row whose ε is not a number stops the publish.
    static func ledger(of rows: [PrivacyLedgerRow], shown: String) throws(DossierError) -> Ledger {
        var ledger = Ledger()
        for (i, row) in rows.enumerated() {
            guard let eps = PrivacyNumber.milli(row.epsilon) else {
                throw DossierError(file: shown, "privacy_ledger row \(i + 1): epsilon '\(row.epsilon)' is not a number")
            }
            ledger.entries.append(Ledger.Entry(release: row.release, epsilonMilli: eps, delta: row.delta,
                                               section: row.section, published: row.published))
        }
        return ledger
    }
    #endif
}
