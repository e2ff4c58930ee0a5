import StudyStore
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where `dossier recall ingest` stores the logs it opened (docs/recall-upload.md,
/// "Ingest"): a folder (``FolderRecallLogSink``) or the study database's `recall_logs`
/// and `recall_devices` tables (``RecallLogDatabase``).
public protocol RecallLogSink {
    /// Whether a log with this SHA-256 (64 lower-case hex digits of its bytes) is stored.
    func contains(sha256: String) throws -> Bool
    /// Stores `bytes` as the log `name`, durably, all or nothing; false if a log with this
    /// SHA-256 is already there (nothing is written). Throws ``RecallSinkError/nameTaken``
    /// when another log of that name is stored.
    func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool
    /// The SHA-256 of the log stored as `name`, or nil when none is.
    func storedDigest(name: String) throws -> String?
}

/// Trust on first use: the first verified upload of a device pins its signing key.
public protocol RecallDevicePins {
    /// The signing key (base64) pinned for `device`, or nil.
    func pinnedKey(device: String) throws -> String?
    /// Pins `signingKey` for `device` (durably) if it has none; never replaces a pin.
    func pin(device: String, signingKey: String) throws
}

public enum RecallSinkError: Error, Sendable, Equatable {
    /// A different log of this name is already stored.
    case nameTaken(String)
    /// A write or read failed (what, and the system's reason).
    case io(String)
}

/// The study's `logs:` folder as a sink. Each log is a file `<name>` holding exactly its
/// bytes; each pin is a file `.recall-devices/<device>` holding the key's base64 text.
/// Every file is written atomically: a hidden temporary file in the same folder, written
/// and flushed (`fsync`), then hard-linked to its name (never replacing a file) and the
/// folder flushed, so a reader
/// (or a build) sees the whole file or none, and a kill leaves at most a hidden temporary
/// file that the next run removes. Hidden files are never read as logs (docs/manifest.md).
public final class FolderRecallLogSink: RecallLogSink, RecallDevicePins {
    public let folder: URL
    /// Called before each write (the label names it): the command's crash-test hook.
    let beforeWrite: (String) throws -> Void
    private var digests: [String: String]? = nil   // sha256 → name, read on first use

    public init(folder: URL, beforeWrite: @escaping (String) throws -> Void = { _ in }) throws {
        self.folder = folder
        self.beforeWrite = beforeWrite
        var isDir = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDir), isDir else {
            throw RecallSinkError.io("\(folder.path): the logs folder does not exist (create it first)")
        }
        sweep(folder)
        sweep(pins)
    }

    var pins: URL { folder.appendingPathComponent(".recall-devices") }

    /// Removes temporary files a killed run left (`.<name>.<pid>.partial` of a process
    /// that is gone; another ingest's file in flight is left alone).
    private func sweep(_ dir: URL) {
        for n in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        where n.hasPrefix(".") && n.hasSuffix(".partial") {
            let parts = n.split(separator: ".")
            if parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid != getpid(), kill(pid, 0) == 0 {
                continue
            }
            try? FileManager.default.removeItem(at: dir.appendingPathComponent(n))
        }
    }

    /// SHA-256 → name of every log in the folder (`*.jsonl`, `*.csv`, not hidden), as far
    /// as this run has read it; ``lookUp(_:)`` reads the folder again on a miss, because
    /// another ingest may be storing into the same folder at the same time.
    private var hashed: Set<String> = []

    private func refreshIndex() {
        var out = digests ?? [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for n in names.sorted() where !n.hasPrefix(".") && (n.hasSuffix(".jsonl") || n.hasSuffix(".csv"))
            && !hashed.contains(n) {
            guard let d = FileManager.default.contents(atPath: folder.appendingPathComponent(n).path) else { continue }
            out[RecallUpload.digest(d)] = n
            hashed.insert(n)
        }
        digests = out
    }

    /// The name of the stored log with this SHA-256, reading logs stored since the last look.
    private func lookUp(_ sha256: String) -> String? {
        if digests == nil { refreshIndex() }
        if let n = digests?[sha256] { return n }
        refreshIndex()
        return digests?[sha256]
    }

    public func contains(sha256: String) throws -> Bool { lookUp(sha256) != nil }

    public func storedDigest(name: String) throws -> String? {
        FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map(RecallUpload.digest)
    }

    public func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool {
        PausePoint.reached("folder-store")
        if lookUp(sha256) != nil { return false }
        let target = folder.appendingPathComponent(name)
        if let d = FileManager.default.contents(atPath: target.path) {
            // Stored by another ingest since this one looked: the same log, or another.
            if RecallUpload.digest(d) == sha256 { return false }
            throw RecallSinkError.nameTaken(name)
        }
        guard try Self.writeAtomically(bytes, to: target, label: "log \(name)", beforeWrite: beforeWrite) else {
            // Another process stored a file of this name since: the same log or another.
            if let d = FileManager.default.contents(atPath: target.path), RecallUpload.digest(d) == sha256 {
                return false
            }
            throw RecallSinkError.nameTaken(name)
        }
        digests?[sha256] = name
        hashed.insert(name)
        return true
    }

    public func pinnedKey(device: String) throws -> String? {
        guard let d = FileManager.default.contents(atPath: pins.appendingPathComponent(device).path) else { return nil }
        return String(decoding: d, as: UTF8.self)
    }

    public func pin(device: String, signingKey: String) throws {
        if try pinnedKey(device: device) != nil { return }
        do { try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true) } catch {
            throw RecallSinkError.io("\(pins.path): cannot create the folder")
        }
        _ = try Self.writeAtomically(Array(signingKey.utf8), to: pins.appendingPathComponent(device),
                                     label: "pin \(device)", beforeWrite: beforeWrite)
    }

    /// Temp file (hidden, same folder) → write → fsync → hard link to the name (which
    /// never replaces a file) → remove the temp → fsync the folder. False when a file of
    /// that name exists (nothing is changed).
    static func writeAtomically(_ bytes: [UInt8], to url: URL, label: String,
                                beforeWrite: (String) throws -> Void) throws -> Bool {
        let dir = url.deletingLastPathComponent()
        let temp = dir.appendingPathComponent("." + url.lastPathComponent + ".\(getpid()).partial")
        try beforeWrite(label + ": temporary file")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw RecallSinkError.io("\(temp.path): cannot create (errno \(errno))") }
        var ok = true
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n <= 0 { ok = false; return }
                off += n
            }
        }
        if fsync(fd) != 0 { ok = false }
        close(fd)
        guard ok else {
            unlink(temp.path)
            throw RecallSinkError.io("\(url.path): cannot write (errno \(errno))")
        }
        try beforeWrite(label + ": link into place")
        if link(temp.path, url.path) != 0 {
            let e = errno
            unlink(temp.path)
            if e == EEXIST { return false }
            throw RecallSinkError.io("\(url.path): cannot put into place (errno \(e))")
        }
        try beforeWrite(label + ": remove the temporary file")
        unlink(temp.path)
        let dfd = open(dir.path, O_RDONLY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
        return true
    }
}

/// The study database's `recall_logs` table (SQLite or PostgreSQL) as a sink: each log
/// stored in its own transaction, exactly once by its hash, however many ingests run at
/// once against one PostgreSQL database.
public final class RecallLogDatabase: RecallLogSink, RecallDevicePins {
    public let table: RecallLogTable

    public init(_ location: StoreLocation) throws {
        table = try RecallLogTable(location)
    }

    public func contains(sha256: String) throws -> Bool { try table.contains(sha256: sha256) }

    public func storedDigest(name: String) throws -> String? { try table.digest(name: name) }

    public func store(name: String, bytes: [UInt8], sha256: String) throws -> Bool {
        try table.store(name: name, bytes: bytes, sha256: sha256)
    }

    public func pinnedKey(device: String) throws -> String? { try table.pinnedKey(device: device) }

    public func pin(device: String, signingKey: String) throws {
        try table.pin(device: device, signingKey: signingKey)
    }
}
