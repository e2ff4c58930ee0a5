#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Which certificate authorities an https connection trusts (docs/webdav.md, "Trusting
/// a private certificate authority"): the `--ca-file` option first, then a file the
/// command remembered from an earlier `--ca-file` (vault sync keeps one per vault), then
/// the `SSL_CERT_FILE` environment variable, then the system's trust store. A file given
/// replaces the system's store; it must be readable and hold at least one PEM
/// certificate (`-----BEGIN CERTIFICATE-----`).
public enum TrustStore {
    /// A CA file remembered from an earlier run, and where, for messages
    /// (e.g. `--ca-file remembered in a.dvault.sync.json`).
    public struct Remembered: Sendable, Equatable {
        public var path: String
        public var origin: String
        public init(path: String, origin: String) {
            self.path = path
            self.origin = origin
        }
    }

    /// The PEM file to trust, or nil for the system's store. Throws `WebDAVError.trust`
    /// naming the file and where it came from when it cannot be used.
    public static func caFile(option: String?, remembered: Remembered? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(WebDAVError) -> String? {
        let chosen: (path: String, origin: String)?
        if let option, !option.isEmpty {
            chosen = (option, "--ca-file")
        } else if let remembered, !remembered.path.isEmpty {
            chosen = (remembered.path, remembered.origin)
        } else if let env = environment["SSL_CERT_FILE"], !env.isEmpty {
            chosen = (env, "SSL_CERT_FILE")
        } else {
            chosen = nil
        }
        guard let chosen else { return nil }
        let path = URL(fileURLWithPath: chosen.path).standardizedFileURL.path
        var isFolder = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .trust("\(chosen.origin) \(chosen.path): no such file")
        }
        guard !isFolder else {
            throw .trust("\(chosen.origin) \(chosen.path): is a folder; give a PEM file of certificates")
        }
        guard let handle = PlainFile(forReadingAtPath: path) else {
            throw .trust("\(chosen.origin) \(chosen.path): cannot be read (permission denied?)")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4 << 20)) ?? Data()
        guard head.firstRange(of: Array("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw .trust("\(chosen.origin) \(chosen.path): holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return path
    }
}
