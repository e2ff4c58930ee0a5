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
        /// The database as shown in messages, and the project's `privacy-ledger.txt` (a copy).
        var shown: String
        var textLedger: URL
        var ledger: Ledger
        var lifetimeMilli: Int
    }

    /// The database that `release` names, found through `project`, with its seal checked
    /// against the database's key and its ledger read.
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
        let rows: [PrivacyLedgerRow]
        do { rows = try StudyDatabase(location: db, create: false).privacyLedger() } catch {
            throw DossierError(file: settings.databaseShown, error.message)
        }
        var ledger = Ledger()
        for (i, row) in rows.enumerated() {
            guard let eps = PrivacyNumber.milli(row.epsilon) else {
                throw DossierError(
                    file: settings.databaseShown,
                    "privacy_ledger row \(i + 1): epsilon '\(row.epsilon)' is not a number")
            }
            ledger.entries.append(
                Ledger.Entry(
                    release: row.release, epsilonMilli: eps, delta: row.delta, section: row.section,
                    published: row.published))
        }
        return DatabaseLedger(path: db.text, shown: settings.databaseShown + " (its privacy ledger)",
                              textLedger: project.root.appendingPathComponent(fileName), ledger: ledger,
                              lifetimeMilli: settings.lifetimeMilli)
        #else
        throw DossierError(
            file: file, "this release was built from a study database; this dossier was built without the game section")
        #endif
    }

    /// Records `entries` in the database's ledger (those it holds already are kept as they are).
    static func appendToDatabase(_ path: String, _ entries: [Ledger.Entry]) throws {
        #if DOMAIN_GAME
        do {
            try StudyDatabase(path: path, create: false).appendPrivacyLedger(entries.map {
                    PrivacyLedgerRow(
                        release: $0.release, epsilon: PrivacyNumber.text(milli: $0.epsilonMilli), delta: $0.delta,
                        section: $0.section, published: $0.published)
            })
        } catch {
            throw DossierError(file: path, error.message)
        }
        #endif
    }
}
