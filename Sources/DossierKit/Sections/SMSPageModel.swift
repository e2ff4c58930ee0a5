import Render

/// What `sms/index` shows (the redacted keystore inventory), built by
/// ``SMSSection/summarize(records:context:)``: dates and counts already as shown.
struct SMSPageModel: TemplateRecord {
    var keystores: [Keystore]
    var identifiesContacts: Bool
    var contactCount, flagged: Int
    var backlogWarning, maxSkip: Int

    static let fields = TemplateFields<Self>([
        .list("keystores", Keystore.self) { $0.keystores },
        .bool("identifiesContacts") { $0.identifiesContacts },
        .int("contactCount") { $0.contactCount },
        .int("flagged") { $0.flagged },
        .bool("hasFlagged") { $0.flagged > 0 },
        .int("backlogWarning") { $0.backlogWarning },
        .int("maxSkip") { $0.maxSkip },
    ])

    /// `keystores[]`: a keystore's account, dates and contacts.
    struct Keystore: TemplateRecord {
        var file, account, created: String
        /// When the keystore's password last changed, when it did.
        var passwordChanged: String?
        var contacts: [Contact]

        static let fields = TemplateFields<Self>([
            .text("file") { $0.file },
            .text("account") { $0.account },
            .text("created") { $0.created },
            .maybeText("passwordChanged") { $0.passwordChanged },
            .list("contacts", Contact.self) { $0.contacts },
            .bool("hasContacts") { !$0.contacts.isEmpty },
            .list("flaggedContacts", Contact.self) { $0.contacts.filter { !$0.warnings.isEmpty } },
            .bool("hasFlaggedContacts") { $0.contacts.contains { !$0.warnings.isEmpty } },
        ])
    }

    /// `keystores[].contacts[]`: a contact's row (name or number, counts, dates).
    struct Contact: TemplateRecord {
        var name, status, added, resynced: String
        var sent, received, nextSend, nextReceive, backlog, discarded: Int
        var lastSent, lastReceived: String
        var warnings: [String]

        static let fields = TemplateFields<Self>([
            .text("name") { $0.name },
            .text("status") { $0.status },
            .text("added") { $0.added },
            .text("resynced") { $0.resynced },
            .int("sent") { $0.sent },
            .int("received") { $0.received },
            .int("nextSend") { $0.nextSend },
            .int("nextReceive") { $0.nextReceive },
            .int("backlog") { $0.backlog },
            .int("discarded") { $0.discarded },
            .text("lastSent") { $0.lastSent },
            .text("lastReceived") { $0.lastReceived },
            .bool("hasWarnings") { !$0.warnings.isEmpty },
            .text("warningText") { $0.warnings.joined(separator: "; ") },
        ])
    }
}
