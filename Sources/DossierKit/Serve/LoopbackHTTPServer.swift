#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TextBasics

/// The HTTP server of `dossier serve`: HTTP/1.1 on 127.0.0.1 only, `GET` and `HEAD`,
/// one request per connection (`Connection: close`), one thread per connection.
///
/// It replaces the FlyingFox package, whose HTTP module links FoundationNetworking (and
/// so libcurl and its ~50 libraries into every start-up of `dossier`, issue #20). A
/// preview server for one person's browser needs no more than this.
final class LoopbackHTTPServer: @unchecked Sendable {
    /// One answer. `Content-Length` and `Connection: close` are added when it is sent.
    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body = Data()
    }

    /// Why the server could not start listening.
    struct ListenError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { code == EADDRINUSE ? "the port is already in use" : String(cString: strerror(code)) }
    }

    typealias Handler = @Sendable (_ method: String, _ path: String) -> Response

    private let fd: Int32
    /// The port listened on (the kernel's choice when 0 was asked for).
    let port: UInt16
    private let handler: Handler

    /// Binds 127.0.0.1:`port` and listens; throws `ListenError` (e.g. the port is taken).
    init(port: UInt16, handler: @escaping Handler) throws {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw ListenError(code: errno) }
        var yes: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
                bind(s, sp, len) == 0 && listen(s, 64) == 0 && getsockname(s, sp, &len) == 0
            }
        }
        guard bound else {
            let code = errno
            close(s)
            throw ListenError(code: code)
        }
        self.fd = s
        self.port = UInt16(bigEndian: addr.sin_port)
        self.handler = handler
    }

    /// Accepts connections until the process ends.
    func run() async {
        let listener = fd
        let handler = self.handler
        let port = self.port
        detachThread {
            while true {
                let c = accept(listener, nil, nil)
                if c < 0 {
                    if errno == EINTR || errno == ECONNABORTED || errno == EMFILE { continue }
                    return
                }
                detachThread { LoopbackHTTPServer.serve(c, port: port, handler: handler) }
            }
        }
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }

    /// Reads one request head (at most 64 KiB, 10 s), answers, closes.
    static func serve(_ c: Int32, port: UInt16, handler: Handler) {
        defer { close(c) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var complete = false
        while !complete && head.count < 65_536 {
            let n = recv(c, &chunk, chunk.count, 0)
            if n <= 0 { return }
            let from = max(0, head.count - 3)   // the blank line may straddle two reads
            head += chunk[0..<n]
            complete = head.count >= 4 && (from...(head.count - 4)).contains { Array(head[$0..<$0 + 4]) == end }
        }
        // A head with no blank line in its first 64 KiB is refused whole: answering it would
        // judge its Host from a cut head (a Host after the cut would go unseen).
        let firstLine = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = firstLine.split(separator: " ")
        var response: Response
        var method = ""
        if !complete {
            response = Response(status: 431, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                body: Data("the request head is longer than 64 KiB\n".utf8))
        } else if parts.count == 3, parts[2].hasPrefix("HTTP/1.") {
            method = String(parts[0])
            var target = String(parts[1])
            if let cut = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { target = String(target[..<cut]) }
            if !hostIsLoopback(head) {
                response = Response(status: 403, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                    body: Data(otherHost(port).utf8))
            } else if method == "GET" || method == "HEAD" {
                response = target.hasPrefix("/") ? handler("GET", target) : Response(status: 400)
            } else {
                response = Response(status: 405, headers: [("Allow", "GET, HEAD")])
            }
        } else {
            response = Response(status: 400)
        }
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (k, v) in response.headers { text += "\(k): \(v)\r\n" }
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var out = Data(text.utf8)
        if method != "HEAD" { out.append(response.body) }
        out.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(c, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
        shutdown(c, Int32(SHUT_WR))
    }

    /// Whether the request's `Host` may be answered: absent (HTTP/1.0), `localhost`, or an
    /// IP address (`127.0.0.1`, `[::1]`, any dotted quad or bracketed IPv6), with any port
    /// (a tunnel such as `ssh -L 9000:127.0.0.1:8000` sends its own). A domain name is
    /// refused: a page of another site whose name was made to resolve to 127.0.0.1 (DNS
    /// rebinding) sends that name, and must not read the preview.
    static func hostIsLoopback(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }.dropFirst()
        guard let line = lines.first(where: { $0.lowercased().hasPrefix("host:") }) else { return true }
        let value = String(line.dropFirst(5)).trimmingWhitespace().lowercased()
        if value.hasPrefix("[") {   // [IPv6]:port
            guard let close = value.firstIndex(of: "]") else { return false }
            let address = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...]
            return !address.isEmpty && address.utf8.allSatisfy { isHex($0) || $0 == 58 || $0 == 46 }
                && (rest.isEmpty || (rest.hasPrefix(":") && digits(rest.dropFirst())))
        }
        var host = Substring(value)
        if let colon = host.lastIndex(of: ":") {
            guard digits(host[host.index(after: colon)...]) else { return false }
            host = host[..<colon]
        }
        if host == "localhost" { return true }
        let quad = host.split(separator: ".", omittingEmptySubsequences: false)
        return quad.count == 4 && quad.allSatisfy { $0.count <= 3 && digits($0) }
    }

    private static func digits(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
    private static func isHex(_ b: UInt8) -> Bool { (48...57).contains(b) || (97...102).contains(b) }

    static func otherHost(_ port: UInt16) -> String {
        "dossier serve answers only http://127.0.0.1:\(port)/ or http://localhost:\(port)/ (or an IP address); "
            + "this request named another host (a page of another site may be trying to read the preview)\n"
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 431: return "Request Header Fields Too Large"
        default: return "Status"
        }
    }
}
