import ArgumentParser
import DossierKit
import Sealing

/// The options and the work of `dossier game keygen` and `dossier recall keygen`: one
/// study RSA key pair for sealed uploads (docs/game-telemetry.md, docs/recall-upload.md),
/// written as PREFIX.key (PKCS#8 PEM, mode 0600) and PREFIX.pub (SPKI PEM, mode 0644).
struct KeyPairFiles: ParsableArguments {
    @Option(name: [.customLong("output"), .customShort("o")], help: "Path prefix of the two files.") var out: String
    @Option(help: "RSA modulus size: 2048, 3072 or 4096.") var bits: Int = 3072
    @Flag(help: "Replace existing files.") var force = false

    func validate() throws {
        guard [2048, 3072, 4096].contains(bits) else { throw ValidationError("--bits must be 2048, 3072 or 4096") }
    }

    /// Writes both files (each atomically); an existing one is refused unless --force.
    func write(_ quiet: QuietFlag) throws {
        let keyURL = URL(fileURLWithPath: out + ".key"), pubURL = URL(fileURLWithPath: out + ".pub")
        for u in [keyURL, pubURL] where !force && FileManager.default.fileExists(atPath: u.path) {
            throw DossierError(file: u.path, "already exists (use --force to replace it)")
        }
        let pair = try Envelope.makeKeyPair(bits: bits)
        try AtomicFile.write(Data(pair.privatePEM.utf8), to: keyURL, mode: 0o600)
        try AtomicFile.write(Data(pair.publicPEM.utf8), to: pubURL, mode: 0o644)
        quiet.note("wrote \(keyURL.path) (secret, mode 0600) and \(pubURL.path)")
    }
}
