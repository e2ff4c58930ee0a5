#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

extension WebDAVClient {
    /// The longest answer a GET without a limit of its own may have (`Options.maxAnswerBytes`).
    public var maxAnswerBytes: Int { options.maxAnswerBytes }

    /// GET into the open file `fd` (truncated first, written as the answer arrives: none of
    /// the body is held in memory), or nil when the resource does not exist. Returns the
    /// entity tag and the count of bytes written. An answer longer than `maxBytes` (> 0) is
    /// stopped and throws ``WebDAVError/answerTooLong(url:limit:)``.
    public func getIfExists(_ path: String, into fd: Int32, maxBytes: Int) async throws
        -> (etag: String?, count: Int)?
    {
        precondition(maxBytes > 0, "a GET into a file needs a limit")
        do {
            let (_, response) = try await send("GET", url(path), maxBody: maxBytes, sinkFD: fd, accept: [200])
            var st = Glibc.stat()
            guard fstat(fd, &st) == 0 else {
                throw WebDAVError.badResponse(url: url(path).absoluteString,
                                              detail: "its temporary copy cannot be read")
            }
            return (WebDAVClient.etag(response), Int(st.st_size))
        } catch let e as WebDAVError where e.httpStatus == 404 {
            return nil
        }
    }
}
