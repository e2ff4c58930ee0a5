#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// A section's block in `dossier.yml`, with typed accessors that report `file:line` errors.
///
/// Every key a section reads is remembered; after the section was created the pipeline
/// calls ``unknownKeys()`` so a misspelt key is an error, never silently ignored.
public final class SectionConfig: @unchecked Sendable {
    /// The section key (`recall`, `vault`, …).
    public let key: String
    /// The manifest file (for messages), as shown to the user.
    public let file: String
    /// The project folder; relative paths are resolved against it.
    public let root: URL
    public let node: ConfigNode
    private var entries: [ConfigEntry]
    /// The names asked for (``value(_:)``), each once, in the order first asked. A list,
    /// not a set: a block is asked for a handful of names, and each content page's front
    /// matter is one of these blocks (a set made, hashed into and grown for every page
    /// was 0.6 % of a pages build's instructions).
    private var asked: [String] = []
    private let lock = PlainLock()
    /// Files this block names must not link outside the project (set by `Project.load`).
    public var confinement: Confinement?

    public init(key: String, file: String, root: URL, node: ConfigNode) {
        self.key = key
        self.file = file
        self.root = root
        self.node = node
        if case .map(let e, _) = node { entries = e } else { entries = [] }
    }

    // MARK: Lookup

    /// The raw value of `name`, marking it as known.
    public func value(_ name: String) -> ConfigNode? {
        lock.lock()
        if !asked.contains(name) { asked.append(name) }
        lock.unlock()
        return entries.first { $0.key == name }?.value
    }

    /// The line of `name` (or of the section block when absent).
    public func line(_ name: String? = nil) -> Int {
        if let name, let e = entries.first(where: { $0.key == name }) { return e.keyLine }
        return node.line
    }

    /// An error located at `name`'s line in the manifest.
    public func error(_ name: String?, _ message: String) -> DossierError {
        DossierError(file: file, line: line(name), "\(key)\(name.map { ".\($0)" } ?? ""): \(message)")
    }

    /// An error located at `name`'s line whose message already names the key.
    public func errorNamingKey(_ name: String, _ message: String) -> DossierError {
        DossierError(file: file, line: line(name), message)
    }

    // MARK: Typed accessors

    public func string(_ name: String) throws -> String? {
        guard let v = value(name) else { return nil }
        switch v {
        case .scalar(let s, _): return s
        case .null: return nil
        default: throw error(name, "expected a single value")
        }
    }

    public func requiredString(_ name: String) throws -> String {
        guard let s = try string(name) else { throw error(nil, "missing required key '\(name)'") }
        return s
    }

    public func int(_ name: String, default def: Int? = nil, range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let s = try string(name) else { return def }
        guard let i = Int(s) else { throw error(name, "expected a whole number, got '\(s)'") }
        if let range, !range.contains(i) {
            throw error(name, "\(i) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return i
    }

    public func double(_ name: String, default def: Double? = nil) throws -> Double? {
        guard let s = try string(name) else { return def }
        guard let d = Double(s) else { throw error(name, "expected a number, got '\(s)'") }
        return d
    }

    public func bool(_ name: String, default def: Bool) throws -> Bool {
        guard let s = try string(name) else { return def }
        switch s.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(name, "expected true or false, got '\(s)'")
        }
    }

    /// A list of strings; a single scalar counts as a one-item list.
    public func strings(_ name: String) throws -> [String] {
        guard let v = value(name) else { return [] }
        switch v {
        case .scalar(let s, _): return [s]
        case .null: return []
        case .list(let items, _):
            return try items.map {
                guard case .scalar(let s, _) = $0 else {
                    throw DossierError(file: file, line: $0.line, "\(key).\(name): expected a list of values")
                }
                return s
            }
        case .map: throw error(name, "expected a value or a list of values")
        }
    }

    // MARK: Files

    /// One existing file or folder, relative to the project.
    public func path(_ name: String, required: Bool = true) throws -> URL? {
        guard let s = try string(name) else {
            if required { throw error(nil, "missing required key '\(name)'") }
            return nil
        }
        let url = resolve(s)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw error(name, "file not found: \(s)")
        }
        try confinement?.check(url, shown: s)
        return url
    }

    /// Existing files named by a value or list; entries may be folders (every file
    /// inside, sorted) or contain `*` globs in their last component. An entry that
    /// matches nothing is an error.
    public func paths(_ name: String, extensions: Set<String>? = nil) throws -> [URL] {
        var out: [URL] = []
        for s in try strings(name) {
            let matched = expand(s, extensions: extensions)
            if matched.isEmpty { throw error(name, "no file matches \(s)") }
            if let confinement { try checkConfinement(matched, confinement) }
            out.append(contentsOf: matched)
        }
        return out
    }

    /// ``Confinement/check(_:shown:)`` of every file of `files`; a file that is no link,
    /// in a folder whose real path was found once (a folder of 2,000 logs: one), is settled
    /// by one `lstat` (``Confinement/allowsPlainFile(_:realFolder:stat:)``), as content
    /// pages are. The full check, its twin, decides every other file (`ConfinementTests`).
    func checkConfinement(_ files: [URL], _ confinement: Confinement) throws {
        var realFolders: [Substring: String] = [:]
        for u in files {
            let path = u.path
            var st = stat()
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                let folder = path[..<slash]
                let real = realFolders[folder] ?? Confinement.real(URL(fileURLWithPath: String(folder)))
                realFolders[folder] = real
                if confinement.allowsPlainFile(path, realFolder: real, stat: &st) { continue }
            }
            let top = root.path + "/"
            try confinement.check(u, shown: path.hasPrefix(top) ? String(path.dropFirst(top.count)) : path)
        }
    }

    public func resolve(_ s: String) -> URL {
        s.hasPrefix("/") ? URL(fileURLWithPath: s) : root.appendingPathComponent(s)
    }

    private func expand(_ s: String, extensions: Set<String>?) -> [URL] {
        let fm = FileManager.default
        let url = resolve(s)
        func ok(_ u: URL) -> Bool { extensions.map { $0.contains(u.pathExtension.lowercased()) } ?? true }
        if s.contains("*") {
            let dir = url.deletingLastPathComponent()
            let pattern = url.lastPathComponent
            let names = (try? fm.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.filter { fnmatch(pattern, $0, 0) == 0 && !$0.hasPrefix(".") }.sorted()
                .map { dir.appendingPathComponent($0) }.filter(ok)
        }
        var isDir = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDir) else { return [] }
        if isDir {
            // Every file in the folder (symbolic links followed), sorted; one `stat` a
            // name, and URLs made without `appendingPathComponent`'s own `stat`.
            let names = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
            let folder = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
            return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name -> URL? in
                let path = folder + "/" + name
                var st = stat()
                guard stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { return nil }
                let u = URL(filePath: path, directoryHint: .notDirectory)
                return ok(u) ? u : nil
            }
        }
        return [url]
    }

    /// A nested block as its own config (for sub-mappings).
    public func block(_ name: String) -> SectionConfig? {
        guard let v = value(name) else { return nil }
        let child = SectionConfig(key: key.isEmpty ? name : "\(key).\(name)", file: file, root: root, node: v)
        child.confinement = confinement
        return child
    }

    /// Every key the section asked for, in the order first asked (present or not): the
    /// keys a "did you mean" suggests from.
    public func knownKeys() -> [String] {
        lock.lock(); defer { lock.unlock() }
        return asked
    }

    /// Keys present in the block that the section never read.
    public func unknownKeys() -> [ConfigEntry] {
        lock.lock(); defer { lock.unlock() }
        return entries.filter { !asked.contains($0.key) }
    }
}
