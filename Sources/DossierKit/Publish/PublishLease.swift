#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV
import TextBasics

/// The lease a publish holds on its target folder while it changes it (docs/publish.md,
/// "The lease"): written into the dirty marker by a compare-and-swap (`If-Match` on the
/// manifest read, `If-None-Match: *` the first time) before any file is sent, renewed the
/// same way, and dropped by the clean manifest. Another publish that finds an unexpired
/// lease of a running publish stops with exit 1 having changed nothing.
///
/// ```json
/// "lease": {"expires": "2026-11-29T06:40:00Z", "id": "3f9a0c1b2d4e5f60",
///           "machine": "9c0d…", "pid": 4242}
/// ```
/// `id`: 16 random hex digits per run; `machine`: 32 random hex digits kept in
/// `~/.dossier/machine-id` (random, not derived from anything about the machine or its
/// user); `pid`: the process. No name, host name or address is written.
struct PublishLease: Codable, Sendable, Equatable {
    var expires: String
    var id: String
    var machine: String
    var pid: Int32

    /// How long a lease lasts without renewal; a publish renews it (a marker PUT) before a
    /// batch of uploads once half of it has passed.
    static let seconds: TimeInterval = 600

    static func format(_ date: Date) -> String {
        ISODateText.format(date)
    }

    /// A new lease for this process, ending `seconds` after `now`.
    static func mine(now: Date = Date(), id: String = PublishLease.randomHex(8)) -> PublishLease {
        PublishLease(expires: format(now.addingTimeInterval(seconds)), id: id, machine: MachineID.current,
                     pid: ProcessInfo.processInfo.processIdentifier)
    }

    var expiryDate: Date? { try? Date.ISO8601FormatStyle().parse(expires) }

    /// True when this lease still keeps other publishes out at `now`: unexpired, and not
    /// the lease of a process of this machine that no longer runs (a killed publish).
    func blocks(now: Date = Date()) -> Bool {
        guard let end = expiryDate, end > now else { return false }
        if machine == MachineID.current && !PublishLease.isRunning(pid) { return false }
        return true
    }

    /// How error messages name the publish holding the lease.
    var shown: String {
        let whereRuns = "process \(pid) on " + (machine == MachineID.current ? "this machine" : "another machine")
        return "publish \(id) (\(whereRuns)), its lease ending \(expires)"
    }

    static func isRunning(_ pid: Int32) -> Bool {
        if pid <= 0 { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    static func randomHex(_ bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in cFormat("%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }
}

/// A random identifier for this user account on this machine (`~/.dossier/machine-id`,
/// 32 hex digits, created on first use; where the home folder cannot be written,
/// `<temporary folder>/dossier-machine-id-<uid>`); a fresh one per process when neither
/// can be kept (then only expiry ends a stopped publish's lease).
enum MachineID {
    static let current: String = {
        // `~` is `$HOME` (as for ~/.netrc), else the account's home folder.
        let env = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let home = (env.map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser)
            .appendingPathComponent(".dossier/machine-id")
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-machine-id-\(getuid())")
        for file in [home, temp] {
            if let id = read(file) { return id }
            let id = PublishLease.randomHex(16)
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(),
                                                     withIntermediateDirectories: true)
            try? Data((id + "\n").utf8).write(to: file, options: .atomic)
            if let kept = read(file) { return kept }
        }
        return PublishLease.randomHex(16)
    }()

    private static func read(_ file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let id = text.trimmingWhitespaceAndNewlines()
        return id.count == 32 && id.allSatisfy(\.isHexDigit) ? id : nil
    }
}

/// Holds the marker (with its lease) and its current entity tag for the length of a run.
final class LeaseKeeper: @unchecked Sendable {
    private let lock = PlainLock()
    private(set) var marker: RemoteSite
    private(set) var tag: String?
    private var renewed = Date()
    let client: WebDAVClient

    init(marker: RemoteSite, tag: String?, client: WebDAVClient) {
        self.marker = marker
        self.tag = tag
        self.client = client
    }

    /// Renews the lease (the marker PUT again, `If-Match` its tag, with a new expiry) once
    /// half of it has passed. A 412 means another publish took the folder over (this
    /// lease had expired): stop before sending anything more.
    func renewIfDue(now: Date = Date()) async throws {
        let (due, current, old): (Bool, RemoteSite, String?) = lock.withLock {
            (now.timeIntervalSince(renewed) >= PublishLease.seconds / 2, marker, tag)
        }
        guard due else { return }
        var next = current
        next.lease = PublishLease.mine(now: now, id: current.lease?.id ?? PublishLease.randomHex(8))
        let name = Publisher.remoteManifestName
        do {
            let t = try await client.put(
                name, data: try next.encoded(),
                precondition: old.map { .ifMatch($0) } ?? .none, contentType: "application/json")
            let fresh = t == nil ? try await client.stat(name)?.etag : t
            lock.withLock { marker = next; tag = fresh; renewed = now }
        } catch let e as WebDAVError where e.httpStatus == 412 {
            throw DossierError("\(client.url(name).absoluteString): this publish's lease ran out and another publish "
                + "took the folder over; stopped — run `dossier publish` again when it has finished")
        }
    }
}

extension Publisher {
    /// The error for a folder whose lease another running publish holds.
    static func leaseHeld(_ client: WebDAVClient, _ lease: PublishLease) -> DossierError {
        let shown = client.url(Publisher.remoteManifestName).absoluteString
        return DossierError("\(shown): another publish is changing this folder "
            + "(\(lease.shown)); nothing was changed — run `dossier publish` again when it has finished")
    }

    /// The error for a dirty marker whose lease cannot be read: it may be another running
    /// publish's (written by another version), so it is not run over.
    static func leaseUnreadable(_ client: WebDAVClient, _ problem: String) -> DossierError {
        let shown = client.url(Publisher.remoteManifestName).absoluteString
        return DossierError("\(shown): another publish may be changing this folder (the manifest is marked as being "
            + "changed, and \(problem), so when its lease ends cannot be told); nothing was changed — run "
            + "`dossier publish` again when it has finished; if no publish is running, delete "
            + "`\(Publisher.remoteManifestName)` on the server and run `dossier publish --verify`")
    }

    /// The error for a marker PUT answered 412: the manifest changed since it was read.
    /// It names the other publish's lease when the manifest now holds one.
    func markerRefused() async -> DossierError {
        let name = Publisher.remoteManifestName
        if let (data, _) = try? await client.getIfExists(name), let now = try? RemoteSite.decode(data, shown: name) {
            if let lease = now.lease { return Publisher.leaseHeld(client, lease) }
            if let problem = now.leaseProblem { return Publisher.leaseUnreadable(client, problem) }
        }
        return DossierError("\(client.url(name).absoluteString): the published site changed on the server during this "
            + "publish (another publish at the same time?); nothing was changed — run `dossier publish` again")
    }
}
