#if canImport(GameAnalytics)
import Crypto
import Foundation
import GameAnalytics
import Privacy
import Testing
@testable import DossierKit

// MARK: - Utility of the public game site over 100 keys (docs/game-privacy.md, "Utility")

/// The demo cohort analysed once, then released with 100 keys at the default budget; each
/// published kind of number is compared with its exact value. `make privacy-utility`
/// writes the report (DOSSIER_PRIVACY_REPORT names the file).
@Suite struct GamePrivacyUtilityTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func quantile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        return s[min(s.count - 1, Int(p * Double(s.count)))]
    }

    /// Mann–Whitney AUC (ties ½), straight from its definition.
    func auc(_ pos: [Double], _ neg: [Double]) -> Double {
        pos.reduce(0.0) { acc, p in acc + neg.reduce(0.0) { $0 + (p > $1 ? 1 : p == $1 ? 0.5 : 0) } }
            / Double(pos.count * neg.count)
    }

    /// The public model's procedure without any noise (reference (a), docs/game-privacy.md):
    /// the exact fit on every training player, each scored in-sample by it.
    func noiseFree(_ a: CohortAnalysis) throws -> (pos: [Double], neg: [Double]) {
        let train = GamePublicModel.training(a.players, minimumEncounters: a.options.minimumEncounters)
        let w = try #require(GamePublicModel.exactFit(train))
        let scored = train.map { ($0.positive, BoundedLogistic.probability(w, $0.x)) }
        return (scored.filter(\.0).map(\.1), scored.filter { !$0.0 }.map(\.1))
    }

    /// Hedges' g conclusions (docs/game-privacy.md, "Honest intervals"): the private site's
    /// exact interval against the public page's, per compared measure and group pair; a
    /// comparison of a hidden group is "not shown".
    struct Agreement {
        var same = 0, hidden = 0, opposite = 0, publicOnly = 0, privateOnly = 0
        var total: Int { same + hidden + opposite + publicOnly + privateOnly }
        var share: Double { Double(same) / Double(max(1, total)) }
        /// The same conclusion, or the public interval holds 0 ("cannot tell") where the private one does not.
        var compatible: Double { Double(same + privateOnly) / Double(max(1, total)) }

        mutating func add(_ a: CohortAnalysis, _ r: GamePublicRelease) {
            for c in a.comparisons {
                guard let i = GamePublicRelease.ranges.firstIndex(where: { $0.measure == c.measure }),
                      let low = c.gLow, let high = c.gHigh else { continue }
                let exact = GamePublicRelease.conclusion(low: low, high: high)
                guard r.shown(c.groupA), r.shown(c.groupB), let sa = r.stats[c.groupA]?[i],
                    let sb = r.stats[c.groupB]?[i],
                      let h = r.hedgesWithNoise(sa, sb, measure: i) else { hidden += 1; continue }
                let noisy = GamePublicRelease.conclusion(low: h.low, high: h.high)
                if noisy == exact { same += 1 } else if noisy == 0 { privateOnly += 1 }
                else if exact == 0 { publicOnly += 1 } else { opposite += 1 }
            }
        }

        var report: String {
            func pct(_ k: Int) -> String { GameFormat.num(100 * Double(k) / Double(max(1, total)), 1) }
            return """
                Hedges' g over \(total) comparisons (3 measures × 3 group pairs × 100 releases), the public 95 % \
                interval
                (noise included) against the private site's exact one: the same conclusion (above 0, below 0, or \
                holding 0)
                in \(same) (\(pct(same)) %); public holds 0 where the private is significant in \(privateOnly) \
                (\(pct(privateOnly)) %);
                public significant where the private holds 0 in \(publicOnly) (\(pct(publicOnly)) %); opposite \
                directions in
                \(opposite) (\(pct(opposite)) %); a group too small to show in \(hidden) (\(pct(hidden)) %). \
                Compatible (the same
                conclusion, or the public page cannot tell): \(pct(same + privateOnly)) %.
                """
        }
    }

    /// What holds at the default budget (docs/game-privacy.md, "Utility"): the public
    /// model's exact in-sample AUC is within 0.03 of the private model's exact out-of-fold
    /// AUC (its optimism); the published AUC is within ±0.03 of the private AUC in at least
    /// 95 % of releases and above 0.5 in all of them.
    @Test func atTheDefaultBudgetTheDemoAUCKeepsItsDocumentedAccuracy() throws {
        let data = Self.repo.appendingPathComponent("Examples/demo/data/game/cohort.jsonl")
        let a = CohortAnalyzer.analyze(try TelemetryJSONL.read(files: [data]))
        let model = try #require(a.model)
        let group = Dictionary(a.players.map { ($0.id, $0.group) }, uniquingKeysWith: { x, _ in x })
        // Exact values: AUC of the out-of-fold scores (Mann–Whitney), cells, complete-case means, calibration shares.
        let pos = model.outOfFold.filter { group[$0.key] == .adhd }.map(\.value)
        let neg = model.outOfFold.filter { group[$0.key] != .adhd }.map(\.value)
        let exactAUC = auc(pos, neg)
        let cells = GamePublicRelease.countCells(a.players)
        var exactMeans: [Group: [Double]] = [:]
        for g in Group.allCases {
            let c = GamePublicRelease.completeCases(a.players.filter { $0.group == g })
            exactMeans[g] = GamePublicRelease.ranges.map { m in
                c.compactMap { $0.measures.value(m.measure) }.reduce(0, +) / Double(max(1, c.count))
            }
        }
        var aucErr: [Double] = [], vsNoiseFree: [Double] = [], published: [Double] = []
        var countErr: [Double] = [], meanErr: [Double] = [], calErr: [Double] = []
        var groupErr: [Double] = [], allErr: [Double] = []
        var agreement = Agreement()
        let free = try noiseFree(a)
        let train = GamePublicModel.training(a.players, minimumEncounters: a.options.minimumEncounters)
        let freeAUC = auc(free.pos, free.neg)
        for seed in 0..<100 {
            let key = Data(SHA256.hash(data: Data("dossier-utility-\(seed)".utf8)))
            let r = GamePublicRelease.make(a, settings: GamePrivacySettings(key: key), inputs: Data("demo".utf8))
            let f = try #require(r.modelFigures())
            let A = try #require(f.auc)
            aucErr.append(abs(A - exactAUC)); published.append(A)
            vsNoiseFree.append(abs(A - freeAUC))
            // Calibration reference: the released model's exact histograms (no histogram noise).
            let exactBins = GamePublicModel.histograms(
                train, model: try #require(r.publicModel), bins: GamePublicRelease.scoreBins)
            let calY = exactBins.positive, calN = zip(exactBins.positive, exactBins.negative).map { $0 + $1 }
            let noisy = r.cells.flatMap { $0.flatMap { $0 } }
            countErr += zip(noisy, cells).map { Double(abs($0 - $1)) }
            for g in Group.allCases {
                groupErr.append(Double(abs(r.groupSize(g) - a.players.filter { $0.group == g }.count)))
            }
            allErr.append(Double(abs(Group.allCases.reduce(0) { $0 + r.groupSize($1) } - a.players.count)))
            agreement.add(a, r)
            for g in Group.allCases where r.shown(g) {
                for (i, m) in GamePublicRelease.ranges.enumerated() {
                    guard let st = r.stats[g]?[i], let mean = st.mean else { continue }
                    meanErr.append(100 * abs(mean - exactMeans[g]![i]) / (m.upper - m.lower))
                }
            }
            for (b, c) in f.calibration.enumerated() where calN[b] >= 20 {
                if let obs = c.3 { calErr.append(abs(obs - Double(calY[b]) / Double(calN[b]))) }
            }
        }
        func share(_ xs: [Double], _ ok: (Double) -> Bool) -> Double { Double(xs.filter(ok).count) / Double(xs.count) }
        let within = share(aucErr) { $0 <= 0.03 }, within20 = share(aucErr) { $0 <= 0.2 }
        let aboveChance = share(published) { $0 > 0.5 }
        #expect(
            abs(freeAUC - exactAUC) <= 0.03,
            "noise-free public model's in-sample AUC \(freeAUC), private out-of-fold \(exactAUC)")
        #expect(within >= 0.95, "published AUC within ±0.03 of the private AUC in \(within * 100) % of releases")
        #expect(within20 == 1, "published AUC within ±0.2 of the private AUC in \(within20 * 100) % of releases")
        #expect(aboveChance == 1, "published AUC above 0.5 in \(aboveChance * 100) % of releases")
        #expect(quantile(meanErr, 0.5) < 5, "median group-mean error \(quantile(meanErr, 0.5)) % of range")
        // The promise of docs/game-privacy.md, "Honest intervals".
        #expect(
            agreement.opposite <= agreement.total / 50,
            "\(agreement.opposite) public intervals significant the other way")
        #expect(
            agreement.compatible >= 0.97,
            "public conclusion compatible with the private one in \(agreement.compatible * 100) %")

        if let out = ProcessInfo.processInfo.environment["DOSSIER_PRIVACY_REPORT"] {
            let total = Double(GamePrivacySettings(key: Data()).epsilonMilli) / 1000
            let budget = GamePublicRelease.shares.map { "\($0.label) \(GameFormat.num($0.share.double * total, 3))" }
                .joined(separator: ", ")
            func row(_ name: String, _ xs: [Double], _ unit: String) -> String {
                "| \(name) | \(xs.count) | \(GameFormat.num(quantile(xs, 0.5), 3)) | "
                    + "\(GameFormat.num(quantile(xs, 0.9), 3)) | \(GameFormat.num(quantile(xs, 0.95), 3)) | "
                    + "\(GameFormat.num(xs.max(), 3)) | \(unit) |"
            }
            let calibrationRow = row("calibration share against the same model's exact bins (bins with ≥ 20 players)",
                                     calErr, "share")
            let text = """
                # Utility of the public game site (demo cohort, default budget ε = 6)

                100 releases with keys SHA-256("dossier-utility-<i>"), i = 0…99, at the default budget
                (docs/game-privacy.md); made by `make privacy-utility`
                (Tests/DossierKitTests/GamePrivacyUtilityTests.swift). Absolute errors against the exact values.

                | number | values | median | 90 % | 95 % | max | unit |
                |---|---|---|---|---|---|---|
                \(row("count cell (group × band × gender)", countErr, "players"))
                \(row("group mean (3 measures, shown groups)", meanErr, "% of clamp range"))
                \(row("AUC against (b) the private model's exact out-of-fold AUC", aucErr, "AUC"))
                \(row("AUC against (a) the same model's exact in-sample AUC", vsNoiseFree, "AUC"))
                \(row("a group's size (shown total of its row)", groupErr, "players"))
                \(row("number of players (shown total)", allErr, "players"))
                \(calibrationRow)

                The private site's exact out-of-fold AUC (b) is \(GameFormat.num(exactAUC, 4)); the public model's \
                exact fit scores its own
                training players (in-sample, no noise) at AUC (a) \(GameFormat.num(freeAUC, 4)), an optimism of \
                \(GameFormat.num(freeAUC - exactAUC, 4)).
                The published AUC has median \(GameFormat.num(quantile(published, 0.5), 3)) and is within ±0.03 of \
                (b) in \(GameFormat.num(within * 100, 0)) % of
                releases, within ±0.2 in \(GameFormat.num(within20 * 100, 0)) %, and above 0.5 in \
                \(GameFormat.num(aboveChance * 100, 0)) %. Budget (ε): \(budget).

                \(agreement.report)

                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        }
    }
}
#endif
