#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import WebDAV

/// Where the WebDAV user name and password come from — never from a command-line
/// argument (it would show in `ps` and shell history) and never printed.
///
/// User name: `--user`, else `DOSSIER_WEBDAV_USER`, else the netrc entry's `login`.
/// Password, first that applies:
/// 1. `DOSSIER_WEBDAV_PASSWORD`, or the file descriptor in `DOSSIER_WEBDAV_PASSWORD_FD`;
/// 2. a netrc-style file: `--netrc FILE`, else `$NETRC`, else `~/.netrc` if present —
///    the `machine` entry for the URL's host (then `default`);
/// 3. a prompt on the terminal, without echo.
public enum WebDAVLogin {
    public static let passwordVariable = "DOSSIER_WEBDAV_PASSWORD"
    public static let userVariable = "DOSSIER_WEBDAV_USER"

    public static func credentials(for url: URL, user: String?, netrc: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Credentials {
        // A password in the URL is refused before any password is looked for or asked.
        try WebDAVClient.refusePassword(in: url)
        let host = url.host ?? ""
        let givenUser = user ?? environment[userVariable].flatMap { $0.isEmpty ? nil : $0 } ?? url.user
        if environment[passwordVariable] != nil || environment[passwordVariable + "_FD"] != nil {
            // The password from the variable; without a user, the netrc entry's login.
            let fromNetrc = givenUser == nil ? try netrcFile(netrc, environment)?.file.login(host: host) : nil
            guard let u = givenUser ?? fromNetrc else { throw noUser(url) }
            let pw = try SecretInput.read(prompt: "", environment: passwordVariable)
            return Credentials(user: u, password: pw)
        }
        if let found = try netrcFile(netrc, environment) {
            if let c = found.file.credentials(host: host, user: givenUser) { return c }
            if netrc != nil {
                throw DossierError(file: found.path, "no `machine \(host)` (or `default`) entry with a password")
            }
        }
        guard let u = givenUser else { throw noUser(url) }
        let pw = try SecretInput.read(prompt: "WebDAV password for \(u) at \(host): ", environment: passwordVariable)
        return Credentials(user: u, password: pw)
    }

    /// The netrc-style file to read (`--netrc FILE`, else `$NETRC`, else `~/.netrc` if
    /// present), parsed, or nil when there is none.
    static func netrcFile(
        _ netrc: String?, _ environment: [String: String]
    ) throws -> (path: String, file: NetrcFile)? {
        var netrcPath = netrc ?? environment["NETRC"]
        if netrcPath == nil, let home = environment["HOME"] {
            let p = home + "/.netrc"
            if FileManager.default.fileExists(atPath: p) { netrcPath = p }
        }
        guard let netrcPath else { return nil }
        guard let data = FileManager.default.contents(atPath: netrcPath),
            let text = String(data: data, encoding: .utf8)
        else {
            throw DossierError(file: netrcPath, "cannot read this netrc file")
        }
        return (netrcPath, NetrcFile(text: text))
    }

    static func noUser(_ url: URL) -> DossierError {
        DossierError(
            "no WebDAV user name for \(url.host ?? url.absoluteString): give --user NAME, set \(userVariable), or add "
                + "a netrc entry"
        )
    }
}
