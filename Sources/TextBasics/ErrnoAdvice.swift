#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Plain words for a failed file operation's `errno`: what went wrong and what to do
/// (docs/limits.md, "File-system errors"), shared by the site builder, the vault and the
/// keystore so a full disk reads the same everywhere.
public enum ErrnoAdvice {
    /// What went wrong and what to do, or nil for an error number without advice.
    public static func advice(_ code: Int32) -> String? {
        switch code {
        case ENOSPC, EDQUOT:
            return "the disk is full (no space left on the device, or the quota is used up); free some space or "
                + "choose a folder on another disk, then run the command again"
        case EROFS:
            return "this folder is on a read-only disk; choose a writable folder (or make the disk writable), then "
                + "run the command again"
        case EFBIG:
            return "the file is too large for this file system or for the size limit set for this process "
                + "(`ulimit -f`); write it to another disk or raise the limit"
        case EACCES, EPERM:
            return "permission denied; make the file and its folder readable and writable for you "
                + "(or choose another folder), then run the command again"
        case ENOENT:
            return "no such file or folder; check the path"
        case ENAMETOOLONG:
            return "the name is too long for this file system; choose a shorter name"
        case EIO:
            return "the disk reported an input/output error; check the disk, then run the command again"
        default:
            return nil
        }
    }

    /// ``advice(_:)``, else the system's text for `code` (strerror).
    public static func words(_ code: Int32) -> String {
        advice(code) ?? String(cString: strerror(code))
    }
}
