#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

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

    /// A readable error for `error`, or nil when it is not a file-system error.
    public static func describe(_ error: Error) -> DossierError? {
        let (code, cocoa, path) = cause(error)
        guard let what = advice(errno: code, cocoa: cocoa) else { return nil }
        return DossierError(file: path, what)
    }

    /// The error for a failed system call on `path`: `doing` (e.g. "cannot write output
    /// file"), then the plain advice for `errno` (its `strerror` text when there is none).
    public static func failed(_ path: String, _ doing: String, errno code: Int32 = errno) -> DossierError {
        DossierError(file: path, "\(doing): " + (advice(errno: code, cocoa: nil) ?? String(cString: strerror(code))))
    }

    /// What went wrong and what to do, for a POSIX error number or a Cocoa file error code.
    static func advice(errno code: Int32?, cocoa: Int?) -> String? {
        switch (code, cocoa) {
        case (ENOSPC?, _), (EDQUOT?, _), (_, 640?):
            return "the disk is full (no space left on the device, or the quota is used up); free some space or "
                + "choose a folder on another disk, then run the command again"
        case (EROFS?, _), (_, 642?):
            return "this folder is on a read-only disk; choose a writable folder (or make the disk writable), then "
                + "run the command again"
        case (EFBIG?, _), (_, 263?):
            return "the file is too large for this file system or for the size limit set for this process "
                + "(`ulimit -f`); write it to another disk or raise the limit"
        case (EACCES?, _), (EPERM?, _), (_, 513?), (_, 257?):
            return "permission denied; make the file and its folder readable and writable for you "
                + "(or choose another folder), then run the command again"
        case (ENOENT?, _), (_, 4?), (_, 260?):
            return "no such file or folder; check the path"
        case (ENAMETOOLONG?, _):
            return "the name is too long for this file system; choose a shorter name"
        case (EIO?, _):
            return "the disk reported an input/output error; check the disk, then run the command again"
        default:
            return nil
        }
    }
}
