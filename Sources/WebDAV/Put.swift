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

/// PUT, from memory or streamed from a file (docs/webdav.md, "Requests").
extension WebDAVClient {
    /// PUT `data` at `path`; returns the new entity tag when the server sends one.
    /// A failed precondition throws `.preconditionFailed` and changes nothing.
    @discardableResult
    public func put(_ path: String, data: Data, precondition: Precondition = .none,
                    contentType: String = "application/octet-stream") async throws -> String? {
        try await putRaw(path, data: data, precondition: precondition, contentType: contentType).map(ETag.normalize)
    }

    /// PUT like ``put(_:data:precondition:contentType:)``, returning the entity tag only
    /// when the server gave a strong one (`"abc"`, not `W/"abc"`): a tag that identifies
    /// exactly the bytes sent, so a later listing showing it proves they are there.
    public func putStrongTag(_ path: String, data: Data, precondition: Precondition = .none,
                             contentType: String = "application/octet-stream") async throws -> String? {
        guard let raw = try await putRaw(path, data: data, precondition: precondition, contentType: contentType),
              !raw.trimmingWhitespace().hasPrefix("W/") else { return nil }
        return ETag.normalize(raw)
    }

    /// PUT the file at `file` (`size` bytes), read in chunks as it is sent — memory stays
    /// flat whatever its size; returns the strong entity tag, as ``putStrongTag``.
    public func putFile(_ path: String, file: URL, size: Int64, precondition: Precondition = .none,
                        contentType: String = "application/octet-stream") async throws -> String? {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WebDAVError.unreachable(url: file.path, detail: "cannot read the file to send") }
        defer { close(fd) }
        let body = HTTPTransport.BodyFile(fd: fd, size: Int(size))
        guard let raw = try await putRaw(path, data: nil, file: body, precondition: precondition,
                                         contentType: contentType),
              !raw.trimmingWhitespace().hasPrefix("W/") else { return nil }
        return ETag.normalize(raw)
    }

    func putRaw(_ path: String, data: Data?, file: HTTPTransport.BodyFile? = nil, precondition: Precondition,
                        contentType: String) async throws -> String? {
        var headers = ["Content-Type": contentType]
        switch precondition {
        case .none: break
        case .ifMatch(let tag): headers["If-Match"] = ETag.quoted(tag)
        case .ifNoneMatchAny: headers["If-None-Match"] = "*"
        }
        let (_, response) = try await send("PUT", url(path), headers: headers, body: data, file: file,
                                           accept: [200, 201, 204])
        return response.header("ETag")
    }
}
