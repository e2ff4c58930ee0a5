#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Redacted inventory

/// What a report may show about a keystore: names, dates and counts — never a code,
/// key, chain value, password, hash or message text. Built from an opened keystore.
public struct Inventory: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        /// `pending` (exchange not finished), `active`, or `resyncing` (active, new exchange started).
        public var status: String
        public var addedAt: Date
        public var resyncedAt: Date?
        public var sent: Int
        public var received: Int
        /// The counter the next outgoing message will carry.
        public var nextSendCounter: Int
        /// One past the highest counter received.
        public var nextReceiveCounter: Int
        /// Skipped counters whose keys are kept (lost or late messages).
        public var skippedBacklog: Int
        public var discardedKeys: Int
        public var lastSentAt: Date?
        public var lastReceivedAt: Date?
        public var warnings: [String]
    }

    public var account: String
    public var createdAt: Date
    public var passwordChangedAt: Date?
    public var contacts: [Entry]

    /// Backlog at or above which a pair is reported as possibly desynchronised.
    public static let defaultBacklogWarning = 10

    public init(_ ks: Keystore, backlogWarning: Int = Inventory.defaultBacklogWarning) {
        account = ks.account
        createdAt = ks.createdAt
        passwordChangedAt = ks.passwordChangedAt
        contacts = ks.contacts.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { c in
            let backlog = c.receive?.skipped.count ?? 0
            var w: [String] = []
            if c.isPending {
                w.append("waiting for the key exchange: it was started but not finished")
            } else if c.isResyncing {
                w.append("a resynchronisation was started but not finished")
            }
            if c.usesLegacyCodes {
                w.append(
                    "keys were agreed with read-aloud contact codes (anyone who heard both can derive them): "
                        + "resynchronise to agree keys with X25519"
                )
            }
            if backlog >= backlogWarning {
                w.append(
                    "\(backlog) skipped messages have not arrived (lost or late): if they never come, resynchronise")
            }
            if c.discardedKeys > 0 {
                w.append(
                    "\(c.discardedKeys) skipped keys were discarded (over \(Contact.maxStoredSkipped) waiting): those "
                        + "messages can no longer be read — resynchronise"
                )
            }
            return Entry(name: c.name, status: c.isPending ? "pending" : (c.isResyncing ? "resyncing" : "active"),
                         addedAt: c.addedAt, resyncedAt: c.resyncedAt, sent: c.sentCount, received: c.receivedCount,
                         nextSendCounter: c.send?.next ?? 0, nextReceiveCounter: c.receive?.next ?? 0,
                         skippedBacklog: backlog, discardedKeys: c.discardedKeys,
                         lastSentAt: c.lastSentAt, lastReceivedAt: c.lastReceivedAt, warnings: w)
        }
    }

    /// The inventory a published page may show by default: who talks to whom and when is
    /// left out. Contacts are labelled `contact 1`, `contact 2`, … in the order they were
    /// added (ties by name), and the last-sent / last-received times are dropped
    /// (docs/securesms-report.md, "Who and when").
    public func anonymised() -> Inventory {
        var out = self
        out.contacts = contacts.sorted { ($0.addedAt, $0.name) < ($1.addedAt, $1.name) }.enumerated().map { k, c in
            var e = c
            e.name = "contact \(k + 1)"
            e.lastSentAt = nil
            e.lastReceivedAt = nil
            return e
        }
        return out
    }
}
