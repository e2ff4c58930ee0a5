#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import StudyStore

/// A unit's own input read once (docs/incremental.md "Each log read once"): on a build
/// that cannot reuse the unit (no previous unit under its key), the plan does not read
/// and hash the unit's first input; the unit reads it whole through
/// ``SectionContext/readOwnInput(_:)``, which hashes the bytes it hands over and stamps
/// the file as the plan's ``BuildContext/inputDigest(_:path:)`` does. The plain twin is
/// that function: the file read again and hashed while planning.
final class OwnInputRead: @unchecked Sendable {
    let path: String
    /// Set by ``read()``: the bytes' SHA-256 (hex) and count, and the file's stamp when it
    /// did not change while it was read.
    private(set) var digest: String?
    private(set) var size = 0
    private(set) var stamp: BuildState.InputStamp?

    init(path: String) { self.path = path }

    /// The file's bytes, hashed (a unit reads its own input once; a second read is
    /// hashed again and replaces the first's digest).
    func read() -> [UInt8]? {
        let before = BuildState.InputStamp.current(path)
        guard let bytes = Self.readFile(path) else { return nil }
        // Tests write the file here, while the build holds its bytes (debug builds only).
        PausePoint.reached("own-read")
        digest = bytes.withUnsafeBytes { Hashing.sha256($0) }
        size = bytes.count
        // Stamped only if the file did not change while it was read.
        stamp = nil
        if var s = before, let after = BuildState.InputStamp.current(path),
            s.size == after.size, s.mtime == after.mtime, s.ctime == after.ctime, s.size == Int64(bytes.count)
        {
            s.sha256 = HexDigest(digest!)
            stamp = s
        }
        return bytes
    }

    /// A file's bytes read whole with read(2), nil when it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? { NativeLog.readFile(path) }
}

extension BuildContext {
    /// A unit's hash: the renderer's fingerprint, the section, its configuration, the
    /// unit's id and salt, then each input's file name and SHA-256, in order.
    static func unitHash(fingerprint: String, section: String, canonical: String, unit: SectionUnit,
                         digests: [String]) -> String {
        var h = Hashing.Key()
        h.add(fingerprint); h.add(section); h.add(canonical); h.add(unit.id); h.add(unit.salt)
        for (path, digest) in zip(unit.inputPaths, digests) {
            h.add(lastPathComponent(path))
            h.add(digest)
        }
        return h.finalize()
    }

    /// Whether the plan leaves unit `u` (under `unitKey`) to hash its own input as it reads it.
    func readsOwnInputOnce(_ u: SectionUnit, unitKey: String) -> Bool {
        hashesOwnReadWhenBuilt(u) && previous?.units[unitKey] == nil
    }

    /// Whether unit `u`, when it is built, hashes the bytes of its own input it parses and
    /// takes its key from them, whatever the plan read of that file before.
    func hashesOwnReadWhenBuilt(_ u: SectionUnit) -> Bool {
        options.readOwnInputsOnce && u.readsOwnInput && !u.inputPaths.isEmpty
    }

    /// The hash of a unit whose own input the plan left unread (`rest`: the digests of its
    /// other inputs), once the unit was built: the own input's digest from the unit's read,
    /// recorded as the plan records an input; read and hashed here if the unit did not read it.
    func unitHashAfterOwnRead(_ pu: PlannedUnit, own: OwnInputRead, rest: [String], section: String,
                              canonical: String) throws -> String {
        let path = own.path
        let digest: String
        if let d = own.digest {
            // (A stamp the plan took of a file that changed before or while the unit read it
            // goes: the next build reads the file again.)
            lock.lock()
            inputsHashed += 1
            newState.inputs[path] = own.stamp
            lock.unlock()
            recordInput(URL(filePath: path, directoryHint: .notDirectory), sha256: d, size: own.size)
            digest = d
        } else {
            let input = URL(filePath: path, directoryHint: .notDirectory)
            let (d, size) = try inputDigest(input, path: path)
            recordInput(input, sha256: d, size: size)
            digest = d
        }
        return Self.unitHash(fingerprint: renderer.fingerprint, section: section, canonical: canonical,
                             unit: pu.unit, digests: [digest] + rest)
    }
}
