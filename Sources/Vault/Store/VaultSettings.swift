#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Per-vault server settings (WebDAV sync), stored sealed inside the vault body next to
/// the items but never as an item (docs/vault-format.md, payload format 2).
public struct VaultSettings: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The WebDAV folder URL (no credentials in it).
    public var webdavURL: String
    public var webdavUser: String
    public var webdavPassword: Secret
    /// Sync before any command that unlocks the vault (UC7).
    public var autoSync: Bool
    /// When the settings were last saved (integer ms in the file).
    public var modified: Date

    public init(webdavURL: String, webdavUser: String, webdavPassword: Secret, autoSync: Bool, modified: Date = Date())
    {
        self.webdavURL = webdavURL
        self.webdavUser = webdavUser
        self.webdavPassword = webdavPassword
        self.autoSync = autoSync
        self.modified = modified.wholeMilliseconds
    }

    /// Never shows the password.
    public var description: String {
        "VaultSettings(\(webdavURL), user \(webdavUser), password •••, autoSync \(autoSync))"
    }
}
