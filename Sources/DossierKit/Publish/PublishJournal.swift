#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// A local, append-only record of a publish in progress, so an interrupted publish
/// resumes without sending again what already reached its place.
///
/// One file per target URL under `.dossier/publish/`, named by the SHA-256 of the URL.
/// Lines (tab-separated):
/// - `base	<etag of the remote manifest read at the start, or ->`
/// - `start	<path>` — a temporary upload of `path` was begun
/// - `done	<path>	<sha256>	<etag or ->` — `path` holds the file with that hash
/// - `owned	<path>` — a file this publish may delete later: published before, or one it
///   is about to put in place (written before the server is first changed)
///
/// It is removed when the remote manifest is written. A later run trusts a `done` line
/// only if the remote manifest is still the one in `base` and a PROPFIND shows the
/// file with the same entity tag and size; anything else is sent again.
final class PublishJournal: @unchecked Sendable {
    struct Done: Equatable { var sha256: String; var etag: String? }

    let url: URL
    /// This machine's copy of the last clean remote manifest it wrote to the target
    /// (`<same name>.published.json`): what a cut remote manifest is recovered from.
    let publishedURL: URL
    private let lock = PlainLock()
    private var handle: PlainFile?
    private(set) var base: String?
    private(set) var started: Set<String> = []
    private(set) var done: [String: Done] = [:]
    private(set) var owned: Set<String> = []

    init(folder: URL, target: URL) {
        let name = String(FileHash.sha256(Data(target.absoluteString.utf8)).prefix(16)) + ".journal"
        url = folder.appendingPathComponent(name)
        publishedURL = folder.appendingPathComponent(String(name.dropLast(".journal".count)) + ".published.json")
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                switch f.first {
                case "base" where f.count == 2: base = f[1] == "-" ? nil : f[1]
                case "start" where f.count == 2: started.insert(f[1])
                case "done" where f.count == 4: done[f[1]] = Done(sha256: f[2], etag: f[3] == "-" ? nil : f[3])
                case "owned" where f.count == 2: owned.insert(f[1])
                default: break
                }
            }
        }
    }

    /// True when a journal from an earlier, unfinished run exists.
    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Records, before the server is changed, the files this publish may later delete
    /// (its `owned` lines, added to those of earlier unfinished runs).
    func claim(_ paths: Set<String>) throws {
        owned.formUnion(paths)
        try rewrite(carrying: done)
    }

    /// Starts a fresh journal for a run based on the remote manifest `etag`.
    func begin(base etag: String?) throws {
        let carried = (etag == base) ? done : [:]
        base = etag
        try rewrite(carrying: carried)
        handle = try PlainFile(forWritingTo: url)
        try handle?.seekToEnd()
    }

    private func rewrite(carrying carried: [String: Done]) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = "base\t\(base ?? "-")\n" + started.sorted().map { "start\t\($0)\n" }.joined()
            + carried.sorted { $0.key < $1.key }.map {
                "done\t\($0.key)\t\($0.value.sha256)\t\($0.value.etag ?? "-")\n"
            }.joined()
            + owned.sorted().map { "owned\t\($0)\n" }.joined()
        try Data(text.utf8).write(to: url, options: .atomic)
        done = carried
    }

    func recordStart(_ path: String) { append("start\t\(path)\n"); lock.lock(); started.insert(path); lock.unlock() }

    func recordDone(_ path: String, sha256: String, etag: String?) {
        append("done\t\(path)\t\(sha256)\t\(etag ?? "-")\n")
        lock.lock(); done[path] = Done(sha256: sha256, etag: etag); lock.unlock()
    }

    private func append(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        handle?.write(Data(line.utf8))
    }

    /// Keeps `bytes` (the clean remote manifest just written) as this machine's copy.
    func savePublished(_ bytes: Data) {
        try? FileManager.default.createDirectory(
            at: publishedURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? bytes.write(to: publishedURL, options: .atomic)
    }

    /// Removes the journal (the publish finished).
    func finish() {
        lock.lock(); defer { lock.unlock() }
        try? handle?.close()
        handle = nil
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes what killed writes left in the journal folder: Foundation's atomic-write
    /// temporaries (`.dat.nosync*`) and bag work folders (`.<name>.tmp-*`) whose last
    /// change is more than `age` seconds old (a younger one may be another run's write in
    /// progress).
    static func sweepDebris(in folder: URL, age: TimeInterval = 60, now: Date = Date()) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(".dat.nosync") || (name.hasPrefix(".") && name.contains(".tmp-")) {
            let url = folder.appendingPathComponent(name)
            guard let modified = (try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > age else { continue }
            try? fm.removeItem(at: url)
        }
    }

    func close() {
        lock.lock(); defer { lock.unlock() }
        try? handle?.synchronize()
        try? handle?.close()
        handle = nil
    }
}
