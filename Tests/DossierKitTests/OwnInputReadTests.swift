import Foundation
@testable import RecallStudy
import Testing
@testable import DossierKit

/// A build that cannot reuse a participant unit hashes its log as the unit reads it
/// (``OwnInputRead``), where the plan read and hashed every log once more before; its
/// plain twin is the plan's own digest (``BuildContext/inputDigest(_:path:)``), kept on
/// with `BuildOptions.readOwnInputsOnce = false`.
@Suite struct OwnInputReadTests {
    /// Files of sizes around read(2)'s and the reader's bounds (empty, one byte, 64 KiB ± 1,
    /// a MiB and a bit), of random bytes (broken UTF-8 included), under names with spaces,
    /// quotes and non-ASCII: the bytes, digest, size and stamp are those of the plan's read.
    @Test func ownReadAsThePlansDigest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ownread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SystemRandomNumberGenerator()
        let sizes = [0, 1, 2, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537, (1 << 20) + 3]
            + (0..<40).map { _ in Int.random(in: 0..<300_000, using: &rng) }
        for (i, n) in sizes.enumerated() {
            let name = ["a.jsonl", "b c.jsonl", "é \"q\".jsonl", "d,e.JSONL"][i % 4]
            let url = dir.appendingPathComponent("\(i)-\(name)")
            let data = Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) })
            try data.write(to: url)
            let own = OwnInputRead(path: url.path)
            let bytes = try #require(own.read())
            #expect(Data(bytes) == data, "\(n) bytes")
            #expect(own.digest == Hashing.sha256(data), "\(n) bytes")
            #expect(own.size == n)
            #expect(own.stamp?.size == Int64(n))
            #expect(own.stamp?.sha256 == HexDigest(Hashing.sha256(data)))
        }
        let gone = OwnInputRead(path: dir.appendingPathComponent("missing.jsonl").path)
        #expect(gone.read() == nil && gone.digest == nil)
    }

    static func study(_ logs: Int) throws -> TestProject {
        let strings = ["abc123", "Qx,9!z", "m3)61fHw", "ua7t?C2#", "p4d46*3TXY", "q80<u?c2mv",
                       "d51)u4;X3wrf", "6n04%Ei'Hm3V", "m#o)fp^2aRf207", "4i_55fQ$2Mnh30"]
        var files = [
            "dossier.yml": "title: S\nbase_url: https://x.example/\noutput: _site\n"
                + "recall: {strings: data/strings.txt, logs: data/logs}\n",
            "data/strings.txt": strings.joined(separator: "\n") + "\n",
        ]
        let set = StringSet(strings: strings)
        for i in 1...logs {
            var sim = Simulator(strings: set, seed: UInt64(i))
            sim.tapsOnly = i % 4 == 0
            var text = sim.log(index: i)
            // Edge cases of the bytes read: no final newline, a byte-order mark, CR LF lines.
            if i % 5 == 1 { text.removeLast() }
            if i % 5 == 2 { text = "\u{FEFF}" + text }
            if i % 5 == 3 { text = text.replacingOccurrences(of: "\n", with: "\r\n") }
            files["data/logs/" + ["S\(i).jsonl", "s \(i) é.jsonl", "S\(i).JSONL"][i % 3]] = text
        }
        return try TestProject(files: files)
    }

    static func build(_ p: TestProject, clean: Bool, once: Bool) async throws -> BuildReport {
        var options = BuildOptions(clean: clean)
        options.readOwnInputsOnce = once
        return try await Builder(project: p.root, options: options, log: BuildLog(level: .quiet, sink: { _ in }))
            .build()
    }

    /// The same study built clean both ways: the same site, manifest and state (each unit's
    /// hash, each input's stamp); a build after the read-once one reuses every unit (the
    /// hashes are the plan's), and one changed log is read and built again alone.
    @Test func studyBuiltReadingEachLogOnceAsItsPlannedTwin() async throws {
        let once = try Self.study(13)
        let twin = try Self.study(13)
        defer { once.remove(); twin.remove() }
        for p in [twin] { _ = try await Self.build(p, clean: true, once: false) }
        let built = try await Self.build(once, clean: true, once: true)
        #expect(built.unitsBuilt > 13)
        #expect(once.tree() == twin.tree())
        let stateOnce = try #require(once.stateOfSite()), stateTwin = try #require(twin.stateOfSite())
        #expect(stateOnce.units.mapValues(\.hash) == stateTwin.units.mapValues(\.hash))
        // (The stamps are keyed by absolute path: compared by the path inside each project.)
        func stamps(_ s: BuildState, _ p: TestProject) -> [String: String] {
            Dictionary(uniqueKeysWithValues: s.inputs.map {
                (String($0.key.dropFirst(p.root.path.count)), "\($0.value.sha256) \($0.value.size)")
            })
        }
        #expect(stamps(stateOnce, once) == stamps(stateTwin, twin))
        #expect(stateOnce.inputs.count == 14)
        // Nothing changed: every unit and the summary reused, no input read.
        let again = try await Self.build(once, clean: false, once: true)
        #expect(again.unitsBuilt == 0, "\(again.unitsBuilt) units built again")
        // One log changed (its own bytes, the same size): that unit alone is built.
        let name = "data/logs/s 4 é.jsonl"
        let old = try #require(once.read(name))
        try once.write(name, old.replacingOccurrences(of: "simulated iPhone", with: "simulated iPhonf"))
        let changed = try await Self.build(once, clean: false, once: true)
        try twin.write(name, try #require(once.read(name)))
        _ = try await Self.build(twin, clean: true, once: false)
        #expect(changed.unitsBuilt == 2, "\(changed.unitsBuilt) units built")   // the unit and the summary
        #expect(once.tree() == twin.tree())
    }
}

extension TestProject {
    /// The build state of `_site`, as the next build reads it.
    func stateOfSite() -> BuildState? {
        let project = try? Project.load(root)
        guard let project else { return nil }
        let output = project.output
        return BuildState.load(
            project.stateFolder.appendingPathComponent("state-\(output.lastPathComponent).bin"), output: output)
    }
}
