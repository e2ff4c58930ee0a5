import Foundation
import Testing
@testable import WebDAV

private func temporaryFile(_ text: String) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("dossier-ca-\(UUID().uuidString).pem")
    try Data(text.utf8).write(to: url)
    return url.path
}

private let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

@Test func caFileOptionComesBeforeSSLCertFileWhichComesBeforeTheSystem() throws {
    let option = try temporaryFile(pem), env = try temporaryFile(pem)
    #expect(try TrustStore.caFile(option: option, environment: ["SSL_CERT_FILE": env]) == option)
    #expect(try TrustStore.caFile(option: nil, environment: ["SSL_CERT_FILE": env]) == env)
    #expect(try TrustStore.caFile(option: "", environment: ["SSL_CERT_FILE": env]) == env)
    #expect(try TrustStore.caFile(option: nil, environment: ["SSL_CERT_FILE": ""]) == nil)
    #expect(try TrustStore.caFile(option: nil, environment: [:]) == nil)
}

@Test func unusableCAFilesAreRefusedNamingTheFileAndItsOrigin() throws {
    do {
        _ = try TrustStore.caFile(option: "/no/such/ca.pem", environment: [:])
        Issue.record("expected an error")
    } catch {
        #expect(error.description == "certificate authority file: --ca-file /no/such/ca.pem: no such file")
    }
    let junk = try temporaryFile("hello\n")
    do {
        _ = try TrustStore.caFile(option: nil, environment: ["SSL_CERT_FILE": junk])
        Issue.record("expected an error")
    } catch {
        #expect(error.description.contains("SSL_CERT_FILE \(junk): holds no PEM certificate"))
    }
    #expect(throws: WebDAVError.self) { try TrustStore.caFile(option: NSTemporaryDirectory(), environment: [:]) }
}

@Test func clientRefusesAMissingCAFileBeforeAnyRequest() {
    #expect(throws: WebDAVError.trust("--ca-file /no/ca.pem: no such file")) {
        try WebDAVClient(baseURL: URL(string: "https://dav.example.org/")!, credentials: nil,
                         options: .init(caFile: "/no/ca.pem"), environment: [:])
    }
}

@Test func responseHeadersAreParsedFromTheLastAnswerCaseInsensitively() {
    let block = "HTTP/1.1 201 Created\r\nETag: \"abc\"\r\nlocation: /x/\r\nX-Empty:\r\n\r\n"
    let headers = HTTPTransport.parseHeaders(block)
    let r = HTTPTransport.Response(status: 201, headers: headers, body: Data())
    #expect(r.header("etag") == "\"abc\"")
    #expect(r.header("Location") == "/x/")
    #expect(r.header("x-empty") == "")
    #expect(r.header("missing") == nil)
}

@Test func curlFailuresMapToActionableErrors() {
    let u = "https://h/x"
    #expect(WebDAVClient.map(curlCode: 28, message: "t", url: u, caFile: nil) == .timeout(url: u))
    #expect(
        WebDAVClient.map(curlCode: 7, message: "m", url: u, caFile: nil)
            == .unreachable(url: u, detail: "connection refused"))
    if case .tls(_, let detail) = WebDAVClient.map(
        curlCode: 60, message: "SSL certificate problem", url: u, caFile: "/ca.pem")
    {
        #expect(detail.contains("/ca.pem"))
    } else {
        Issue.record("60 is a TLS failure")
    }
    #expect(WebDAVClient.map(curlCode: 60, message: "x", url: u, caFile: nil).description.contains("--ca-file"))
}

/// A real request over libcurl to a closed loopback port: the transport loads libcurl
/// and reports curl's "couldn't connect" (7).
@Test func transportReportsARefusedConnection() async throws {
    let port = try closedLoopbackPort()
    let t = HTTPTransport(caFile: nil, idleTimeout: 5, totalTimeout: 10)
    do {
        _ = try await t.send("GET", URL(string: "http://127.0.0.1:\(port)/")!, headers: [], body: nil)
        Issue.record("expected a failure")
    } catch HTTPTransport.Failure.transfer(let code, _) {
        #expect(code == 7)
    }
}
