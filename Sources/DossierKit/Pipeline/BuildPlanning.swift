import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import StudyStore

/// Build step 4: planning the units (what is rebuilt, what is reused) and digesting inputs.
extension BuildContext {
    // MARK: 4. Plan

    struct PlannedUnit: @unchecked Sendable {
        var key: String
        var unit: SectionUnit
        var hash: String
        /// Whether the previous build's unit (`previous.units[key]`) is reused: a flag, not a
        /// copy of it (held for the whole build, 0.1 KB a unit even when nil).
        var reused: Bool
        /// Set for a unit that is built and reads its own input (``SectionUnit/readsOwnInput``):
        /// the digests of its other inputs; `hash` is then made once the unit was built, from
        /// the digest of the bytes it parsed. The plan left that input unread
        /// (``readsOwnInputOnce(_:unitKey:)``), or hashed it only to learn the unit changed:
        /// the file may be written again before the unit reads it (docs/incremental.md).
        var laterHash: [String]? = nil
        /// The digests of its inputs, kept for a unit whose build may set its salt
        /// (``SectionUnit/saltSetWhenBuilt``, ``hashAsBuilt(_:_:section:canonical:)``).
        var digests: [String]? = nil
    }

    func plan() throws {
        if !options.clean { previous = BuildState.load(statePath, output: output) }
        if previous == nil { log.detail("no usable previous build: full build") }
        if options.output == nil {
            try OutputFolder.checkOwned(output, manifest: project.outputManifestURL, state: statePath,
                                         file: SitePaths.display(project.manifestURL), line: project.outputLine)
        }
        if !options.checkOnly {
            for name in StagingDebris.sweep(beside: output) {
                log.detail("removed \(name), left by a build that was stopped")
            }
        }
        let staging: URL
        if options.checkOnly {
            staging = FileManager.default.temporaryDirectory.appendingPathComponent(
                "dossier-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        } else {
            staging = output.deletingLastPathComponent().appendingPathComponent(
                ".\(output.lastPathComponent).staging-\(getpid())")
        }
        // Patch the live site in place when the previous build's file list is known
        // and the site is still there (see OutputTree); else build a whole new tree.
        if !options.checkOnly, let prev = previous, !prev.site.isEmpty,
           FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path) {
            tree = try OutputTree(staging: staging, patching: output, liveFiles: prev.site)
            log.detail("incremental: changed files replace their live copies")
        } else {
            tree = try OutputTree(staging: staging)
        }
        let fp = renderer.fingerprint
        for (cfg, section) in zip(project.sectionConfigs, sections) {
            let key = type(of: section).key
            let units = try section.units()
            PausePoint.reached("units-listed")     // (tests write an input here: debug builds only)
            var seen = Set<String>()
            var list: [PlannedUnit] = []
            list.reserveCapacity(units.count)       // (held for the whole build: no spare room)
            for u in units {
                guard seen.insert(u.id).inserted else {
                    throw DossierError("section \(key): two units share the id '\(u.id)'")
                }
            }
            // Inputs are read and hashed once each, on every core (the largest cost of an
            // incremental build of a big study).
            let canonical = cfg.node.canonical
            // A unit that cannot be reused and reads its own input hashes it as it reads it
            // (OwnInputRead.swift): the plan hashes only its other inputs.
            let hashes: [Result<(String, [String]?, [String]?), Error>] = parallelMap(units) { [self] u in
                Result {
                    if readsOwnInputOnce(u, unitKey: "\(key)/\(u.id)") {
                        return ("", try u.inputPaths.dropFirst().map { try inputKey($0, of: u) }, nil)
                    }
                    let digests = try u.inputPaths.map { try inputKey($0, of: u) }
                    let rest = hashesOwnReadWhenBuilt(u) ? Array(digests.dropFirst()) : nil
                    return (Self.unitHash(fingerprint: fp, section: key, canonical: canonical, unit: u,
                                          digests: digests), rest, u.saltSetWhenBuilt ? digests : nil)
                }
            }
            for (u, result) in zip(units, hashes) {
                let (hash, rest, digests) = try result.get()
                let unitKey = "\(key)/\(u.id)"
                let reused = !hash.isEmpty && reusable(unitKey, hash) != nil
                list.append(PlannedUnit(key: unitKey, unit: u, hash: hash, reused: reused,
                                        laterHash: reused ? nil : rest, digests: reused ? nil : digests))
            }
            try checkInputsReadEarly(section)
            planned.append(list)
        }
        digested = [:]          // (planning's alone: 2,000 paths and digests a study)
        let total = planned.reduce(0) { $0 + $1.count }
        let reuse = planned.reduce(0) { $0 + $1.filter(\.reused).count }
        log.detail("\(total) unit\(total == 1 ? "" : "s"), \(reuse) unchanged")
        if reuse > 0 && reuse < total {
            log.detail("to build: " + Self.named(planned.joined().filter { !$0.reused }.map(\.key)))
        }
    }

    /// Up to eight unit keys in plan order, then how many more (`a, b and 3 more`).
    static func named(_ keys: [String], limit: Int = 8) -> String {
        let shown = keys.prefix(limit).joined(separator: ", ")
        return keys.count > limit ? shown + " and \(keys.count - limit) more" : shown
    }

    /// A file the section parsed when it was made and the plan hashed since must be the
    /// same bytes: else it was written during the build, whose units would be built from
    /// one version under the key of another.
    /// (The same for a file read while the units were listed, by its stamp: the plan's
    /// stamp of it, or none when it changed while the plan read it.)
    func checkInputsReadEarly(_ section: any Section) throws {
        for (path, parsed) in section.inputsReadEarly {
            lock.lock(); let planned = digested[path]; lock.unlock()
            if let planned, planned != parsed { throw changedWhileRead(path) }
        }
        for (path, early) in section.inputStampsReadEarly {
            lock.lock(); let planned = newState.inputs[path]; lock.unlock()
            if planned.map(EarlyReadStamps.text) != early { throw changedWhileRead(path) }
        }
    }

    /// A unit input's SHA-256, recorded as an input of the build. An input many units
    /// share (a study's strings file, an input of each of 2,000 participants) is
    /// stamped, hashed and recorded once per build, not once per unit.
    /// (`path` is the unit's own text, ``SectionUnit/inputPaths``: the state's stamp is
    /// keyed by it, not by a copy.)
    func inputDigestOnce(_ path: String) throws -> String {
        lock.lock(); let known = digested[path]; lock.unlock()
        if let known { return known }
        let input = URL(filePath: path, directoryHint: .notDirectory)
        let (digest, size) = try inputDigest(input, path: path)
        recordInput(input, sha256: digest, size: size)
        lock.lock(); digested[path] = digest; lock.unlock()
        return digest
    }

    /// SHA-256 and size of a unit's input: from the previous build's stamp when the file
    /// is provably unchanged (``BuildState/InputStamp``), else read and hashed.
    /// (`path` is `input.path`, made once: the same text keys `digested` and the state's
    /// stamps rather than two copies of it per input.)
    func inputDigest(_ input: URL, path: String) throws -> (String, Int) {
        let before = BuildState.InputStamp.current(path)
        if let old = previous?.inputs[path], let now = before, old.stillValid(now) {
            var kept = now
            kept.sha256 = old.sha256
            kept.takenAt = old.takenAt
            lock.lock(); newState.inputs[path] = kept; lock.unlock()
            return (old.sha256.hex, Int(old.size))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DossierError(file: project.display(input), "cannot read input file")
        }
        PausePoint.reached("plan-read")     // (tests write the file here: debug builds only)
        lock.lock(); inputsHashed += 1; lock.unlock()
        let digest = Hashing.sha256(data)
        // Stamped only if the file did not change while it was read.
        if var stamp = before, let after = BuildState.InputStamp.current(path),
            stamp.size == after.size, stamp.mtime == after.mtime, stamp.ctime == after.ctime,
            stamp.size == Int64(data.count)
        {
            stamp.sha256 = HexDigest(digest)
            lock.lock(); newState.inputs[path] = stamp; lock.unlock()
        }
        return (digest, data.count)
    }

    /// The previous build's unit if its hash matches and its files are still there.
    func reusable(_ key: String, _ hash: String) -> BuildState.Unit? {
        guard let prev = previous?.units[key], prev.hash == hash else { return nil }
        for f in prev.files where access(outputPath + "/" + f.path, F_OK) != 0 {
            return nil
        }
        // A blob that is gone or not its recorded size: build the unit again.
        if let size = prev.blobSize {
            var st = stat()
            guard stat(blobURL(hash).path, &st) == 0, Int64(st.st_size) == size else { return nil }
        }
        return prev
    }

    func recordInput(_ url: URL, data: Data? = nil) {
        guard let d = data ?? FileManager.default.contents(atPath: url.path) else { return }
        recordInput(url, sha256: Hashing.sha256(d), size: d.count)
    }

    func recordInput(_ url: URL, sha256: String, size: Int) {
        let rel = relativeInputPath(url)
        let entry = ManifestFile(path: rel, sha256: sha256, size: Int64(size))
        lock.lock(); inputs[rel] = entry; lock.unlock()
    }

    /// ``recordInput(_:sha256:size:)`` of a content page's file with its SHA-256, from its path as text:
    /// ``relativeInputPath(path:)`` of `page.sourcePath`, which is `page.source.path`.
    func recordInput(_ page: borrowing ContentPage, digest: HexDigest) {
        let rel = relativeInputPath(path: page.sourcePath)
        let entry = ManifestFile(path: rel, digest: digest, size: Int64(page.raw.count))
        lock.lock(); inputs[rel] = entry; lock.unlock()
    }

    func relativeInputPath(path given: String) -> String { Self.inputPath(given, root: rootPath) }

    func relativeInputPath(_ url: URL) -> String { Self.inputPath(url, root: rootPath) }

    /// ``inputPath(_:root:)-(URL,_)`` of a file URL whose `path` is `given`, without the URL
    /// unless the path needs standardizing (`ContentLoadingFastPathTests` compares the two).
    static func inputPath(_ given: String, root: String) -> String {
        if SitePaths.holdsDotOrEmptyComponent(given) {
            return inputPath(URL(filePath: given, directoryHint: .notDirectory), root: root)
        }
        return path(given, relativeTo: root)
    }

    /// The input's path in the manifest: its standardized path relative to the project's
    /// folder `root`.
    static func inputPath(_ url: URL, root: String) -> String {
        // (A path without `.` or empty segments is its standardized form: no second URL.)
        let given = url.path
        let p = SitePaths.holdsDotOrEmptyComponent(given) ? url.standardizedFileURL.path : given
        return path(p, relativeTo: root)
    }

    /// `p` without its leading `root/`, or `p` when it does not start so. For an ASCII
    /// path and root (every input of a usual project; each content page is one) the bytes
    /// are compared; any other pair takes ``pathRelativeByCharacter(_:to:)``, its twin in
    /// PageReadFastPathTests.
    static func path(_ p: String, relativeTo root: String) -> String {
        var p = p, root = root
        let cut: Int? = p.withUTF8 { path in
            root.withUTF8 { r in
                guard !path.contains(where: { $0 >= 0x80 }), !r.contains(where: { $0 >= 0x80 }) else { return nil }
                guard path.count > r.count, path[r.count] == 0x2F,
                      memcmp(path.baseAddress!, r.baseAddress ?? path.baseAddress!, r.count) == 0 else { return 0 }
                return r.count + 1
            }
        }
        guard let cut else { return pathRelativeByCharacter(p, to: root) }
        return cut == 0 ? p : String(decoding: p.utf8.dropFirst(cut), as: UTF8.self)
    }

    static func pathRelativeByCharacter(_ p: String, to root: String) -> String {
        p.hasPrefix(root + "/") ? String(p.dropFirst(root.count + 1)) : p
    }

    /// `URL(filePath: path).lastPathComponent` of a file's path, without making the URL.
    static func lastPathComponent(_ path: String) -> String {
        guard !path.hasSuffix("/"), let slash = path.utf8.lastIndex(of: 0x2F) else {
            return URL(filePath: path, directoryHint: .notDirectory).lastPathComponent
        }
        return String(path[path.utf8.index(after: slash)...])
    }
}
