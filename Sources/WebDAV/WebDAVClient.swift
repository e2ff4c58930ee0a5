import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small WebDAV client (RFC 4918) over URLSession: PROPFIND, GET, PUT (with
/// `If-Match` / `If-None-Match: *`), MKCOL, DELETE and MOVE, with HTTP Basic
/// authentication and retries with exponential backoff on 5xx answers and time-outs.
///
/// Paths are relative to `baseURL` (a collection URL ending in `/`), use `/` as the
/// separator and are percent-encoded by the client: `client.put("a b/c.html", …)`.
///
/// ```swift
/// let dav = try WebDAVClient(baseURL: URL(string: "https://dav.example.org/site/")!,
///                            credentials: Credentials(user: "alice", password: pw))
/// try await dav.makeCollections("reports/2026")
/// let etag = try await dav.put("reports/2026/index.html", data: html, precondition: .ifNoneMatchAny)
/// ```
public struct WebDAVClient: Sendable {
    /// Retry and time-out settings.
    public struct Options: Sendable {
        /// Attempts per request, the first included (so 4 = up to 3 retries).
        public var maxAttempts = 4
        /// Wait before the first retry; doubled on each later one.
        public var initialBackoff: Double = 0.25
        /// Seconds without an answer before a request times out.
        public var timeout: Double = 30
        public init(maxAttempts: Int = 4, initialBackoff: Double = 0.25, timeout: Double = 30) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.timeout = timeout
        }
    }

    /// When a write should only happen if the server's copy is as expected.
    public enum Precondition: Sendable, Equatable {
        case none
        /// `If-Match: "etag"` — only replace the version we read.
        case ifMatch(String)
        /// `If-None-Match: *` — only create, never replace.
        case ifNoneMatchAny
    }

    /// The collection every path is relative to (always ends in `/`).
    public let baseURL: URL
    let credentials: Credentials?
    let options: Options
    let session: URLSession
    /// Requests sent, by method (retries included).
    public let stats = RequestStats()
    let log: (@Sendable (String) -> Void)?

    /// Creates a client. Throws `WebDAVError.insecure` when credentials would travel in
    /// clear text: Basic auth is allowed over `https`, or `http` to a loopback host only.
    public init(baseURL: URL, credentials: Credentials?, options: Options = Options(),
                log: (@Sendable (String) -> Void)? = nil) throws {
        var text = baseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw WebDAVError.insecure("\(baseURL.absoluteString): not an http(s) URL of a WebDAV folder")
        }
        if url.password != nil {
            throw WebDAVError.insecure("\(WebDAVClient.redacted(url)): never put a password in the URL (it shows in `ps` and shell history); use the DOSSIER_WEBDAV_PASSWORD variable, a netrc file or the prompt")
        }
        if credentials != nil, scheme == "http", !WebDAVClient.isLoopback(host) {
            throw WebDAVError.insecure("\(url.absoluteString): refusing to send a password over plain http to \(host); use https")
        }
        self.baseURL = url
        self.credentials = credentials
        self.options = options
        self.log = log
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = options.timeout
        config.timeoutIntervalForResource = max(options.timeout * 10, 300)
        config.httpMaximumConnectionsPerHost = 8
        config.urlCache = nil
        config.httpCookieStorage = nil
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: config, delegate: ChallengeRejecter(), delegateQueue: nil)
    }

    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return h == "localhost" || h == "::1" || h.hasPrefix("127.")
    }

    static func redacted(_ url: URL) -> String {
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        c.password = nil
        c.user = nil
        return c.string ?? "<url>"
    }

    // MARK: - Paths

    /// Characters kept as they are in a path segment (RFC 3986 pchar minus a few that
    /// some servers mishandle).
    private static let segmentAllowed: CharacterSet = {
        var s = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        s.insert(charactersIn: "-._~!$&'()*+,=:@")
        return s
    }()

    /// Percent-encodes each segment of a relative path.
    public static func encode(path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? String($0) }
            .joined(separator: "/")
    }

    /// The absolute URL of `path` (a collection URL ends in `/`).
    public func url(_ path: String, collection: Bool = false) -> URL {
        var s = baseURL.absoluteString + WebDAVClient.encode(path: path)
        if collection && !s.hasSuffix("/") { s += "/" }
        return URL(string: s)!
    }

    /// The decoded base path (`/dav/site/`).
    private var basePath: String {
        let p = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        return p.removingPercentEncoding ?? p
    }

    /// Turns an `href` from a multistatus answer into a path relative to `baseURL`.
    func relativePath(href: String) -> String {
        var raw = href
        if raw.lowercased().hasPrefix("http://") || raw.lowercased().hasPrefix("https://") {
            raw = URLComponents(string: raw)?.percentEncodedPath ?? raw
        }
        var p = raw.removingPercentEncoding ?? raw
        let base = basePath
        if p.hasPrefix(base) { p.removeFirst(base.count) }
        else if p + "/" == base { p = "" }
        return p.split(separator: "/").joined(separator: "/")
    }

    // MARK: - Methods

    /// PROPFIND with `Depth: 0` or `1`: the resource and (depth 1) its members.
    public func propfind(_ path: String, depth: Int = 1) async throws -> [DAVResource] {
        let body = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getlastmodified/><d:getcontentlength/></d:prop></d:propfind>
        """
        let target = url(path, collection: true)
        let (data, _) = try await send("PROPFIND", target, headers: ["Depth": String(depth), "Content-Type": "application/xml; charset=utf-8"],
                                       body: Data(body.utf8), accept: [207])
        do {
            return try MultistatusParser.parse(data).map { item in
                DAVResource(path: relativePath(href: item.href), href: item.href.removingPercentEncoding ?? item.href,
                            isCollection: item.resource.isCollection, etag: item.resource.etag,
                            lastModified: item.resource.lastModified, contentLength: item.resource.contentLength)
            }
        } catch WebDAVError.badResponse(_, let detail) {
            throw WebDAVError.badResponse(url: target.absoluteString, detail: detail)
        }
    }

    /// The properties of one resource, or nil when it does not exist.
    public func stat(_ path: String) async throws -> DAVResource? {
        do {
            let target = url(path)
            let (data, _) = try await send("PROPFIND", target, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                                           body: Data(#"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getlastmodified/><d:getcontentlength/></d:prop></d:propfind>"#.utf8),
                                           accept: [207])
            return try MultistatusParser.parse(data).first.map { item in
                DAVResource(path: relativePath(href: item.href), href: item.href.removingPercentEncoding ?? item.href,
                            isCollection: item.resource.isCollection, etag: item.resource.etag,
                            lastModified: item.resource.lastModified, contentLength: item.resource.contentLength)
            }
        } catch let e as WebDAVError where e.httpStatus == 404 {
            return nil
        }
    }

    /// GET: the body and entity tag. Throws `.notFound` when it does not exist.
    public func get(_ path: String) async throws -> (data: Data, etag: String?) {
        let (data, response) = try await send("GET", url(path), accept: [200])
        return (data, WebDAVClient.etag(response))
    }

    /// GET, or nil when the resource does not exist.
    public func getIfExists(_ path: String) async throws -> (data: Data, etag: String?)? {
        do { return try await get(path) } catch let e as WebDAVError where e.httpStatus == 404 { return nil }
    }

    /// PUT `data` at `path`; returns the new entity tag when the server sends one.
    /// A failed precondition throws `.preconditionFailed` and changes nothing.
    @discardableResult
    public func put(_ path: String, data: Data, precondition: Precondition = .none,
                    contentType: String = "application/octet-stream") async throws -> String? {
        var headers = ["Content-Type": contentType]
        switch precondition {
        case .none: break
        case .ifMatch(let tag): headers["If-Match"] = ETag.quoted(tag)
        case .ifNoneMatchAny: headers["If-None-Match"] = "*"
        }
        let (_, response) = try await send("PUT", url(path), headers: headers, body: data, accept: [200, 201, 204])
        return WebDAVClient.etag(response)
    }

    /// MKCOL one collection. Returns false when it already existed (405).
    @discardableResult
    public func mkcol(_ path: String) async throws -> Bool {
        do {
            _ = try await send("MKCOL", url(path, collection: true), accept: [201])
            return true
        } catch let e as WebDAVError where e.httpStatus == 405 {
            return false
        }
    }

    /// MKCOL `path` and every missing parent, top down (`a`, `a/b`, `a/b/c`).
    public func makeCollections(_ path: String) async throws {
        let parts = path.split(separator: "/")
        for i in parts.indices {
            try await mkcol(parts[...i].joined(separator: "/"))
        }
    }

    /// DELETE; returns false when it was already gone (404).
    @discardableResult
    public func delete(_ path: String, collection: Bool = false, precondition: Precondition = .none) async throws -> Bool {
        var headers: [String: String] = [:]
        if case .ifMatch(let tag) = precondition { headers["If-Match"] = ETag.quoted(tag) }
        do {
            _ = try await send("DELETE", url(path, collection: collection), headers: headers, accept: [200, 204])
            return true
        } catch let e as WebDAVError where e.httpStatus == 404 {
            return false
        }
    }

    /// MOVE `from` to `to` (both relative paths); `overwrite` sends `Overwrite: T`. With
    /// `ifDestinationMatches`, the RFC 4918 tagged `If` header
    /// `If: <destination URL> (["etag"])` asks the server to replace the destination only
    /// while it has that entity tag (412 otherwise). Not every server honours a tagged
    /// condition on the destination (wsgidav ignores it), so callers check first too.
    public func move(_ from: String, to: String, overwrite: Bool = true, ifDestinationMatches tag: String? = nil) async throws {
        let destination = url(to).absoluteString
        var headers = ["Destination": destination, "Overwrite": overwrite ? "T" : "F"]
        if let tag { headers["If"] = "<\(destination)> ([\(ETag.quoted(tag))])" }
        _ = try await send("MOVE", url(from), headers: headers, accept: [201, 204])
    }

    /// Creates the base collection and any missing parent of it (MKCOL top down, from
    /// the first path segment); an existing one (405) is fine.
    public func makeBaseCollection() async throws {
        guard var c = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return }
        let segments = c.percentEncodedPath.split(separator: "/").map(String.init)
        for i in segments.indices {
            c.percentEncodedPath = "/" + segments[...i].joined(separator: "/") + "/"
            guard let u = c.url else { continue }
            do {
                _ = try await send("MKCOL", u, accept: [201])
            } catch let e as WebDAVError where e.httpStatus == 405 {
                continue
            } catch let e as WebDAVError where i < segments.count - 1 && [401, 403, 409].contains(e.httpStatus ?? 0) {
                continue   // an ancestor we may not create (or see): try deeper ones
            }
        }
    }

    // MARK: - Transport

    static func etag(_ response: HTTPURLResponse) -> String? {
        (response.value(forHTTPHeaderField: "ETag")).map(ETag.normalize)
    }

    /// Sends one request with retries; returns the body and response when the status is
    /// in `accept`, otherwise throws the matching `WebDAVError`.
    func send(_ method: String, _ target: URL, headers: [String: String] = [:], body: Data? = nil,
              accept: Set<Int>) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: target)
        request.httpMethod = method
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        if let credentials { request.setValue(credentials.authorizationHeader, forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        // libcurl adds `Expect: 100-continue` to bodies over 1 KiB and then waits up to
        // a second for a `100 Continue` many WebDAV servers never send: turn it off.
        if body != nil { request.setValue("", forHTTPHeaderField: "Expect") }
        if body == nil && (method == "PUT") { request.httpBody = Data() }
        let shown = target.absoluteString
        // A write point for the crash tests (debug builds only; see FaultPoint).
        let fault: FaultPoint.Action = ["PUT", "MKCOL", "MOVE", "DELETE"].contains(method)
            ? try FaultPoint.hit("\(method) \(relativePath(href: target.path))") : .proceed
        var attempt = 1
        while true {
            stats.record(method)
            var retryable: WebDAVError
            do {
                let (data, response) = try await session.data(for: request)
                guard let http = response as? HTTPURLResponse else {
                    throw WebDAVError.badResponse(url: shown, detail: "not an HTTP answer")
                }
                log?("\(method) \(shown) → \(http.statusCode)")
                if fault == .failAfterWrite { throw FaultPoint.lostAnswer(method) }
                if accept.contains(http.statusCode) { return (data, http) }
                let error = WebDAVError.from(status: http.statusCode, url: shown, method: method)
                guard [500, 502, 503, 504].contains(http.statusCode) else { throw error }
                retryable = error
            } catch let e as WebDAVError {
                throw e
            } catch let e as FaultPoint.Injected {
                throw e
            } catch let e as URLError where e.code == .cancelled && !Task.isCancelled {
                // The delegate cancels HTTP auth challenges: the server answered 401 to
                // the credentials sent up front (see ChallengeRejecter).
                log?("\(method) \(shown) → 401")
                throw WebDAVError.unauthorized(url: shown)
            } catch let e as URLError {
                let mapped = WebDAVClient.map(e, url: shown)
                log?("\(method) \(shown) → \(mapped)")
                // Connection-level failures (refused, reset, cut short, timed out) are
                // retried; TLS and malformed-URL failures are not.
                if case .tls = mapped { throw mapped }
                if [.badURL, .unsupportedURL, .cannotFindHost, .dnsLookupFailed].contains(e.code) { throw mapped }
                retryable = mapped
            } catch {
                throw WebDAVError.unreachable(url: shown, detail: String(describing: error))
            }
            if attempt >= options.maxAttempts { throw retryable }
            let wait = options.initialBackoff * pow(2, Double(attempt - 1))
            try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            attempt += 1
        }
    }

    static func map(_ e: URLError, url: String) -> WebDAVError {
        switch e.code {
        case .timedOut:
            return .timeout(url: url)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            return .tls(url: url, detail: e.localizedDescription)
        case .cannotConnectToHost:
            return .unreachable(url: url, detail: "connection refused")
        case .cannotFindHost, .dnsLookupFailed:
            return .unreachable(url: url, detail: "unknown host")
        case .notConnectedToInternet:
            return .unreachable(url: url, detail: "no network")
        case .networkConnectionLost:
            return .unreachable(url: url, detail: "connection lost")
        default:
            // FoundationNetworking reports many libcurl failures as code -1 with curl's
            // text: recognise TLS ones by it ("SSL certificate problem: …").
            let text = e.localizedDescription
            if text.contains("SSL") || text.contains("TLS") || text.lowercased().contains("certificate") {
                return .tls(url: url, detail: text)
            }
            return .unreachable(url: url, detail: "\(text) [URLError \(e.code.rawValue)]")
        }
    }
}

/// URLSession delegate: credentials are always sent up front in the `Authorization`
/// header, so an HTTP authentication challenge (a 401 answer) means they were rejected.
/// The challenge is cancelled — FoundationNetworking's default handling would wait
/// forever — and the client reports `WebDAVError.unauthorized`.
final class ChallengeRejecter: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        if challenge.protectionSpace.authenticationMethod == "NSURLAuthenticationMethodServerTrust" {
            completionHandler(.performDefaultHandling, nil)
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}

/// Counts of requests sent, by method (retries count again), safe to read from any task.
public final class RequestStats: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func record(_ method: String) {
        lock.lock(); counts[method, default: 0] += 1; lock.unlock()
    }

    /// Requests sent with `method`.
    public func count(_ method: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        return counts[method] ?? 0
    }

    /// All requests sent.
    public var total: Int {
        lock.lock(); defer { lock.unlock() }
        return counts.values.reduce(0, +)
    }

    /// `GET 1, PUT 2` — methods in alphabetical order.
    public var summary: String {
        lock.lock(); defer { lock.unlock() }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
