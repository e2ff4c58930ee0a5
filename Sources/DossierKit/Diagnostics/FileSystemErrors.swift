#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Plain-language messages for file-system errors (docs/limits.md, "File-system
/// errors"): instead of `Error Domain=NSCocoaErrorDomain Code=513 …`, the path and what
/// to do. Used for any error that reaches the command line without a message of its own.
public enum FileSystemErrors {
    /// The POSIX error behind `error` (a `POSIXError`, or a Cocoa file error — which
    /// FoundationEssentials' file calls throw — whose underlying error is one) and the path
    /// it names, if any.
    static func cause(_ error: Error) -> (errno: Int32?, cocoa: Int?, path: String?) {
        if let posix = error as? POSIXError { return (posix.code.rawValue, nil, nil) }
        guard let cocoa = error as? CocoaError else { return (nil, nil, nil) }
        let code = (cocoa.underlying as? POSIXError)?.code.rawValue
        return (code, cocoa.code.rawValue, cocoa.filePath ?? cocoa.url?.path)
    }

    /// A readable error for `error`, or nil when it is not a file-system error: the
    /// advice of docs/limits.md, else the system's words for its error number (`strerror`).
    public static func describe(_ error: Error) -> DossierError? {
        let (code, cocoa, path) = cause(error)
        guard let what = advice(errno: code, cocoa: cocoa) ?? code.map({ String(cString: strerror($0)) }) else {
            return nil
        }
        return DossierError(file: path, what)
    }

    /// The error for a failed system call on `path`: `doing` (e.g. "cannot write output
    /// file"), then the plain advice for `errno` (its `strerror` text when there is none).
    public static func failed(_ path: String, _ doing: String, errno code: Int32 = errno) -> DossierError {
        DossierError(file: path, "\(doing): " + (advice(errno: code, cocoa: nil) ?? String(cString: strerror(code))))
    }

    /// The error for an input that could not be read: `<path>: <advice>` for the errors
    /// the table has words for (permission denied, …), else `cannot read file (<strerror>)`.
    public static func unreadable(_ path: String, errno code: Int32) -> DossierError {
        DossierError(file: path,
                     advice(errno: code, cocoa: nil) ?? "cannot read file (\(String(cString: strerror(code))))")
    }

    /// What went wrong and what to do, for a POSIX error number or a Cocoa file error code
    /// (the Cocoa codes stand for the POSIX errors ``ErrnoAdvice`` words).
    static func advice(errno code: Int32?, cocoa: Int?) -> String? {
        if let code, let words = ErrnoAdvice.advice(code) { return words }
        let stands: [Int: Int32] = [640: ENOSPC, 642: EROFS, 263: EFBIG, 513: EACCES, 257: EACCES,
                                    4: ENOENT, 260: ENOENT]
        return cocoa.flatMap { stands[$0] }.flatMap(ErrnoAdvice.advice)
    }
}
