#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Where the keystore is

/// The keystore path of a `dossier sms` command (docs/securesms-keystore.md).
public enum KeystoreLocation {
    /// `--keystore`, else `$DOSSIER_SMS_KEYSTORE`, else `$XDG_DATA_HOME/dossier/sms.keystore`
    /// when XDG_DATA_HOME is an absolute path and `$HOME/.dossier/sms.keystore` does not
    /// exist, else `$HOME/.dossier/sms.keystore` (`HOME` unset: the account's home folder).
    public static func resolve(explicit: String?, environment env: [String: String]) -> URL {
        if let k = explicit { return URL(fileURLWithPath: k) }
        if let e = env["DOSSIER_SMS_KEYSTORE"], !e.isEmpty { return URL(fileURLWithPath: e) }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        let legacy = home.appendingPathComponent(".dossier/sms.keystore")
        if let x = env["XDG_DATA_HOME"], x.hasPrefix("/"), !FileManager.default.fileExists(atPath: legacy.path) {
            return URL(fileURLWithPath: x, isDirectory: true).appendingPathComponent("dossier/sms.keystore")
        }
        return legacy
    }
}
