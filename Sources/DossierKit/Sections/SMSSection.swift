#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import SecureSMS
import TextBasics

/// The `sms` section: a redacted inventory of SecureSMS keystores.
///
/// ```yaml
/// sms:
///   keystores: data/sms/*.keystore        # one or more keystore files
///   password_file: data/sms/demo.password # first line is the password (demo data only!)
///   # password_env: DOSSIER_SMS_PASSWORD  # default when no password_file
///   backlog_warning: 10                   # skipped keys at which a pair is flagged
///   identify_contacts: false              # true: names and last-message times shown
/// ```
///
/// Pages and side outputs show names, dates and counts only — never a code, key, chain
/// value, password or message text (see docs/securesms-report.md).
public struct SMSSection: Section {
    public static let key = "sms"
    public static let title = "SecureSMS keystore"

    let keystores: [URL]
    let passwordFile: URL?
    let passwordEnv: String
    let backlogWarning: Int
    /// Contact names and last-message times are published only when the project opts in.
    let identifyContacts: Bool
    /// The inventories ``units()`` read (every build, cached or not: a wrong password fails
    /// every build), taken by ``build(unit:context:)``.
    let opened = OpenedInventories()
    /// Each keystore as ``units()`` found it before reading its inventory.
    let readEarly = EarlyReadStamps()
    public var inputStampsReadEarly: [String: String] { readEarly.all }
    let manifest: String
    let root: URL

    public init(config: SectionConfig, project: Project) throws {
        keystores = try config.paths("keystores")
        if keystores.isEmpty { throw config.error(nil, "missing required key 'keystores'") }
        passwordFile = try config.path("password_file", required: false)
        passwordEnv = try config.string("password_env") ?? "DOSSIER_SMS_PASSWORD"
        backlogWarning = try config.int("backlog_warning", default: Inventory.defaultBacklogWarning,
                                        range: 1...Contact.maxStoredSkipped)!
        identifyContacts = try config.bool("identify_contacts", default: false)
        manifest = config.file
        root = project.root
        if passwordFile == nil && ProcessInfo.processInfo.environment[passwordEnv] == nil {
            throw config.error(nil, "no keystore password: set \(passwordEnv) or name a password_file")
        }
    }

    /// A path as messages show it: relative to the project.
    func display(_ url: URL) -> String {
        let rootPath = root.standardizedFileURL.path + "/", full = url.standardizedFileURL.path
        return full.hasPrefix(rootPath) ? String(full.dropFirst(rootPath.count)) : url.path
    }

    func password() throws -> String {
        if let f = passwordFile {
            guard let text = try? String(contentsOf: f, encoding: .utf8),
                  let line = text.split(separator: "\n", omittingEmptySubsequences: false).first
                    .map({ String($0).trimming(scalarsIn: "\r") }),
                  !line.isEmpty else {
                throw DossierError(file: display(f), line: 1, "sms: the password file is empty or unreadable")
            }
            return line
        }
        return ProcessInfo.processInfo.environment[passwordEnv] ?? ""
    }

    public func units() throws -> [SectionUnit] {
        var seen: Set<String> = []
        return try keystores.map { url in
            let id = url.deletingPathExtension().lastPathComponent
            guard seen.insert(id).inserted else {
                throw DossierError(file: manifest, "sms: two keystores are named \(id)")
            }
            opened.set(url, try inventory(url, shown: display(url)))
            // (Stamped after the open: an open counts the try in the file and puts it back,
            // under the keystore's lock; a write after that is another program's.)
            readEarly.stamp(url.path)
            var unit = SectionUnit(id: id, inputs: [url] + (passwordFile.map { [$0] } ?? []),
                                   salt: "backlog=\(backlogWarning)" + (identifyContacts ? "|identify" : ""))
            unit.secretPaths = passwordFile.map { [$0.path] } ?? []   // (its hash would test password guesses)
            return unit
        }
    }

    /// Opens a keystore read only (a wrong password is counted, docs/securesms-report.md)
    /// and returns its inventory, anonymised unless the project opts in.
    func inventory(_ url: URL, shown: String) throws -> Inventory {
        let ks: Keystore
        do {
            let pw = try password()
            ks = try Keystore.open(at: url, password: pw, now: Date(), readOnly: true)
        } catch let e as SecureSMSError {
            throw DossierError(file: shown, "sms: \(e.description)")
        }
        let inv = Inventory(ks, backlogWarning: backlogWarning)
        return identifyContacts ? inv : inv.anonymised()
    }

    /// One keystore's record: the file's display name and its redacted inventory.
    struct Record: Codable {
        var id: String
        var file: String
        var inventory: Inventory
    }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult {
        let url = unit.inputs[0]
        let inventory = try opened.take(url) ?? inventory(url, shown: context.project.display(url))
        let rec = Record(id: unit.id, file: url.lastPathComponent, inventory: inventory)
        return UnitResult(record: try Self.encoder().encode(rec))
    }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let keystoreRecords = try records.map { try decoder.decode(Record.self, from: $0.data) }

        var csv = CSVWriter(header: ["keystore", "account", "contact", "status", "added_at", "resynced_at", "sent",
                                     "received",
                                     "next_send_counter", "next_receive_counter", "skipped_backlog", "discarded_keys",
                                     "last_sent_at", "last_received_at", "warnings"])
        var json: [JSONValue] = []
        var keystores: [SMSPageModel.Keystore] = []
        var contactsTotal = 0, flagged = 0
        func d(_ x: Date?) -> String { x.map(SMSDates.format) ?? "" }
        /// Dates on the page are written for people (CSV and JSON keep the ISO form).
        func shown(_ x: Date?) -> String { x.map { ValueFormat.dateTime(SMSDates.format($0)) } ?? "—" }
        /// In table cells a written date-time may break only after its comma (two lines at most).
        func cell(_ x: Date?) -> String {
            shown(x).replacingAll(" ", with: "\u{00A0}").replacingAll(",\u{00A0}", with: ", ")
        }
        func jd(_ x: Date?) -> JSONValue { x.map { .string(SMSDates.format($0)) } ?? .null }

        for record in keystoreRecords {
            let inventory = record.inventory
            var rows: [SMSPageModel.Contact] = []
            var jcontacts: [JSONValue] = []
            for contact in inventory.contacts {
                contactsTotal += 1
                if !contact.warnings.isEmpty { flagged += 1 }
                csv.append([.text(record.id), .text(inventory.account), .text(contact.name), .text(contact.status),
                            .text(d(contact.addedAt)), .text(d(contact.resyncedAt)),
                            CSVWriter.number(contact.sent), CSVWriter.number(contact.received),
                            CSVWriter.number(contact.nextSendCounter), CSVWriter.number(contact.nextReceiveCounter),
                            CSVWriter.number(contact.skippedBacklog), CSVWriter.number(contact.discardedKeys),
                            .text(d(contact.lastSentAt)), .text(d(contact.lastReceivedAt)),
                            .text(contact.warnings.joined(separator: "; "))])
                jcontacts.append(.object([
                    "name": .string(contact.name), "status": .string(contact.status),
                    "added_at": jd(contact.addedAt), "resynced_at": jd(contact.resyncedAt),
                    "sent": .int(contact.sent), "received": .int(contact.received),
                    "next_send_counter": .int(contact.nextSendCounter),
                    "next_receive_counter": .int(contact.nextReceiveCounter),
                    "skipped_backlog": .int(contact.skippedBacklog), "discarded_keys": .int(contact.discardedKeys),
                    "last_sent_at": jd(contact.lastSentAt), "last_received_at": jd(contact.lastReceivedAt),
                    "warnings": .array(contact.warnings.map { .string($0) }),
                ]))
                rows.append(SMSPageModel.Contact(
                    name: contact.name, status: contact.status, added: cell(contact.addedAt),
                    resynced: cell(contact.resyncedAt), sent: contact.sent, received: contact.received,
                    nextSend: contact.nextSendCounter, nextReceive: contact.nextReceiveCounter,
                    backlog: contact.skippedBacklog, discarded: contact.discardedKeys,
                    lastSent: cell(contact.lastSentAt), lastReceived: cell(contact.lastReceivedAt),
                    warnings: contact.warnings))
            }
            json.append(.object([
                "keystore": .string(record.id), "file": .string(record.file), "account": .string(inventory.account),
                "created_at": jd(inventory.createdAt), "password_changed_at": jd(inventory.passwordChangedAt),
                "contacts": .array(jcontacts),
            ]))
            keystores.append(SMSPageModel.Keystore(
                file: record.file, account: inventory.account, created: shown(inventory.createdAt),
                passwordChanged: inventory.passwordChangedAt.map(shown), contacts: rows))
        }
        let jsonDoc = JSONValue.object([
            "generator": .string("dossier \(DossierVersion.string)"),
            "backlog_warning": .int(backlogWarning),
            "max_skip": .int(Contact.maxSkip),
            "keystores": .array(json),
        ])
        let page = Page(path: "sms/index.html", title: Self.title, template: "sms/index",
                        model: SMSPageModel(keystores: keystores, identifiesContacts: identifyContacts,
                                            contactCount: contactsTotal, flagged: flagged,
                                            backlogWarning: backlogWarning, maxSkip: Contact.maxSkip))
        let blurb = "\(keystoreRecords.count) keystore\(keystoreRecords.count == 1 ? "" : "s"), "
            + "\(contactsTotal) contact\(contactsTotal == 1 ? "" : "s")"
            + (flagged > 0 ? ", \(flagged) flagged as possibly out of sync." : ", all in sync.")
        return UnitResult(pages: [page],
                          files: [OutputFile(path: "sms/contacts.csv", data: csv.data),
                                  OutputFile(path: "sms/keystores.json", data: jsonDoc.data)],
                          blurb: blurb)
    }
}

/// Inventories read by one build's ``SMSSection/units()``, each taken once by its build.
final class OpenedInventories: @unchecked Sendable {
    private var byPath: [String: Inventory] = [:]
    private let lock = PlainLock()
    func set(_ url: URL, _ inventory: Inventory) { lock.lock(); byPath[url.path] = inventory; lock.unlock() }
    func take(_ url: URL) -> Inventory? {
        lock.lock(); defer { lock.unlock() }
        return byPath.removeValue(forKey: url.path)
    }
}
