import Foundation
import Testing
@testable import WebDAV

@Test func refusesPasswordsOverPlainHTTPToRemoteHosts() {
    let c = Credentials(user: "alice", password: "pw-secret")
    #expect(throws: WebDAVError.self) {
        try WebDAVClient(baseURL: URL(string: "http://dav.example.org/site/")!, credentials: c)
    }
    #expect(throws: Never.self) {
        try WebDAVClient(baseURL: URL(string: "https://dav.example.org/site/")!, credentials: c)
    }
    #expect(throws: Never.self) {
        try WebDAVClient(baseURL: URL(string: "http://127.0.0.1:8080/site/")!, credentials: c)
    }
    #expect(throws: Never.self) { try WebDAVClient(baseURL: URL(string: "http://localhost/site/")!, credentials: c) }
    #expect(throws: Never.self) { try WebDAVClient(baseURL: URL(string: "http://[::1]:80/")!, credentials: c) }
}

@Test func refusesPasswordsInTheURLWithoutEchoingThem() {
    do {
        _ = try WebDAVClient(baseURL: URL(string: "https://bob:hunter2@dav.example.org/")!, credentials: nil)
        Issue.record("expected an error")
    } catch {
        #expect(!String(describing: error).contains("hunter2"))
    }
}

@Test func credentialsNeverPrintThePassword() {
    let c = Credentials(user: "alice", password: "pw-secret")
    #expect(!"\(c)".contains("pw-secret"))
    #expect(!String(reflecting: c).contains("pw-secret"))
    #expect(c.authorizationHeader == "Basic " + Data("alice:pw-secret".utf8).base64EncodedString())
}

@Test func statusCodesMapToActionableErrors() {
    let u = "https://h/x"
    #expect(WebDAVError.from(status: 401, url: u, method: "GET") == .unauthorized(url: u))
    #expect(WebDAVError.from(status: 412, url: u, method: "PUT") == .preconditionFailed(url: u, method: "PUT"))
    #expect(WebDAVError.from(status: 423, url: u, method: "PUT") == .locked(url: u))
    #expect(WebDAVError.from(status: 507, url: u, method: "PUT") == .insufficientStorage(url: u))
    #expect(WebDAVError.from(status: 418, url: u, method: "PUT") == .status(418, url: u, method: "PUT"))
    #expect(WebDAVError.unauthorized(url: u).description.contains("401"))
    for code in [403, 404, 409] { #expect(WebDAVError.from(status: code, url: u, method: "PUT").httpStatus == code) }
}

/// A loopback port with nothing listening: every attempt is refused, so the client
/// retries `maxAttempts` times and then reports the host unreachable.
@Test func retriesRefusedConnectionsThenReportsUnreachable() async throws {
    let port = try closedLoopbackPort()
    let client = try WebDAVClient(
        baseURL: URL(string: "http://127.0.0.1:\(port)/")!, credentials: Credentials(user: "a", password: "b"),
        options: .init(maxAttempts: 3, initialBackoff: 0.01, timeout: 5))
    await #expect(throws: WebDAVError.self) { _ = try await client.get("x") }
    #expect(client.stats.count("GET") == 3)
    do { _ = try await client.get("x") } catch let e as WebDAVError {
        if case .unreachable = e {} else { Issue.record("expected unreachable, got \(e)") }
        #expect(!e.description.contains("b@") && !e.description.contains("Basic"))
    }
}

/// Binds a socket to 127.0.0.1:0, reads the port the kernel chose, and closes it.
func closedLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    try withUnsafeMutablePointer(to: &addr) { p in
        try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
            guard bind(fd, sp, len) == 0, getsockname(fd, sp, &len) == 0 else { throw POSIXError(.EADDRINUSE) }
        }
    }
    return UInt16(bigEndian: addr.sin_port)
}
