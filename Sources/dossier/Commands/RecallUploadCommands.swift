#if DOMAIN_RECALL
import ArgumentParser
import Crypto
import _CryptoExtras
import DossierKit
import RecallStudy
import Sealing
import WebDAV

// `dossier recall keygen | seal | ingest`: sealed uploads of the recall kit
// (docs/recall-upload.md).

struct RecallKeygen: ParsableCommand {
    static let configuration = HelpText.command("recall keygen")
    @OptionGroup var files: KeyPairFiles
    @OptionGroup var quiet: QuietFlag

    func run() throws { try files.write(quiet) }
}

struct RecallSeal: ParsableCommand {
    static let configuration = HelpText.command("recall seal")
    @Option(help: "The study's public key (PEM).") var `public`: String
    @Option(name: [.customLong("output"), .customShort("o")], help: "Folder for the sealed uploads.") var out: String
    @Option(help: "The device's key file (default: <output>-device.json).") var device: String?
    @Argument(help: "Session logs (*.jsonl), each stored under its own file name.") var files: [String]
    @OptionGroup var quiet: QuietFlag

    struct DeviceFile { var device: String; var signing_key: String }

    func run() throws {
        guard let pem = FileManager.default.contents(atPath: `public`) else {
            throw DossierError(file: `public`, "cannot read the file")
        }
        let prefix = out.hasSuffix("/") ? String(out.dropLast()) : out
        let keyURL = URL(fileURLWithPath: device ?? prefix + "-device.json")
        let file: DeviceFile
        if let d = FileManager.default.contents(atPath: keyURL.path) {
            guard let o = try? FlatJSON.object(d), let device = o["device"], let key = o["signing_key"] else {
                throw DossierError(file: keyURL.path, "not a device key file")
            }
            file = DeviceFile(device: device, signing_key: key)
        } else {
            file = DeviceFile(device: Hex.string(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }),
                              signing_key: Curve25519.Signing.PrivateKey().rawRepresentation.base64EncodedString())
            let text = "{\"device\":" + FlatJSON.quote(file.device) + ",\"signing_key\":"
                + FlatJSON.quote(file.signing_key) + "}\n"
            try AtomicFile.write(Data(text.utf8), to: keyURL, mode: 0o600)
        }
        guard let raw = Data(base64Encoded: file.signing_key),
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw DossierError(file: keyURL.path, "not a device key file")
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for f in files {
            guard let body = FileManager.default.contents(atPath: f) else {
                throw DossierError(file: f, "cannot read the file")
            }
            let name = "rc-" + Hex.string(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0.prefix(12)) })
                + RecallUpload.fileExtension
            let plain = try RecallUpload.make(body: body, device: file.device, upload: name,
                                              log: URL(fileURLWithPath: f).lastPathComponent, key: key)
            let sealed: Data
            do { sealed = try Envelope.seal(plain, publicKeyPEM: String(decoding: pem, as: UTF8.self)) } catch {
                throw DossierError(file: `public`, RecallIngest.message(error))
            }
            try AtomicFile.write(sealed, to: URL(fileURLWithPath: out).appendingPathComponent(name), mode: 0o644)
            quiet.say("\(f): \(name)")
        }
    }
}
#endif
