#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// `dossier serve`: builds into `.dossier/preview/site`, serves it on 127.0.0.1, polls the
/// project for changes, rebuilds incrementally, and makes open pages reload.
///
/// Live reload: every HTML response gets a small script that polls
/// `/__dossier/version` and reloads when the number changes. The script is added while
/// serving only; the files on disk are the same as `dossier build` writes.
public final class PreviewServer: @unchecked Sendable {
    let folder: URL
    let port: UInt16
    let drafts: Bool
    let log: BuildLog
    let state = ServeState()

    public init(project: URL, port: UInt16, drafts: Bool, log: BuildLog) {
        self.folder = project
        self.port = port
        self.drafts = drafts
        self.log = log
    }

    final class ServeState: @unchecked Sendable {
        private let lock = PlainLock()
        private var _version = 0
        private var _error: String? = nil
        var version: Int { lock.lock(); defer { lock.unlock() }; return _version }
        var error: String? { lock.lock(); defer { lock.unlock() }; return _error }
        func succeeded() { lock.lock(); _version += 1; _error = nil; lock.unlock() }
        func failed(_ e: String) { lock.lock(); _version += 1; _error = e; lock.unlock() }
    }

    var siteFolder: URL { folder.appendingPathComponent(".dossier/preview/site") }

    func rebuild() async {
        let builder = Builder(project: folder, options: BuildOptions(drafts: drafts, output: siteFolder), log: log)
        do {
            _ = try await builder.build()
            state.succeeded()
        } catch let e as DossierError {
            Console.error(e)
            state.failed(e.description)
        } catch {
            Console.error(DossierError(error.diagnostics))
            state.failed("\(error)")
        }
    }

    /// Runs until the process is stopped.
    public func run() async throws {
        // The port first: a busy one is said at once, not after building the whole site.
        // Connections wait in the listen queue until the first build is served.
        let state = self.state
        let site = siteFolder
        let server: LoopbackHTTPServer
        do {
            server = try LoopbackHTTPServer(port: port) { _, path in
                if path == "/__dossier/version" {
                    return .init(status: 200, headers: [("Content-Type", "text/plain"), ("Cache-Control", "no-store")],
                                 body: Data("\(state.version)".utf8))
                }
                return PreviewServer.serveFile(path, from: site, state: state)
            }
        } catch {
            throw DossierError("cannot listen on 127.0.0.1:\(port): \(error); "
                               + "choose another --port (0 picks a free one)")
        }
        // The preview folder first, so even the first build of a fresh project takes the
        // site lock (.dossier/preview/.site.lock): two serves of one project take turns.
        try? FileManager.default.createDirectory(at: site.deletingLastPathComponent(),
                                                 withIntermediateDirectories: true)
        // A first build must succeed to have something to serve.
        let first = Builder(project: folder, options: BuildOptions(drafts: drafts, output: siteFolder), log: log)
        _ = try await first.build()
        state.succeeded()
        let watcher = Task { [self] in
            var last = ProjectWatcher.fingerprint(folder)
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 300_000_000)
                let now = ProjectWatcher.fingerprint(folder)
                if now != last {
                    last = now
                    log.info("Change detected: rebuilding")
                    await rebuild()
                }
            }
        }
        defer { watcher.cancel() }
        let address = "http://127.0.0.1:\(server.port)/"
        Stdio.writeOutput(Data("Serving \(SitePaths.display(folder)) at \(address) (Ctrl-C to stop)\n".utf8))
        await server.run()
    }

    static let reloadScript = """
    <script>/* dossier serve: live reload */(function(){var v=null;function poll(){\
    fetch('/__dossier/version',{cache:'no-store'}).then(function(r){return r.text()})\
    .then(function(t){if(v!==null&&t!==v){location.reload();return}v=t;setTimeout(poll,500)})\
    .catch(function(){setTimeout(poll,1000)})}poll()})();</script>
    """

    /// The site's own `404.html` (its links are relative to the root, so it gets
    /// `<base href="/">`), or a small page of the same design when the site has none.
    static func notFound(_ path: String, site: URL) -> LoopbackHTTPServer.Response {
        var body: String
        if let page = FileManager.default.contents(atPath: site.appendingPathComponent("404.html").path) {
            body = String(decoding: page, as: UTF8.self)
            if let head = body.textRange(of: "<head>") {
                body.insert(contentsOf: "\n<base href=\"/\">", at: head.upperBound)
            }
        } else {
            body = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>Page not found</title>\n"
                + "<base href=\"/\">\n<link rel=\"stylesheet\" href=\"assets/dossier.css\">\n</head>\n<body>\n"
                + "<main id=\"main\" class=\"page\">\n<h1>Page not found</h1>\n"
                + "<p>\(HTML.escape(path)) is not part of the site.</p>\n"
                + "<p><a href=\"index.html\">Go to the home page</a></p>\n</main>\n</body>\n</html>\n"
        }
        if let r = body.lastTextRange(of: "</body>") {
            body.insert(contentsOf: reloadScript, at: r.lowerBound)
        } else {
            body += reloadScript
        }
        return .init(status: 404,
                     headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                     body: Data(body.utf8))
    }

    static func serveFile(_ rawPath: String, from site: URL, state: ServeState) -> LoopbackHTTPServer.Response {
        var path = rawPath.percentDecoded() ?? rawPath
        if path.hasSuffix("/") || path.isEmpty { path += "index.html" }
        let parts = path.split(separator: "/").filter { !$0.isEmpty && $0 != "." }
        if parts.contains("..") { return .init(status: 403) }
        var url = site
        for p in parts { url.appendPathComponent(String(p)) }
        var isDir = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir {
            // Only a path without its trailing "/" is redirected, and only to that path
            // with one (never to itself).
            guard !rawPath.hasSuffix("/") else { return .init(status: 404) }
            return .init(status: 301, headers: [("Location", rawPath + "/")])
        }
        guard var data = FileManager.default.contents(atPath: url.path) else { return notFound(path, site: site) }
        let type = MIME.type(for: url.pathExtension)
        if url.pathExtension == "html" {
            var html = String(decoding: data, as: UTF8.self)
            if let e = state.error {
                html = html.replacingAll(
                    "<body",
                    with: "<div style=\"background:#a4161a;color:#fff;padding:1rem;white-space:pre-wrap;"
                        + "font-family:monospace\">Last rebuild failed; showing the previous site.\n"
                        + "\(HTML.escape(e))</div><body")
            }
            if let r = html.lastTextRange(of: "</body>") {
                html.insert(contentsOf: reloadScript, at: r.lowerBound)
            } else {
                html += reloadScript
            }
            data = Data(html.utf8)
        }
        return .init(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-store")], body: data)
    }
}

/// Detects changes in a project folder by the names, sizes and modification times of
/// its files (the output and `.dossier/` excluded).
enum ProjectWatcher {
    static func fingerprint(_ folder: URL) -> String {
        var h = Hashing.Key()
        let outside = { (rel: String) in PathText.lastComponent(rel).hasPrefix("_site") }
        guard let walked = FolderWalk.entries(under: folder.path, skipHidden: true, descend: { !outside($0) })
        else { return "" }
        var items: [String] = []
        for w in walked where !outside(w.path) && w.kind != .folder {
            items.append("\(folder.path)/\(w.path)|\(w.size)|\(w.modified)")
        }
        for i in items.sorted() { h.add(i) }
        return h.finalize()
    }
}

/// Content types by file extension.
enum MIME {
    static func type(for ext: String) -> String {
        switch ext.lowercased() {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "csv": return "text/csv; charset=utf-8"
        case "md": return "text/markdown; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "xml": return "application/xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "wav": return "audio/wav"
        case "mp3": return "audio/mpeg"
        case "m4a": return "audio/mp4"
        case "ogg": return "audio/ogg"
        case "mp4", "m4v": return "video/mp4"
        case "webm": return "video/webm"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
