import Foundation
import Testing
@testable import GameAnalytics

@Suite struct AnalysisTests {
    @Test func simulatorIsDeterministicPerSeed() {
        let a = Simulator(players: 15, seed: 3).run(), b = Simulator(players: 15, seed: 3).run()
        #expect(a == b)
        #expect(TelemetryJSONL.text(for: a) == TelemetryJSONL.text(for: b))
        #expect(a != Simulator(players: 15, seed: 4).run())
        // The generated telemetry passes the reader's validation.
        var r = TelemetryJSONL.Reader()
        #expect(throws: Never.self) { try r.add(text: TelemetryJSONL.text(for: a), file: "x") }
    }

    @Test func simulatorProfilesFollowTheDocumentedAssumptions() {
        // Mean true τ multiplier and omission probability over many draws, adults 18–29.
        func means(diagnosed: Bool, medicated: Bool) -> (tau: Double, omission: Double, sigma: Double) {
            var rng = SeededRandom(seed: 99)
            var t = 0.0, o = 0.0, s = 0.0
            for _ in 0..<4000 {
                let p = Simulator.profile(
                    age: 25, gender: "female", diagnosed: diagnosed, medicated: medicated, rng: &rng)
                t += p.tau; o += p.omission; s += p.sigma
            }
            return (t / 4000, o / 4000, s / 4000)
        }
        let control = means(diagnosed: false, medicated: false)
        let adhd = means(diagnosed: true, medicated: false)
        let med = means(diagnosed: true, medicated: true)
        // τ: ×1.3 with ADHD, ×1.15 medicated (80 ms baseline).
        #expect(abs(adhd.tau / control.tau - 1.3) < 0.05)
        #expect(abs(med.tau / control.tau - 1.15) < 0.05)
        #expect(adhd.omission > med.omission && med.omission > control.omission)
        #expect(adhd.sigma > med.sigma && med.sigma > control.sigma)
    }

    @Test func simulatedCohortShowsGroupDifferencesAndARealisticModel() throws {
        // 240 players give 46 unmedicated diagnosed training players: too few for 8 predictors.
        let small = CohortAnalyzer.analyze(Simulator(players: 240, seed: 1).run())
        #expect(small.model == nil && small.modelUnavailable?.contains("10 per predictor") == true)
        var sim = Simulator(players: 520, seed: 1)
        sim.obstaclesPerSession = 40
        var options = AnalysisOptions()
        options.bootstrapReplicates = 20
        let analysis = CohortAnalyzer.analyze(sim.run(), options: options)
        func g(_ m: String, _ a: Group, _ b: Group) -> Double? {
            analysis.comparisons.first { $0.measure == m && $0.groupA == a && $0.groupB == b }?.g
        }
        #expect(try #require(g("tau", .adhd, .control)) > 0.3)
        #expect(try #require(g("hitRTSD", .adhd, .control)) > 0.3)
        #expect(try #require(g("omissionRate", .adhd, .control)) > 0.2)
        let model = try #require(analysis.model)
        #expect(model.nTrain > 300 && min(model.nPositive, model.nTrain - model.nPositive) >= 80)
        let auc = try #require(model.cvAUC)
        // Literature-sized effects: clearly better than chance, far from perfect.
        #expect(auc > 0.6 && auc < 0.95)
        #expect(try #require(model.cvAUCLow) < auc && auc < (try #require(model.cvAUCHigh)))
        #expect(model.calibration.reduce(0) { $0 + $1.n } == model.nTrain)
        #expect(model.outOfFold.count == model.nTrain)
    }

    @Test func medicatedAndIncompletePlayersGetNoProbability() {
        let analysis = CohortAnalyzer.analyze(Simulator(players: 120, seed: 2).run())
        for p in analysis.players {
            switch p.group {
            case .medicated, .unknown:
                #expect(p.likelihood.probability == nil && !p.likelihood.suggest)
            case .adhd:
                #expect(!p.likelihood.suggest)
            case .control:
                if let lo = p.likelihood.low, let pr = p.likelihood.probability, let hi = p.likelihood.high {
                    #expect(lo <= pr && pr <= hi)
                }
            }
        }
    }

    @Test func suggestionNeedsEnoughDataAndAConfidentlyHighProbability() {
        let o = AnalysisOptions()
        var m = Measures.compute(Player(id: "p", survey: nil, sessions: []))
        m.encounters = 150; m.sessions = 3
        func run(_ p: Double, _ lo: Double, _ g: Group = .control) -> Bool {
            var lk = Likelihood(probability: p, low: lo, high: 1, unavailable: nil, suggest: false, reason: "")
            _ = CohortAnalyzer.suggestionReason(&lk, group: g, measures: m, options: o)
            return lk.suggest
        }
        #expect(run(0.8, 0.55))
        #expect(!run(0.8, 0.45))
        #expect(!run(0.65, 0.6))
        #expect(!run(0.9, 0.8, .adhd))
        m.sessions = 1
        #expect(!run(0.9, 0.8))
    }

    @Test func normsUseTheSameAgeBandAndGenderAndFlagSmallGroups() throws {
        // 12 controls aged 20 (female) with hit RT mean 300…410; one extra player.
        var players: [Player] = []
        func session(rt: Int) -> Session {
            let obs = (1...40).map { Obstacle(t: $0 * 2000, interval: 2000, kind: "crate") }
            return Session(index: 1, start: 0, end: 82_000, score: 0, obstacles: obs, taps: obs.map { $0.t + rt })
        }
        for i in 0..<12 {
            players.append(
                Player(
                    id: "c\(i)",
                    survey: Survey(complete: true, diagnosed: false, medicated: nil, age: 20, gender: "female"),
                    sessions: [session(rt: 300 + 10 * i)]))
        }
        players.append(
            Player(
                id: "x", survey: Survey(complete: true, diagnosed: true, medicated: false, age: 25, gender: "female"),
                sessions: [session(rt: 355)]))
        players.append(
            Player(
                id: "y", survey: Survey(complete: true, diagnosed: true, medicated: false, age: 50, gender: "male"),
                sessions: [session(rt: 355)]))
        let a = CohortAnalyzer.analyze(Cohort(players: players))
        let x = try #require(a.players.first { $0.id == "x" }?.norms.first { $0.measure == "hitRTMean" })
        #expect(x.referenceN == 12 && x.small && !x.fallback)
        #expect(x.reference == "No diagnosis, 18–29, female")
        // 355 lies above 6 of the 12 reference values (300…350) → 50th percentile; mean 355 → z 0.
        #expect(x.percentile == 50)
        #expect(abs(x.z!) < 1e-12)
        let y = try #require(a.players.first { $0.id == "y" }?.norms.first { $0.measure == "hitRTMean" })
        // Aged 50 while every reference player is 20 (band 18–29): flagged, not normed.
        #expect(y.outsideNormedAges && y.z == nil && y.reference.contains("outside the normed ages 18–29"))
    }
}
