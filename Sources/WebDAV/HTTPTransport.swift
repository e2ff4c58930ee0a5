#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import CCurlRuntime
import TextBasics

/// HTTP/1.1 over libcurl, loaded at run time (dlopen of `libcurl.so.4`, then
/// `libcurl-gnutls.so.4`) the first time a request is sent — so commands that never talk
/// to a server never load it (docs/publish.md, "HTTP transport").
///
/// Each request runs on its own thread (libcurl blocks); idle easy handles are kept in a
/// pool so connections (and TLS sessions) are reused between requests.
public final class HTTPTransport: @unchecked Sendable {
    /// One HTTP answer.
    public struct Response: Sendable {
        public var status: Int
        /// Header lines of the final answer, in order, names as sent.
        public var headers: [(name: String, value: String)]
        public var body: Data

        /// The first header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.equalsIgnoringCase(name) }?.value
        }
    }

    /// Why no HTTP answer arrived.
    public enum Failure: Error, Sendable {
        /// libcurl could not be loaded (message says what to install).
        case unavailable(String)
        /// libcurl's result `code` (CURLE_*) and its message.
        case transfer(code: Int32, message: String)
        /// The answer's body passed the limit the request set (the transfer was stopped).
        case bodyTooLarge(limit: Int)
        /// The answer's body could not be written to the request's file (`errno`: a full
        /// disk, a file-size limit); this side stopped the transfer.
        case sinkFailed(errno: Int32)
    }

    /// PEM file of trusted certificate authorities, or nil for the system's trust store.
    public let caFile: String?
    /// Seconds to connect, and seconds with no byte moving, before a request fails.
    public let idleTimeout: Double
    /// Seconds for a whole request.
    public let totalTimeout: Double
    private let lock = PlainLock()
    private var idle: [UnsafeMutableRawPointer] = []

    public init(caFile: String?, idleTimeout: Double, totalTimeout: Double) {
        self.caFile = caFile
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
    }

    deinit {
        for h in idle { dossier_curl_handle_free(h) }
    }

    /// Loads libcurl (once per process); throws `.unavailable` when it is missing.
    public static func load() throws(Failure) {
        var message = [CChar](repeating: 0, count: 512)
        if dossier_curl_load(&message, message.count) != 0 {
            throw .unavailable(
                String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Sends one request. `headers` are sent as given (an empty value removes a header
    /// libcurl would add, e.g. `Expect`). Redirects are followed (at most 5, and from an
    /// https URL only to https ones).
    /// With `file`, the body is `file.size` bytes read from that descriptor (from offset 0)
    /// as they are sent, never held in memory.
    /// With `maxBody` > 0, an answer longer than that many bytes is stopped and thrown
    /// as ``Failure/bodyTooLarge(limit:)``. With `sinkFD` >= 0, the answer's body is written
    /// to that descriptor (truncated first) and the response's `body` is empty.
    public func send(_ method: String, _ url: URL, headers: [(String, String)], body: Data?,
                     file: BodyFile? = nil, maxBody: Int = 0, sinkFD: Int32 = -1) async throws -> Response {
        try HTTPTransport.load()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, Error>) in
            detachThread { [self] in
                continuation.resume(with: Result {
                    try perform(method, url, headers: headers, body: body, file: file, maxBody: maxBody,
                                sinkFD: sinkFD)
                })
            }
        }
    }

    private func takeHandle() throws -> UnsafeMutableRawPointer {
        lock.lock()
        let h = idle.popLast()
        lock.unlock()
        if let h { return h }
        guard let made = dossier_curl_handle_new() else {
            throw Failure.transfer(code: 2, message: "libcurl could not start a request")
        }
        return made
    }

    private func giveBack(_ h: UnsafeMutableRawPointer) {
        lock.lock()
        idle.append(h)
        lock.unlock()
    }

    /// Blocking: one exchange on a pooled handle.
    /// A request body read from an open file.
    public struct BodyFile: Sendable { public var fd: Int32; public var size: Int }

    func perform(_ method: String, _ url: URL, headers: [(String, String)], body: Data?,
                 file: BodyFile? = nil, maxBody: Int = 0, sinkFD: Int32 = -1) throws -> Response {
        let handle = try takeHandle()
        defer { giveBack(handle) }
        // "Name:" with nothing after it tells libcurl to drop that header.
        let lines = headers.map { $0.1.isEmpty ? "\($0.0):" : "\($0.0): \($0.1)" }
        var response = dossier_http_response()
        let https = url.scheme?.lowercased() == "https"
        let rc: Int32 = withCStrings(lines) { headerPointers in
            url.absoluteString.withCString { urlPointer in
                method.withCString { methodPointer in
                    withOptionalCString(caFile) { caPointer in
                        (body ?? Data()).withUnsafeBytes { raw in
                            headerPointers.withUnsafeBufferPointer { hp in
                                var request = dossier_http_request(
                                    url: urlPointer, method: methodPointer, headers: hp.baseAddress,
                                    header_count: hp.count,
                                    body: raw.baseAddress, body_len: file?.size ?? raw.count,
                                    has_body: body == nil && file == nil ? 0 : 1, body_fd: file?.fd ?? -1,
                                    idle_timeout: max(1, Int(idleTimeout.rounded(.up))),
                                    total_timeout: max(1, Int(totalTimeout.rounded(.up))),
                                    ca_file: caPointer, follow_redirects: 1, https_only_redirects: https ? 1 : 0,
                                    max_body: max(0, maxBody), sink_fd: sinkFD)
                                return dossier_http_perform(handle, &request, &response)
                            }
                        }
                    }
                }
            }
        }
        defer { dossier_http_response_free(&response) }
        if response.body_too_large != 0 { throw Failure.bodyTooLarge(limit: maxBody) }
        if response.sink_errno != 0 { throw Failure.sinkFailed(errno: response.sink_errno) }
        guard rc == 0 else {
            let message = withUnsafeBytes(of: response.error) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw Failure.transfer(code: rc, message: message)
        }
        let data = sinkFD >= 0 ? Data() : response.body.map { Data(bytes: $0, count: response.body_len) } ?? Data()
        let block =
            response.header_block.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: response.header_len), as: UTF8.self)
            } ?? ""
        return Response(status: Int(response.status), headers: HTTPTransport.parseHeaders(block), body: data)
    }

    /// "Name: value" lines of a raw header block (the status line and blank lines skipped).
    static func parseHeaders(_ block: String) -> [(name: String, value: String)] {
        block.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).compactMap { line in
            guard !line.hasPrefix("HTTP/"), let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]).trimmingWhitespace(),
                    String(line[line.index(after: colon)...]).trimmingWhitespace())
        }
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}

/// Calls `body` with C copies of `strings`, valid for the call only.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
