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

/// Reads a secret (master password, keystore password, WebDAV password) without it
/// ever appearing on a command line, in `ps`, or on the screen.
///
/// Sources, first that applies:
/// 1. the environment variable `environment` (for scripts; e.g. `DOSSIER_VAULT_PASSWORD`);
/// 2. the file descriptor named by `<environment>_FD` (e.g. `DOSSIER_VAULT_PASSWORD_FD=3`),
///    first line;
/// 3. the terminal (`/dev/tty`), with echo turned off.
/// Otherwise it is an error that says how to provide it.
public enum SecretInput {
    public static func read(prompt: String, environment: String) throws -> String {
        let env = ProcessInfo.processInfo.environment
        if let v = env[environment] { return v }
        if let fdText = env[environment + "_FD"] {
            guard let fd = Int32(fdText), let line = readLine(fd: fd) else {
                throw DossierError("\(environment)_FD=\(fdText): cannot read a line from that file descriptor")
            }
            return line
        }
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else {
            let what = prompt.lowercased().trimming(scalarsIn: ": ")
            throw DossierError("no terminal to ask for the \(what); set \(environment) or \(environment)_FD")
        }
        defer { close(tty) }
        var old = termios()
        tcgetattr(tty, &old)
        var quiet = old
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(tty, TCSAFLUSH, &old)
            _ = "\n".withCString { write(tty, $0, 1) }
        }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        guard let line = readLine(fd: tty) else { throw DossierError("no input") }
        return line
    }

    /// One line from a file descriptor, without its line end.
    static func readLine(fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while Glibc.read(fd, &c, 1) == 1 {
            if c == 10 { break }
            bytes.append(c)
        }
        if bytes.last == 13 { bytes.removeLast() }
        if bytes.isEmpty && c != 10 { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension DossierError {
    /// An error with no location.
    public init(_ message: String) { self.init(file: nil as String?, line: nil, message) }
}
