import Foundation
import Testing
@testable import DossierKit

/// `SectionConfig.paths` checks each file it matched with a folder's real path found once
/// (`checkConfinement`); its twin is `Confinement.check` of every file, the check it made
/// before. Both must accept and refuse the same inputs, with the same message.
@Suite struct SectionPathsConfinementTests {
    /// The first refusal of the twin: every file checked in full, in order.
    static func twin(_ files: [URL], _ confinement: Confinement, root: URL) -> String? {
        for u in files {
            let shown = u.path.hasPrefix(root.path + "/") ? String(u.path.dropFirst(root.path.count + 1)) : u.path
            do { try confinement.check(u, shown: shown) } catch let e as DossierError {
                return e.diagnostics.map { "\($0.file ?? ""): \($0.message)" }.joined(separator: "\n")
            } catch { return "\(error)" }
        }
        return nil
    }

    @Test func agreesWithTheFullCheckOfEveryFile() throws {
        let fm = FileManager.default
        let p = try TestProject(files: ["dossier.yml": "x: 1\n", "logs/a.jsonl": "", "logs/b.jsonl": "",
                                        "inside/c.jsonl": ""])
        defer { p.remove() }
        let outside = fm.temporaryDirectory.appendingPathComponent("paths-outside-\(UUID().uuidString)")
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: outside) }
        try Data().write(to: outside.appendingPathComponent("o.jsonl"))
        let r = p.root.path
        // Each case: files to add to the project (name → link target, nil: a plain file),
        // the `logs:` value, and whether the outside folder is allowed.
        let cases: [([String: String?], String, Bool)] = [
            ([:], "logs", false),
            (["logs/in.jsonl": r + "/inside/c.jsonl"], "logs", false),
            (["logs/out.jsonl": outside.path + "/o.jsonl"], "logs", false),
            (["logs/out.jsonl": outside.path + "/o.jsonl"], "logs", true),
            (["linked": outside.path], "linked", false),
            (["linked": outside.path], "linked/*.jsonl", true),
            (["linked": r + "/inside"], "linked", false),
            ([:], outside.path, false),
            ([:], "logs/*.jsonl", false),
        ]
        for (k, (links, logs, allow)) in cases.enumerated() {
            var made: [String] = []
            for (name, target) in links {
                let path = r + "/" + name
                if let target { try fm.createSymbolicLink(atPath: path, withDestinationPath: target) }
                made.append(path)
            }
            defer { for m in made { try? fm.removeItem(atPath: m) } }
            let node = try ConfigNode.parse("logs: \(logs)\n", file: "dossier.yml")
            var cfg = SectionConfig(key: "recall", file: "dossier.yml", root: p.root, node: node)
            let confinement = Confinement(root: p.root, allowed: allow ? [outside] : [])
            cfg.confinement = confinement
            var fast: String? = nil
            var matched: [URL] = []
            do { matched = try cfg.paths("logs") } catch let e as DossierError {
                fast = e.diagnostics.map { "\($0.file ?? ""): \($0.message)" }.joined(separator: "\n")
            }
            cfg.confinement = nil
            let all = try cfg.paths("logs")
            #expect(!all.isEmpty, "case \(k)")
            #expect(fast == Self.twin(all, confinement, root: p.root), "case \(k)")
            if fast == nil { #expect(matched == all, "case \(k)") }
        }
    }
}
