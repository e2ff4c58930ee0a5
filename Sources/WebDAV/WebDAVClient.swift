#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// A small WebDAV client (RFC 4918) over ``HTTPTransport`` (libcurl, loaded at run
/// time): PROPFIND, GET, PUT (with
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
        /// The `--ca-file` option: a PEM file of certificate authorities to trust instead
        /// of the system's (see ``TrustStore``; `SSL_CERT_FILE` applies when this is nil).
        public var caFile: String? = nil
        /// A CA file remembered from an earlier `--ca-file` (vault sync's state file):
        /// used when `caFile` is nil, before `SSL_CERT_FILE`.
        public var rememberedCAFile: TrustStore.Remembered? = nil
        /// The longest answer a listing (`PROPFIND`), or a GET given no limit of its own,
        /// may have: a server that keeps sending is stopped there, not kept in memory.
        public var maxAnswerBytes = 256 << 20
        public init(maxAttempts: Int = 4, initialBackoff: Double = 0.25, timeout: Double = 30, caFile: String? = nil,
                    rememberedCAFile: TrustStore.Remembered? = nil) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.timeout = timeout
            self.caFile = caFile
            self.rememberedCAFile = rememberedCAFile
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
    let transport: HTTPTransport
    /// Requests sent, by method (retries included).
    public let stats = RequestStats()
    let log: (@Sendable (String) -> Void)?

    /// Creates a client. Throws `WebDAVError.insecure` when credentials would travel in
    /// clear text: Basic auth is allowed over `https`, or `http` to a loopback host only;
    /// `WebDAVError.trust` when the certificate authority file (option or
    /// `SSL_CERT_FILE`) cannot be used.
    public init(baseURL: URL, credentials: Credentials?, options: Options = Options(),
                environment: [String: String] = ProcessInfo.processInfo.environment,
                log: (@Sendable (String) -> Void)? = nil) throws {
        var text = baseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw WebDAVError.insecure("\(baseURL.absoluteString): not an http(s) URL of a WebDAV folder")
        }
        try WebDAVClient.refusePassword(in: url)
        if credentials != nil, scheme == "http", !WebDAVClient.isLoopback(host) {
            throw WebDAVError.insecure(
                "\(url.absoluteString): refusing to send a password over plain http to \(host); use https")
        }
        // A user name in the URL (`http://alice@host/`) names the user only: no request
        // carries it (a MOVE's Destination would not match the server's own URLs).
        self.baseURL = WebDAVClient.withoutUserInfo(url)
        self.credentials = credentials
        self.options = options
        self.log = log
        let caFile = try TrustStore.caFile(
            option: options.caFile, remembered: options.caFile == nil ? options.rememberedCAFile : nil,
            environment: environment)
        self.transport = HTTPTransport(
            caFile: caFile, idleTimeout: options.timeout, totalTimeout: max(options.timeout * 10, 300))
    }

    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimming(scalarsIn: "[]")
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
    private static let segmentAllowed = Set(
        ("abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "0123456789" + "-._~!$&'()*+,=:@").utf8)

    /// Percent-encodes each segment of a relative path.
    public static func encode(path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true)
            .map { segment in
                segment.utf8.map {
                    segmentAllowed.contains($0) ? String(UnicodeScalar($0)) : "%" + [$0].upperHexString
                }.joined()
            }
            .joined(separator: "/")
    }

    /// The absolute URL of `path` (a collection URL ends in `/`).
    public func url(_ path: String, collection: Bool = false) -> URL {
        var s = baseURL.absoluteString + WebDAVClient.encode(path: path)
        if collection && !s.hasSuffix("/") { s += "/" }
        return URL(string: s)!
    }

    // MARK: - Methods

    /// PROPFIND with `Depth: 0` or `1`: the resource and (depth 1) its members.
    public func propfind(_ path: String, depth: Int = 1) async throws -> [DAVResource] {
        let body = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind \
        xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/>\
        <d:getlastmodified/><d:getcontentlength/></d:prop></d:propfind>
        """
        let target = url(path, collection: true)
        let (data, _) = try await send(
            "PROPFIND", target, headers: ["Depth": String(depth), "Content-Type": "application/xml; charset=utf-8"],
            body: Data(body.utf8), accept: [207])
        do {
            // Members outside the folder asked about (or named with `..`) are left out.
            return try MultistatusParser.parse(data).compactMap { item in
                guard let path = relativePathBelowBase(href: item.href) else { return nil }
                return DAVResource(path: path, href: item.href.percentDecoded() ?? item.href,
                                   isCollection: item.resource.isCollection, etag: item.resource.etag,
                                   lastModified: item.resource.lastModified,
                                   contentLength: item.resource.contentLength)
            }
        } catch WebDAVError.badResponse(_, let detail) {
            throw WebDAVError.badResponse(url: target.absoluteString, detail: detail)
        }
    }

    /// The properties of one resource, or nil when it does not exist.
    public func stat(_ path: String) async throws -> DAVResource? {
        do {
            let target = url(path)
            let body = #"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:">"#
                + #"<d:prop><d:resourcetype/><d:getetag/><d:getlastmodified/><d:getcontentlength/>"#
                + #"</d:prop></d:propfind>"#
            let (data, _) = try await send(
                "PROPFIND", target, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                body: Data(body.utf8),
                accept: [207])
            return try MultistatusParser.parse(data).first.map { item in
                DAVResource(path: relativePath(href: item.href), href: item.href.percentDecoded() ?? item.href,
                            isCollection: item.resource.isCollection, etag: item.resource.etag,
                            lastModified: item.resource.lastModified, contentLength: item.resource.contentLength)
            }
        } catch let e as WebDAVError where e.httpStatus == 404 {
            return nil
        }
    }

    /// GET: the body and entity tag. Throws `.notFound` when it does not exist. `maxBytes`:
    /// the longest answer taken (nil: `options.maxAnswerBytes`; 0: no limit, for a file's
    /// content, whose size the caller does not bound).
    public func get(_ path: String, maxBytes: Int? = nil) async throws -> (data: Data, etag: String?) {
        let (data, response) = try await send("GET", url(path), maxBody: maxBytes, accept: [200])
        return (data, WebDAVClient.etag(response))
    }

    /// GET, or nil when the resource does not exist.
    public func getIfExists(_ path: String, maxBytes: Int? = nil) async throws -> (data: Data, etag: String?)? {
        do { return try await get(path, maxBytes: maxBytes) } catch let e as WebDAVError where e.httpStatus == 404 {
            return nil
        }
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
    public func delete(
        _ path: String, collection: Bool = false, precondition: Precondition = .none
    ) async throws -> Bool {
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
    public func move(
        _ from: String, to: String, overwrite: Bool = true, ifDestinationMatches tag: String? = nil
    ) async throws {
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

    static func etag(_ response: HTTPTransport.Response) -> String? {
        response.header("ETag").map(ETag.normalize)
    }

    /// Sends one request with retries; returns the body and response when the status is
    /// in `accept`, otherwise throws the matching `WebDAVError`.
    func send(_ method: String, _ target: URL, headers: [String: String] = [:], body: Data? = nil,
              file: HTTPTransport.BodyFile? = nil, maxBody: Int? = nil, sinkFD: Int32 = -1,
              accept: Set<Int>) async throws -> (Data, HTTPTransport.Response) {
        var fields = headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let credentials { fields.append(("Authorization", credentials.authorizationHeader)) }
        // libcurl adds `Expect: 100-continue` to large bodies and then waits up to a
        // second for a `100 Continue` many WebDAV servers never send: turn it off.
        var payload = body
        if method == "PUT" && payload == nil && file == nil { payload = Data() }
        if payload != nil || file != nil { fields.append(("Expect", "")) }
        let shown = target.absoluteString
        // A write point for the crash tests (debug builds only; see FaultPoint).
        let fault: FaultPoint.Action = ["PUT", "MKCOL", "MOVE", "DELETE"].contains(method)
            ? try FaultPoint.hit("\(method) \(relativePath(href: target.path))") : .proceed
        var attempt = 1
        while true {
            stats.record(method)
            var retryable: WebDAVError
            do {
                let response = try await transport.send(method, target, headers: fields, body: payload, file: file,
                                                        maxBody: maxBody ?? options.maxAnswerBytes, sinkFD: sinkFD)
                log?("\(method) \(shown) → \(response.status)")
                if fault == .failAfterWrite { throw FaultPoint.lostAnswer(method) }
                if accept.contains(response.status) { return (response.body, response) }
                let error = WebDAVError.from(status: response.status, url: shown, method: method)
                guard [500, 502, 503, 504].contains(response.status) else { throw error }
                retryable = error
            } catch let e as WebDAVError {
                throw e
            } catch let e as FaultPoint.Injected {
                throw e
            } catch HTTPTransport.Failure.bodyTooLarge(let limit) {
                throw WebDAVError.answerTooLong(url: shown, limit: limit)
            } catch HTTPTransport.Failure.sinkFailed(let code) {
                throw WebDAVError.cannotKeepAnswer(url: shown, detail: ErrnoAdvice.words(code))
            } catch HTTPTransport.Failure.unavailable(let message) {
                throw WebDAVError.transportUnavailable(message)
            } catch HTTPTransport.Failure.transfer(let code, let message) {
                let mapped = WebDAVClient.map(curlCode: code, message: message, url: shown, caFile: transport.caFile)
                log?("\(method) \(shown) → \(mapped)")
                // Connection-level failures (refused, reset, cut short, timed out) are
                // retried; TLS, malformed-URL and unknown-host failures are not.
                switch mapped {
                case .tls, .badResponse: throw mapped
                default: if [1, 3, 6].contains(code) { throw mapped }
                }
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

    /// A libcurl result code (CURLE_*) as a `WebDAVError`. curl's messages name the host
    /// and port but never the URL's user-info, and Dossier never puts credentials in URLs.
    static func map(curlCode code: Int32, message: String, url: String, caFile: String?) -> WebDAVError {
        switch code {
        case 28:   // OPERATION_TIMEDOUT
            return .timeout(url: url)
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 80, 82, 83, 90, 91, 98:   // SSL_* / PEER_FAILED_VERIFICATION
            return .tls(
                url: url,
                detail: message
                    + (caFile.map { " — trusted authorities from \($0)" }
                        ?? " — trusted authorities: the system's"))
        case 77:   // SSL_CACERT_BADFILE
            return .tls(
                url: url, detail: "the certificate authority file \(caFile ?? "") could not be loaded: \(message)")
        case 6:    // COULDNT_RESOLVE_HOST
            return .unreachable(url: url, detail: "unknown host")
        case 7:    // COULDNT_CONNECT
            return .unreachable(url: url, detail: "connection refused")
        case 47:   // TOO_MANY_REDIRECTS
            return .badResponse(url: url, detail: "too many redirects")
        case 52, 55, 56, 18:   // GOT_NOTHING, SEND_ERROR, RECV_ERROR, PARTIAL_FILE
            return .unreachable(url: url, detail: "connection lost (\(message))")
        default:
            return .unreachable(url: url, detail: "\(message) [curl \(code)]")
        }
    }
}

/// Counts of requests sent, by method (retries count again), safe to read from any task.
public final class RequestStats: @unchecked Sendable {
    private let lock = PlainLock()
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
