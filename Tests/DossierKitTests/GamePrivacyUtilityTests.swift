#if canImport(GameAnalytics)
import Crypto
import Foundation
import GameAnalytics
import Testing
@testable import DossierKit

// MARK: - Utility of the private game site over 100 keys (docs/game-privacy.md, "Utility")

/// The demo cohort analysed once, then released with 100 keys at the default budget; each
/// published kind of number is compared with its exact value. `make privacy-utility`
/// writes the report (DOSSIER_PRIVACY_REPORT names the file).
@Suite struct GamePrivacyUtilityTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func quantile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        return s[min(s.count - 1, Int(p * Double(s.count)))]
    }

    @Test func atTheDefaultBudgetTheDemoAUCIsWithin3HundredthsIn95PercentOfReleases() throws {
        let data = Self.repo.appendingPathComponent("Examples/demo/data/game/cohort.jsonl")
        let a = CohortAnalyzer.analyze(try TelemetryJSONL.read(files: [data]))
        let model = try #require(a.model)
        let group = Dictionary(a.players.map { ($0.id, $0.group) }, uniquingKeysWith: { x, _ in x })
        // Exact values: AUC of the out-of-fold scores (Mann–Whitney), cells, complete-case means, calibration shares.
        let pos = model.outOfFold.filter { group[$0.key] == .adhd }.map(\.value)
        let neg = model.outOfFold.filter { group[$0.key] != .adhd }.map(\.value)
        let exactAUC = pos.reduce(0.0) { acc, p in acc + neg.reduce(0.0) { $0 + (p > $1 ? 1 : p == $1 ? 0.5 : 0) } } / Double(pos.count * neg.count)
        let cells = GamePublicRelease.countCells(a.players)
        var exactMeans: [Group: [Double]] = [:]
        for g in Group.allCases {
            let c = GamePublicRelease.completeCases(a.players.filter { $0.group == g })
            exactMeans[g] = GamePublicRelease.ranges.map { m in c.compactMap { $0.measures.value(m.measure) }.reduce(0, +) / Double(max(1, c.count)) }
        }
        var calN = [Int](repeating: 0, count: 10), calY = [Int](repeating: 0, count: 10)
        for (id, p) in model.outOfFold { let b = min(9, Int(p * 10)); calN[b] += 1; if group[id] == .adhd { calY[b] += 1 } }

        var aucErr: [Double] = [], countErr: [Double] = [], meanErr: [Double] = [], calErr: [Double] = []
        for seed in 0..<100 {
            let key = Data(SHA256.hash(data: Data("dossier-utility-\(seed)".utf8)))
            let r = GamePublicRelease.make(a, settings: GamePrivacySettings(key: key), inputs: Data("demo".utf8))
            let f = try #require(r.modelFigures(threshold: a.options.suggestionProbability))
            aucErr.append(abs(try #require(f.auc) - exactAUC))
            let noisy = r.cells.flatMap { $0.flatMap { $0 } }
            countErr += zip(noisy, cells).map { Double(abs($0 - $1)) }
            for g in Group.allCases where r.shown(g) {
                for (i, m) in GamePublicRelease.ranges.enumerated() {
                    guard let st = r.stats[g]?[i], st.n >= GamePublicRelease.minimumGroup, let mean = st.mean else { continue }
                    meanErr.append(100 * abs(mean - exactMeans[g]![i]) / (m.upper - m.lower))
                }
            }
            for (b, c) in f.calibration.enumerated() where calN[b] >= 20 {
                if let obs = c.3 { calErr.append(abs(obs - Double(calY[b]) / Double(calN[b]))) }
            }
        }
        let within = Double(aucErr.filter { $0 <= 0.03 }.count) / Double(aucErr.count)
        #expect(within >= 0.95, "AUC within ±0.03 in \(within * 100) % of releases")
        #expect(quantile(meanErr, 0.5) < 5, "median group-mean error \(quantile(meanErr, 0.5)) % of range")

        if let out = ProcessInfo.processInfo.environment["DOSSIER_PRIVACY_REPORT"] {
            func row(_ name: String, _ xs: [Double], _ unit: String) -> String {
                "| \(name) | \(xs.count) | \(GameFormat.num(quantile(xs, 0.5), 3)) | \(GameFormat.num(quantile(xs, 0.9), 3)) | \(GameFormat.num(quantile(xs, 0.95), 3)) | \(GameFormat.num(xs.max(), 3)) | \(unit) |"
            }
            let text = """
                # Utility of the private game site (demo cohort, default budget ε = 4)

                100 releases with keys SHA-256("dossier-utility-<i>"), i = 0…99, at the default budget
                (docs/game-privacy.md); made by `make privacy-utility`
                (Tests/DossierKitTests/GamePrivacyUtilityTests.swift). Absolute errors against the exact values.

                | number | values | median | 90 % | 95 % | max | unit |
                |---|---|---|---|---|---|---|
                \(row("count cell (group × band × gender)", countErr, "players"))
                \(row("group mean (3 measures, shown groups)", meanErr, "% of clamp range"))
                \(row("cross-validated AUC", aucErr, "AUC"))
                \(row("calibration share (bins with ≥ 20 players)", calErr, "share"))

                Exact out-of-fold AUC \(GameFormat.num(exactAUC, 4)); the published AUC is within ±0.03 of it in \(GameFormat.num(within * 100, 0)) % of releases.

                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        }
    }
}
#endif
