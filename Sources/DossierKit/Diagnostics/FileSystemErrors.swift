import Foundation

/// Plain-language messages for file-system errors (docs/limits.md, "File-system
/// errors"): instead of `Error Domain=NSCocoaErrorDomain Code=513 …`, the path and what
/// to do. Used for any error that reaches the command line without a message of its own.
public enum FileSystemErrors {
    /// The POSIX error behind `error` (a `POSIXError`, an `NSError` of that domain, or a
    /// Cocoa file error whose underlying error is one) and the path it names, if any.
    static func cause(_ error: Error) -> (errno: Int32?, cocoa: Int?, path: String?) {
        let ns = error as NSError
        var path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        var code: Int32? = ns.domain == NSPOSIXErrorDomain ? Int32(ns.code) : nil
        if let under = ns.userInfo[NSUnderlyingErrorKey] as? NSError {
            if under.domain == NSPOSIXErrorDomain, code == nil { code = Int32(under.code) }
            if path == nil { path = under.userInfo[NSFilePathErrorKey] as? String }
        }
        return (code, ns.domain == NSCocoaErrorDomain ? ns.code : nil, path)
    }

    /// A readable error for `error`, or nil when it is not a file-system error.
    public static func describe(_ error: Error) -> DossierError? {
        let (code, cocoa, path) = cause(error)
        let what: String
        switch (code, cocoa) {
        case (Int32(ENOSPC)?, _), (Int32(EDQUOT)?, _), (_, 640):
            what = "the disk is full (no space left on the device, or the quota is used up); free some space or "
                + "choose a folder on another disk, then run the command again"
        case (Int32(EROFS)?, _), (_, 642):
            what = "this folder is on a read-only disk; choose a writable folder (or make the disk writable), then "
                + "run the command again"
        case (Int32(EFBIG)?, _), (_, 263):
            what = "the file is too large for this file system or for the size limit set for this process "
                + "(`ulimit -f`); write it to another disk or raise the limit"
        case (Int32(EACCES)?, _), (Int32(EPERM)?, _), (_, 513), (_, 257):
            what = "permission denied; make the file and its folder readable and writable for you "
                + "(or choose another folder), then run the command again"
        case (Int32(ENOENT)?, _), (_, 4), (_, 260):
            what = "no such file or folder; check the path"
        case (Int32(ENAMETOOLONG)?, _):
            what = "the name is too long for this file system; choose a shorter name"
        case (Int32(EIO)?, _):
            what = "the disk reported an input/output error; check the disk, then run the command again"
        default:
            return nil
        }
        return DossierError(file: path, what)
    }
}
