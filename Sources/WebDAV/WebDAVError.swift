/// What went wrong talking to a WebDAV server, phrased so a person can act on it.
///
/// Messages name the URL (never with credentials) and the HTTP status; they never
/// contain a password or an `Authorization` header.
public enum WebDAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: the server rejected the user name or password.
    case unauthorized(url: String)
    /// 403: the account may not do this here.
    case forbidden(url: String, method: String)
    /// 404 on a resource that had to exist.
    case notFound(url: String)
    /// 409: a parent collection is missing (or another conflict the server reports).
    case conflict(url: String, method: String)
    /// 412: `If-Match` / `If-None-Match` failed — someone else changed the resource.
    case preconditionFailed(url: String, method: String)
    /// 423: the resource is locked by another client.
    case locked(url: String)
    /// 507: the server is out of space.
    case insufficientStorage(url: String)
    /// Another HTTP status that is not success (after retries, for 5xx).
    case status(Int, url: String, method: String)
    /// The TLS handshake failed (bad or untrusted certificate, wrong host name).
    case tls(url: String, detail: String)
    /// The host could not be reached (DNS, connection refused, network down).
    case unreachable(url: String, detail: String)
    /// No answer within the time limit (after retries).
    case timeout(url: String)
    /// Refused before sending: e.g. a password over plain http to a remote host.
    case insecure(String)
    /// The server's answer could not be understood.
    case badResponse(url: String, detail: String)
    /// An answer longer than the request's limit: the transfer was stopped (not retried).
    case answerTooLong(url: String, limit: Int)
    /// The certificate authority file (`--ca-file`, `SSL_CERT_FILE`) cannot be used.
    case trust(String)
    /// No HTTP client library: libcurl could not be loaded.
    case transportUnavailable(String)
    /// The answer could not be written to the temporary file it goes to (`detail`: the
    /// system's reason, such as a full disk). Not the server's fault; not retried.
    case cannotKeepAnswer(url: String, detail: String)

    public var description: String {
        switch self {
        case .unauthorized(let url):
            return "\(url): the server rejected the user name or password (HTTP 401); check the credentials"
        case .forbidden(let url, let m):
            return "\(url): \(m) forbidden by the server (HTTP 403); the account may not write here"
        case .notFound(let url):
            return "\(url): not found on the server (HTTP 404)"
        case .conflict(let url, let m):
            return "\(url): \(m) failed with a conflict (HTTP 409); a parent folder is probably missing"
        case .preconditionFailed(let url, let m):
            return "\(url): \(m) refused because the file changed on the server since it was read (HTTP 412)"
        case .locked(let url):
            return "\(url): locked by another client (HTTP 423); try again later"
        case .insufficientStorage(let url):
            return "\(url): the server is out of space (HTTP 507)"
        case .status(let code, let url, let m):
            return "\(url): \(m) failed with HTTP \(code)"
        case .tls(let url, let detail):
            return
                "\(url): TLS failure (\(detail)); check the certificate and the host name, and if the server's "
                    + "certificate comes from a private certificate authority, trust it with --ca-file PATH or "
                    + "SSL_CERT_FILE=PATH"
        case .unreachable(let url, let detail):
            return "\(url): cannot reach the server (\(detail))"
        case .timeout(let url):
            return "\(url): the server did not answer in time"
        case .insecure(let message):
            return message
        case .badResponse(let url, let detail):
            return "\(url): unexpected answer from the server (\(detail))"
        case .answerTooLong(let url, let limit):
            return "\(url): unexpected answer from the server (the answer is longer than \(limit) bytes; stopped "
                + "reading it)"
        case .trust(let message):
            return "certificate authority file: \(message)"
        case .transportUnavailable(let message):
            return message
        case .cannotKeepAnswer(let url, let detail):
            return "\(url): cannot write the answer to a temporary file: \(detail); set TMPDIR to a folder with room"
        }
    }

    /// The HTTP status this error stands for, if any.
    public var httpStatus: Int? {
        switch self {
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .conflict: return 409
        case .preconditionFailed: return 412
        case .locked: return 423
        case .insufficientStorage: return 507
        case .status(let c, _, _): return c
        default: return nil
        }
    }

    /// Maps a final (non-retried) HTTP status to an error.
    static func from(status: Int, url: String, method: String) -> WebDAVError {
        switch status {
        case 401: return .unauthorized(url: url)
        case 403: return .forbidden(url: url, method: method)
        case 404: return .notFound(url: url)
        case 409: return .conflict(url: url, method: method)
        case 412: return .preconditionFailed(url: url, method: method)
        case 423: return .locked(url: url)
        case 507: return .insufficientStorage(url: url)
        default: return .status(status, url: url, method: method)
        }
    }
}
