import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Crypto
import Render
import TextBasics

/// The manifest the build writes beside the site (`_site.manifest.json`), and the copy
/// publish keeps on the server (`.dossier-manifest.json`): every output file with its
/// SHA-256 and size, sorted by path. See docs/publish.md.
///
/// ```json
/// {"dossier": "0.1.0",
///  "files": [{"path": "index.html", "sha256": "…", "size": 123}],
///  "inputs": [{"path": "content/a.md", "sha256": "…", "size": 45}]}
/// ```
public struct SiteManifest: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable, Hashable {
        /// Site-relative path with `/` separators.
        public var path: String
        /// SHA-256 of the file's bytes, held as 32 bytes (``sha256`` is its text).
        public var digest: HexDigest
        public var size: Int64
        /// Lower-case hex SHA-256 of the file's bytes.
        public var sha256: String {
            get { digest.hex }
            set { digest = HexDigest(newValue) }
        }
        public init(path: String, sha256: String, size: Int64) {
            self.init(path: path, digest: HexDigest(sha256), size: size)
        }
        public init(path: String, digest: HexDigest, size: Int64) {
            self.path = path
            self.digest = digest
            self.size = size
        }

        // The JSON is `{"path", "sha256" (the text), "size"}`, as when `sha256` was stored
        // (a ``HexDigest`` is coded as its text).
        enum CodingKeys: String, CodingKey { case path, digest = "sha256", size }
    }

    public var dossier: String
    public var files: [Entry]
    /// The build's inputs (absent in the remote copy).
    public var inputs: [Entry]?

    public init(dossier: String = DossierVersion.string, files: [Entry], inputs: [Entry]? = nil) {
        self.dossier = dossier
        // (A build's list is sorted already: kept as it is, not copied — 10,000 entries.)
        self.files = zip(files, files.dropFirst()).allSatisfy { Self.inPathOrder($0, $1) }
            ? files : files.sorted(by: Self.inPathOrder)
        self.inputs = inputs
    }

    /// What to do about a site file that does not match its manifest entry: a clean build
    /// (an incremental one keeps a file edited by hand, docs/output-manifest.md).
    public static let rebuildAdvice = "rebuild the site (dossier build --clean: a build keeps a file edited by hand)"

    /// The manifest's order: paths in UTF-8 byte order (docs/output-manifest.md).
    public static func inPathOrder(_ a: Entry, _ b: Entry) -> Bool {
        a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
    }

    /// Reads and checks a manifest file: paths must be relative, without `..`, empty
    /// segments or duplicates; hashes 64 hex digits.
    public static func load(_ url: URL) throws -> SiteManifest {
        let shown = SitePaths.display(url)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DossierError(file: shown, "no site manifest here; build the site first (`dossier build`)")
        }
        if FileManager.default.fileExists(atPath: incompleteMarker(for: url).path) {
            throw DossierError(
                file: shown,
                "the last build of this site did not finish (killed while it replaced files), so this manifest may not "
                    + "describe them; run `dossier build` again"
            )
        }
        return try decode(data, shown: shown)
    }

    /// The file a build creates beside the manifest (`<manifest>.incomplete`) before it
    /// replaces the site's files and removes once the new manifest is written: while it
    /// exists the manifest is not trusted.
    public static func incompleteMarker(for manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(manifest.lastPathComponent + ".incomplete")
    }

    /// Decodes and checks manifest bytes; `shown` names the source in errors.
    public static func decode(_ data: Data, shown: String) throws -> SiteManifest {
        let m: SiteManifest
        do { m = try JSONDecoder().decode(SiteManifest.self, from: data) } catch {
            throw DossierError(file: shown, "not a Dossier site manifest (\(Self.describe(error)))")
        }
        var seen = Set<String>()
        for e in m.files {
            if let problem = Self.pathProblem(e.path) {
                throw DossierError(file: shown, "file '\(e.path)': \(problem)")
            }
            if !seen.insert(e.path).inserted { throw DossierError(file: shown, "file '\(e.path)' is listed twice") }
            if e.sha256.count != 64 || !e.sha256.allSatisfy({ $0.isHexDigit }) {
                throw DossierError(file: shown, "file '\(e.path)': sha256 must be 64 hex digits")
            }
            if e.size < 0 { throw DossierError(file: shown, "file '\(e.path)': negative size") }
        }
        return SiteManifest(dossier: m.dossier, files: m.files, inputs: m.inputs)
    }

    /// Why `path` cannot be a site file path, or nil when it is fine.
    static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") || path.hasSuffix("/") {
            return "path must be relative, without a leading or trailing /"
        }
        for seg in path.split(separator: "/", omittingEmptySubsequences: false) {
            if seg.isEmpty || seg == "." || seg == ".." { return "path has an empty, '.' or '..' segment" }
        }
        if path.contains("\\") || path.contains("\0") { return "path has a backslash or NUL" }
        return nil
    }

    /// The build's `<output>.manifest.json`: the same bytes as
    /// `JSONOutput.encode(self)`, built directly as a ``JSONValue`` (the generic path
    /// encodes, re-parses and re-encodes, which costs seconds at 10,000 pages).
    public func outputJSON() -> Data {
        var out = Data()
        writeJSON { out.append(contentsOf: $0) }
        return out
    }

    /// ``outputJSON()`` handed to `emit` in consecutive pieces of about `pieceSize` bytes
    /// (an entry is never split): the build writes the manifest (2 MB at 10,000 files)
    /// this way, never holding it whole (docs/incremental.md, round six).
    public func writeJSON<E: Error>(pieceSize: Int = 1 << 16, _ emit: ([UInt8]) throws(E) -> Void) throws(E) {
        // Written out by hand in JSONValue's layout (keys sorted: dossier, files, inputs;
        // path, sha256, size); the tests buildManifestBytesEqualTheGenericEncoder... and
        // generatedManifestsWrittenAsBytesEqualTheGenericEncoder pin it. Gathered as bytes,
        // the form `emit` takes (a String appended to seven times an entry, then copied
        // into an array, was 7,300 instructions an entry).
        var out: [UInt8] = []
        out.reserveCapacity(pieceSize + 1024)
        func flush(_ force: Bool = false) throws(E) {
            guard force || out.count >= pieceSize else { return }
            try emit(out)
            out.removeAll(keepingCapacity: true)
        }
        func put(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        // Paths and hashes are almost always printable ASCII without `"` or `\`, which
        // JSONText would copy scalar by scalar unchanged: append those whole (a manifest
        // of 10,000 files was a sixth of a no-change build).
        func text(_ s: String) {
            var s = s
            let plain = s.withUTF8 { b in
                guard b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else { return false }
                out.append(contentsOf: b)
                return true
            }
            if !plain {
                var escaped = ""
                JSONText.append(s, to: &escaped)
                out.append(contentsOf: escaped.utf8)
            }
        }
        func number(_ v: Int64) {
            if v < 0 { out.append(contentsOf: String(v).utf8); return }
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                          UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &digits) { d in
                var k = d.count, rest = UInt64(v)
                repeat { k -= 1; d[k] = UInt8(ascii: "0") + UInt8(rest % 10); rest /= 10 } while rest > 0
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[k...]))
            }
        }
        func list(_ entries: [Entry]) throws(E) {
            if entries.isEmpty { put("[]"); return }
            put("[")
            for (i, e) in entries.enumerated() {
                if i == 0 { put("\n    {\n      \"path\": \"") } else { put(",\n    {\n      \"path\": \"") }
                text(e.path)
                put("\",\n      \"sha256\": \"")
                text(e.sha256)
                put("\",\n      \"size\": ")
                number(e.size)
                put("\n    }")
                try flush()
            }
            put("\n  ]")
        }
        put("{\n  \"dossier\": \"")
        text(dossier)
        put("\",\n  \"files\": ")
        try list(files)
        if let inputs {
            put(",\n  \"inputs\": ")
            try list(inputs)
        }
        put("\n}\n")
        try flush(true)
    }

    /// Deterministic JSON (sorted keys, two-space indent, trailing newline).
    public func encoded() throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try enc.encode(self)
        data.append(0x0A)
        return data
    }

    /// A manifest of every regular file under `folder` (hidden files included), for sites
    /// not built by Dossier and for tests.
    public static func scan(_ folder: URL) throws -> SiteManifest {
        var entries: [Entry] = []
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().path
        guard let walked = FolderWalk.entries(under: base, skipHidden: false) else {
            throw DossierError(file: SitePaths.display(folder), "cannot read this folder")
        }
        for rel in walked.filter({ !$0.isFolderFollowingLinks }).map(\.path) {
            let full = base + "/" + rel
            guard FileManager.default.fileExists(atPath: full) else { continue }
            let (hash, size) = try FileHash.sha256(URL(fileURLWithPath: full))
            entries.append(Entry(path: rel, sha256: hash, size: size))
        }
        return SiteManifest(files: entries)
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx):
            return "wrong type at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: return "not valid JSON"
        default: return "cannot decode"
        }
    }
}

/// SHA-256 of files, streamed in 1 MiB chunks.
public enum FileHash {
    /// Hex SHA-256 and size of the file at `url`.
    public static func sha256(_ url: URL) throws -> (hex: String, size: Int64) {
        guard let handle = PlainFile(forReadingAtPath: url.path) else {
            throw DossierError(file: SitePaths.display(url), "cannot read this file")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            size += Int64(chunk.count)
            hasher.update(data: chunk)
        }
        return (hex(hasher.finalize()), size)
    }

    /// Hex SHA-256 of bytes.
    public static func sha256(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
