import Foundation

/// Which certificate authorities an https connection trusts (docs/publish.md, "Trusting
/// a private certificate authority"): the `--ca-file` option first, then the
/// `SSL_CERT_FILE` environment variable, then the system's trust store. A file given
/// replaces the system's store; it must be readable and hold at least one PEM
/// certificate (`-----BEGIN CERTIFICATE-----`).
public enum TrustStore {
    /// The PEM file to trust, or nil for the system's store. Throws `WebDAVError.trust`
    /// naming the file and where it came from when it cannot be used.
    public static func caFile(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(WebDAVError) -> String? {
        let chosen: (path: String, origin: String)?
        if let option, !option.isEmpty {
            chosen = (option, "--ca-file")
        } else if let env = environment["SSL_CERT_FILE"], !env.isEmpty {
            chosen = (env, "SSL_CERT_FILE")
        } else {
            chosen = nil
        }
        guard let chosen else { return nil }
        let path = URL(fileURLWithPath: chosen.path).standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .trust("\(chosen.origin) \(chosen.path): no such file")
        }
        guard !isFolder.boolValue else { throw .trust("\(chosen.origin) \(chosen.path): is a folder; give a PEM file of certificates") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .trust("\(chosen.origin) \(chosen.path): cannot be read (permission denied?)")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4 << 20)) ?? Data()
        guard head.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw .trust("\(chosen.origin) \(chosen.path): holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return path
    }
}
