import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Vault

/// An encrypted password vault: entries and notes behind one master password.
///
/// File layout (docs/vault-format.md):
/// `"DOSSIERV"` · u32 BE header length · header JSON · HMAC-SHA256(header key, all before) ·
/// AES-256-GCM(body key; nonce ‖ ciphertext ‖ tag) of the payload JSON, with every byte
/// before it as associated data. Keys come from scrypt (or PBKDF2) via HKDF.
///
/// ```swift
/// var v = try Vault.create(url: url, password: "correct horse")
/// v.upsert(.entry(title: "Mail", username: "jo@example.com", password: "…"))
/// try v.save()
/// let again = try Vault.open(url: url, password: "correct horse")
/// ```
public struct Vault: Sendable, CustomStringConvertible {
    public static let magic = Data("DOSSIERV".utf8)
    public static let itemMagic = Data("DOSVITEM".utf8)
    public static let formatVersion = 1
    /// Payload format: 1 = items only; 2 = items plus a ``VaultSettings`` record. Only
    /// written as 2 when settings are present, so a vault without settings is unchanged.
    public static let payloadFormatWithSettings = 2

    /// The header (not secret): format, cipher, KDF parameters and salt, vault id.
    public struct Header: Sendable, Codable, Equatable {
        public var format: Int
        public var cipher: String
        public var kdf: KDFParameters
        public var vaultID: UUID
    }

    public let header: Header
    /// Where ``save()`` writes (nil for in-memory vaults).
    public var url: URL?
    let keys: VaultKeys   // internal: SyncSealing.swift derives the sync keys from it
    /// Every item including tombstones, by id.
    private var storage: [UUID: VaultItem]
    /// This device's server settings, sealed in the body with the items but not an item:
    /// never listed, reported, merged or uploaded by sync. nil when never configured.
    public var settings: VaultSettings?

    public var description: String { "Vault(\(header.vaultID), \(items.count) items)" }

    // MARK: Create and open

    /// A new, empty vault. `kdf` must meet OWASP's minimums unless `allowWeakKDF` (tests).
    public static func create(url: URL?, password: Secret, kdf: KDFParameters = .standard(),
                              allowWeakKDF: Bool = false) throws -> Vault {
        guard !password.isEmpty else { throw VaultError(.invalidInput, "the master password is empty") }
        guard kdf.meetsMinimum || allowWeakKDF else {
            throw VaultError(.invalidInput, "key-derivation parameters are below OWASP's minimums")
        }
        let header = Header(format: formatVersion, cipher: "AES-256-GCM", kdf: kdf, vaultID: UUID())
        let keys = VaultKeys(master: try kdf.deriveMasterKey(password))
        return Vault(header: header, url: url, keys: keys, storage: [:])
    }

    /// This vault under a new master password and KDF: same id, items (tombstones too)
    /// and settings; ``save()`` then replaces the file atomically. `kdf` must meet OWASP's
    /// minimums unless `allowWeakKDF` (tests).
    public func rekeyed(password: Secret, kdf: KDFParameters, allowWeakKDF: Bool = false) throws -> Vault {
        guard !password.isEmpty else { throw VaultError(.invalidInput, "the new master password is empty") }
        guard kdf.meetsMinimum || allowWeakKDF else {
            throw VaultError(.invalidInput, "key-derivation parameters are below OWASP's minimums")
        }
        let h = Header(format: Self.formatVersion, cipher: header.cipher, kdf: kdf, vaultID: header.vaultID)
        var v = Vault(header: h, url: url, keys: VaultKeys(master: try kdf.deriveMasterKey(password)), storage: storage)
        v.settings = settings
        return v
    }

    /// This vault's items (tombstones too), settings and url under the keys of another
    /// copy's header (``headerData``) — a copy whose master password was changed with
    /// `vault passwd`. `password` must open that header; the vault ids must match.
    /// Used by `vault sync --adopt-server-key` (docs/vault-sync.md, "After vault passwd").
    public func adopting(header data: Data, password: Secret) throws -> Vault {
        var other = try Vault.open(header: data, password: password)
        guard other.header.vaultID == header.vaultID else {
            throw VaultError(.invalidInput, "the other copy is a different vault (ids differ)")
        }
        other.storage = storage
        other.settings = settings
        other.url = url
        return other
    }

    private init(header: Header, url: URL?, keys: VaultKeys, storage: [UUID: VaultItem]) {
        self.header = header
        self.url = url
        self.keys = keys
        self.storage = storage
    }

    /// The largest vault file opened: 256 MiB (docs/limits.md). Checked before reading,
    /// and the read stops one byte past it.
    public static let maxFileSize = 256 << 20

    /// Opens a vault file.
    public static func open(url: URL, password: Secret) throws -> Vault {
        let data = try readBounded(url)
        do {
            var v = try open(data: data, password: password)
            v.url = url
            return v
        } catch var e as VaultError {
            e.file = url.path
            throw e
        }
    }

    /// Opens vault bytes. Errors: not a vault / truncated / wrong password (or altered
    /// header) / damaged body.
    public static func open(data: Data, password: Secret) throws -> Vault {
        let (header, headerBytes, rest) = try parseHeader(data)
        let keys = try unlock(header: header, headerBytes: headerBytes, mac: rest.prefix(32), password: password)
        let body = rest.dropFirst(32)
        guard body.count >= 12 + 16 else { throw VaultError(.truncated, "the vault file is truncated") }
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(combined: body)
            plain = try AES.GCM.open(box, using: keys.body, authenticating: data.prefix(data.count - body.count))
        } catch {
            throw VaultError(.corrupt, "the vault file is damaged or was altered (authentication failed)")
        }
        let payload: Payload
        do { payload = try Canonical.decoder().decode(Payload.self, from: plain) } catch {
            throw VaultError(.corrupt, "the vault payload cannot be read")
        }
        guard (1...payloadFormatWithSettings).contains(payload.format) else {
            throw VaultError(.unsupported, "vault payload format \(payload.format) is not supported")
        }
        var storage: [UUID: VaultItem] = [:]
        for item in payload.items { storage[item.id] = item }
        var v = Vault(header: header, url: nil, keys: keys, storage: storage)
        v.settings = payload.settings
        return v
    }

    /// Keys for a vault known only by its header bytes (``headerData``), e.g. a remote
    /// copy: an empty vault with that header, ready to ``open(sealed:)`` items and merge.
    public static func open(header data: Data, password: Secret) throws -> Vault {
        let (header, headerBytes, rest) = try parseHeader(data)
        let keys = try unlock(header: header, headerBytes: headerBytes, mac: rest.prefix(32), password: password)
        return Vault(header: header, url: nil, keys: keys, storage: [:])
    }

    private static func parseHeader(_ data: Data) throws -> (Header, Data, Data) {
        let data = Data(data)   // zero-based indices
        guard data.count >= magic.count + 4 else {
            if data.count < magic.count && magic.starts(with: data) {
                throw VaultError(.truncated, "the vault file is truncated")
            }
            if data.starts(with: magic) { throw VaultError(.truncated, "the vault file is truncated") }
            throw VaultError(.corrupt, "not a Dossier vault file")
        }
        guard data.prefix(magic.count) == magic else { throw VaultError(.corrupt, "not a Dossier vault file") }
        let lenBytes = data[8..<12]
        let len = lenBytes.reduce(0) { $0 << 8 | Int($1) }
        guard len > 0 && len <= 64 * 1024 else { throw VaultError(.corrupt, "vault header length is invalid") }
        guard data.count >= 12 + len + 32 else { throw VaultError(.truncated, "the vault file is truncated") }
        let json = data[12..<(12 + len)]
        let header: Header
        do { header = try Canonical.decoder().decode(Header.self, from: json) } catch {
            throw VaultError(.corrupt, "the vault header cannot be read")
        }
        guard header.format == formatVersion else {
            throw VaultError(.unsupported, "vault format \(header.format) is not supported")
        }
        guard header.cipher == "AES-256-GCM" else {
            throw VaultError(.unsupported, "vault cipher \(header.cipher) is not supported")
        }
        return (header, Data(data.prefix(12 + len)), Data(data.dropFirst(12 + len)))
    }

    /// The keys for `password`: its NFC form first (how every vault is written since
    /// normalisation began), then — only when that fails and the typed form differs — the
    /// bytes as typed, so a vault made earlier from a non-NFC password still opens.
    private static func unlock(header: Header, headerBytes: Data, mac: Data, password: Secret) throws -> VaultKeys {
        let keys = VaultKeys(master: try header.kdf.deriveMasterKey(password))
        do {
            try checkHeaderMAC(headerBytes: headerBytes, mac: mac, keys: keys)
            return keys
        } catch let e as VaultError where e.kind == .wrongPassword && !password.isNFC {
            let legacy = VaultKeys(master: try header.kdf.deriveMasterKey(password, normalize: false))
            try checkHeaderMAC(headerBytes: headerBytes, mac: mac, keys: legacy)
            return legacy
        }
    }

    private static func checkHeaderMAC(headerBytes: Data, mac: Data, keys: VaultKeys) throws {
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: headerBytes, using: keys.header) else {
            throw VaultError(.wrongPassword, "wrong master password (or the vault header was altered)")
        }
    }

    // MARK: Encode and save

    struct Payload: Codable { var format: Int; var items: [VaultItem]; var settings: VaultSettings? = nil }

    /// The header bytes with their MAC: enough for another copy to derive the keys.
    public var headerData: Data {
        var out = Self.magic
        let json = (try? Canonical.encode(header)) ?? Data()
        var len = UInt32(json.count).bigEndian
        out.append(Data(bytes: &len, count: 4))
        out.append(json)
        let mac = HMAC<SHA256>.authenticationCode(for: out, using: keys.header)
        out.append(Data(mac))
        return out
    }

    /// The whole encrypted file.
    public func encoded() throws -> Data {
        var out = headerData
        let payload = Payload(format: settings == nil ? Self.formatVersion : Self.payloadFormatWithSettings,
                              items: storage.values.sorted { $0.id.uuidString < $1.id.uuidString }, settings: settings)
        let plain = try Canonical.encode(payload)
        let box = try AES.GCM.seal(plain, using: keys.body, authenticating: out)
        out.append(box.combined!)
        return out
    }

    /// Writes the vault to ``url`` atomically (temp file in the same folder, fsync,
    /// rename): a crash leaves either the old or the new file, never a mix.
    public func save() throws {
        guard let url else { throw VaultError(.invalidInput, "this vault has no file to save to") }
        try AtomicFile.write(try encoded(), to: url)
    }

    // MARK: Items

    /// Live items (no tombstones), sorted by kind, title, id.
    public var items: [VaultItem] {
        storage.values.filter { !$0.deleted }.sorted {
            ($0.kind.rawValue, $0.title.lowercased(), $0.id.uuidString) < ($1.kind.rawValue, $1.title.lowercased(),
                    $1.id.uuidString)
        }
    }
    /// Every item including tombstones, sorted by id (what sync compares).
    public var allItems: [VaultItem] { storage.values.sorted { $0.id.uuidString < $1.id.uuidString } }
    public var entries: [VaultItem] { items.filter { $0.kind == .entry } }
    public var notes: [VaultItem] { items.filter { $0.kind == .note } }

    public func item(_ id: UUID) -> VaultItem? { storage[id] }

    /// Adds or replaces an item as given (times untouched).
    public mutating func upsert(_ item: VaultItem) { storage[item.id] = item }

    /// Changes an item, stamping `modified` (and, if the password changed, `passwordChanged`,
    /// with the replaced password appended to ``VaultItem/history``).
    @discardableResult
    public mutating func update(_ id: UUID, at date: Date = Date(),
                                _ change: (inout VaultItem) -> Void) throws -> VaultItem {
        guard var item = storage[id], !item.deleted else {
            throw VaultError(.invalidInput, "no item with id \(id.uuidString)")
        }
        let old = item.password
        change(&item)
        item.id = id
        item.modified = date.wholeMilliseconds
        if item.password != old {
            item.passwordChanged = item.modified
            // the replaced password joins the history (as Bitwarden and KeePass keep it)
            if !old.isEmpty { item.history.append(PasswordHistoryEntry(password: old, changed: item.modified)) }
        }
        storage[id] = item
        return item
    }

    /// Deletes an item, leaving a tombstone so the deletion syncs.
    public mutating func delete(_ id: UUID, at date: Date = Date()) throws {
        guard let item = storage[id], !item.deleted else {
            throw VaultError(.invalidInput, "no item with id \(id.uuidString)")
        }
        storage[id] = item.tombstone(at: date)
    }

    /// Finds a live item by id, id prefix (≥ 4 characters) or exact title (case-insensitive).
    public func find(_ key: String) throws -> VaultItem {
        let live = items
        if let u = UUID(uuidString: key), let i = storage[u], !i.deleted { return i }
        let byPrefix = key.count >= 4 ? live.filter { $0.id.uuidString.lowercased().hasPrefix(key.lowercased()) } : []
        let byTitle = live.filter { $0.title.equalsIgnoringCase(key) }
        let found = byPrefix.isEmpty ? byTitle : byPrefix
        if found.count == 1 { return found[0] }
        if found.isEmpty { throw VaultError(.invalidInput, "no item matches '\(key)'") }
        throw VaultError(.invalidInput, "\(found.count) items match '\(key)': use the id")
    }

    // MARK: Merge

    /// Merges another copy of the same vault item by item (last modification wins; a
    /// tombstone wins a tie; then the larger canonical encoding). Deterministic and
    /// symmetric: a.merge(b) and b.merge(a) end with the same items.
    @discardableResult
    public mutating func merge(_ other: Vault) throws -> MergeReport {
        guard other.header.vaultID == header.vaultID else {
            throw VaultError(.invalidInput, "the other vault is a different vault (ids differ)")
        }
        return merge(items: other.allItems)
    }

    /// Merges item versions from anywhere (e.g. opened sealed blobs).
    @discardableResult
    public mutating func merge(items incoming: [VaultItem]) -> MergeReport {
        var report = MergeReport()
        for theirs in incoming.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
            guard let mine = storage[theirs.id] else {
                storage[theirs.id] = theirs
                if theirs.deleted { report.deleted.append(theirs.id) } else { report.added.append(theirs.id) }
                continue
            }
            if mine == theirs { continue }
            report.conflicts.append(theirs.id)
            let w = MergeRule.winner(mine, theirs)
            if w == mine {
                report.keptLocal.append(theirs.id)
            } else {
                storage[theirs.id] = w
                if w.deleted { report.deleted.append(w.id) } else { report.updated.append(w.id) }
            }
        }
        return report
    }

    // MARK: Per-item sealed blobs (for item-by-item sync)

    /// One item (or tombstone) encrypted on its own:
    /// `"DOSVITEM"` · vault id (16) · item id (16) · AES-256-GCM(item key; nonce ‖ ct ‖ tag)
    /// with the first 40 bytes as associated data.
    public func sealedItem(_ id: UUID) throws -> Data {
        guard let item = storage[id] else { throw VaultError(.invalidInput, "no item with id \(id.uuidString)") }
        var out = Self.itemMagic
        out.append(Self.bytes(header.vaultID))
        out.append(Self.bytes(id))
        let box = try AES.GCM.seal(try Canonical.encode(item), using: keys.item, authenticating: out)
        out.append(box.combined!)
        return out
    }

    /// Opens a blob made by ``sealedItem(_:)`` of this vault (any copy).
    public func open(sealed data: Data) throws -> VaultItem {
        let data = Data(data)
        guard data.count >= 40 + 28 else { throw VaultError(.truncated, "sealed item is truncated") }
        guard data.prefix(8) == Self.itemMagic else { throw VaultError(.corrupt, "not a sealed vault item") }
        guard data[8..<24] == Self.bytes(header.vaultID) else {
            throw VaultError(.invalidInput, "sealed item belongs to another vault")
        }
        let plain: Data
        do {
            plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: data[40...]), using: keys.item,
                                     authenticating: data.prefix(40))
        } catch {
            throw VaultError(.corrupt, "sealed item is damaged or was altered (authentication failed)")
        }
        guard let item = try? Canonical.decoder().decode(VaultItem.self, from: plain),
              Self.bytes(item.id) == data[24..<40] else {
            throw VaultError(.corrupt, "sealed item cannot be read")
        }
        return item
    }

    static func bytes(_ u: UUID) -> Data {
        withUnsafeBytes(of: u.uuid) { Data($0) }
    }
}
