// Compiled only with the game domain.
#if DOMAIN_GAME
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Privacy
import TextBasics

// MARK: - Players' own results on the public site (docs/game-privacy.md, "Result files")

/// Each player whose device sent a result key gets their result in
/// `game/results/<name>.rmr`, encrypted under that key. On the public site the files say
/// nothing beyond what their owner can read: every file has one size (the JSON is padded
/// with spaces to ``paddedSize`` bytes), and there are always exactly `capacity` of them —
/// the real ones and decoys of the same size with names and bytes drawn from the privacy
/// key — so neither the number of files nor a file's size tells how many players there are
/// or how many games one of them played.
enum GameResultFiles {
    /// Bytes of every result's plaintext on the public site, and of every file
    /// (`RMR1` ‖ 12-byte nonce ‖ ciphertext ‖ 16-byte tag).
    static let paddedSize = 8_192
    static var fileSize: Int { 4 + 12 + paddedSize + 16 }
    /// Files in `game/results/` of a public site with a database, unless `results_capacity` says otherwise.
    static let defaultCapacity = 256

    /// The result a player's device decrypts: on the public site without the per-session,
    /// per-block and per-reaction lists (their length would give away how much the player
    /// played), as compact JSON padded to ``paddedSize``.
    static func plaintext(_ p: PlayerResult, analysis: CohortAnalysis, padded: Bool) throws -> Data {
        var file = PlayerResultFile(p, analysis: analysis)
        guard padded else { return try GameFormat.json(file) }
        file.measures.perSession = []
        file.measures.hitRTs = []
        file.measures.blocks = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var json = try encoder.encode(file)
        guard json.count <= paddedSize else {
            throw DossierError(
                "game: a player's result takes \(json.count) bytes, more than the fixed size of a result "
                    + "file (\(paddedSize)); this is a bug in dossier, please report it")
        }
        json.append(Data(repeating: 0x20, count: paddedSize - json.count))
        return json
    }

    /// The result files: for a private site one per player with a result key; for the public
    /// site (`privacy` given) exactly `capacity`, decoys filling the places of the missing players.
    static func files(_ analysis: CohortAnalysis, keys: [String: String], capacity: Int,
                      privacy: (key: Data, release: String)?) throws -> [OutputFile] {
        var out = try analysis.players.compactMap { p -> OutputFile? in
            guard let k = keys[p.id], let key = Data(base64Encoded: k) else { return nil }
            let json = try plaintext(p, analysis: analysis, padded: privacy != nil)
            return OutputFile(
                path: "game/results/" + ResultBox.name(resultKey: key), data: try ResultBox.seal(json, resultKey: key))
        }
        guard let privacy else { return out }
        guard out.count <= capacity else {
            throw DossierError(
                "game.results_capacity: more players have sent a result key than the \(capacity) result files "
                    + "the public site holds; raise results_capacity (every release then has that many files)")
        }
        for i in 0..<(capacity - out.count) { out.append(decoy(i, key: privacy.key, release: privacy.release)) }
        return out
    }

    /// Decoy `i`: its name is stable across releases (hex of 16 bytes of
    /// HMAC-SHA256(privacy key, "dossier-result-decoy-name" ‖ UInt64_be(i)) + `.rmr`), its
    /// bytes are `RMR1` and then ``fileSize`` − 4 bytes of the keyed stream of context
    /// "dossier-result-decoy/<release>/<i>": new with every release, as a real file's are.
    static func decoy(_ i: Int, key: Data, release: String) -> OutputFile {
        var msg = Data("dossier-result-decoy-name".utf8)
        withUnsafeBytes(of: UInt64(i).bigEndian) { msg.append(contentsOf: $0) }
        let mac = HMAC<SHA256>.authenticationCode(for: msg, using: SymmetricKey(data: key))
        let name = Data(mac).prefix(16).hexString + ".rmr"
        var rng = KeyedRandom(key: key, context: "dossier-result-decoy/\(release)/\(i)")
        var bytes = ResultBox.magic
        bytes.reserveCapacity(fileSize)
        while bytes.count < fileSize {
            withUnsafeBytes(of: rng.next().bigEndian) { bytes.append(contentsOf: $0.prefix(fileSize - bytes.count)) }
        }
        return OutputFile(path: "game/results/" + name, data: bytes)
    }
}
#endif
