#if canImport(GameAnalytics)
import Crypto
import Foundation
import GameAnalytics
import Privacy
import Testing
@testable import DossierKit

// MARK: - What the public cohort page shows of its noisy numbers (docs/game-privacy.md)

@Suite struct GamePublicShownTests {
    static let repo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let demo: CohortAnalysis? = {
        let data = repo.appendingPathComponent("Examples/demo/data/game/cohort.jsonl")
        return (try? TelemetryJSONL.read(files: [data])).map { CohortAnalyzer.analyze($0) }
    }()

    static func key(_ i: Int) -> Data { Data(SHA256.hash(data: Data("dossier-shown-\(i)".utf8))) }

    @Test func aRowWithNegativeCellsShowsNoPeopleBelowZeroAndAddsUp() {
        // The row: the raw cells sum to −1, so the group shows 0 everywhere.
        #expect(GamePublicRelease.shownRow([-5, 2, -3, 7, -4, 2]) == ([0, 0, 0, 0, 0, 0], 0))
        // Clamped [3, 0, 5] (sum 8) scaled to the total 6: 2.25 and 3.75, the larger remainder gets the unit.
        #expect(GamePublicRelease.shownRow([3, -2, 5]) == ([2, 0, 4], 6))
        #expect(GamePublicRelease.shownRow([4, 1, 0]) == ([4, 1, 0], 5))
    }

    /// Every row of both count tables on the page, over 20 releases of the demo cohort: no
    /// cell below 0, the cells add up to the row's total, the "All players" row adds the
    /// rows, and a row whose total is 0 shows no positive cell.
    @Test func everyShownTableAddsUp() throws {
        let a = try #require(Self.demo)
        for i in 0..<20 {
            let r = GamePublicRelease.make(a, settings: GamePrivacySettings(key: Self.key(i)),
                                           inputs: Data("demo".utf8))
            let model = try #require(GamePublicPage.build(a, release: r,
                                                          simulated: true).page.model as? GamePublicPageModel)
            for (name, table) in [("bandTable", model.bandTable), ("genderTable", model.genderTable)] {
                var columnSums: [Int]? = nil, rowTotals = 0
                for row in table.rows + [table.totals] {
                    let cells = row.cells.compactMap { Int($0) }
                    let total = try #require(Int(row.total))
                    #expect(cells.count == row.cells.count)
                    #expect(cells.allSatisfy { $0 >= 0 } && cells.reduce(0, +) == total, "\(name) \(row.label)")
                    if row.label == "All players" {
                        #expect(cells == columnSums && total == rowTotals)
                        #expect(model.players == "\(total)")
                    } else {
                        columnSums = columnSums.map { zip($0, cells).map(+) } ?? cells
                        rowTotals += total
                    }
                }
            }
        }
    }

    /// A group of 16 players (the demo's medicated group cut down) passes the ≥ 20 rule
    /// in at most a few of 100 releases (1.2 % expected, docs/game-privacy.md), and when it
    /// fails its τ quartiles and comparisons are not shown; the large control group passes
    /// in every release. The noisy point (the old rule) would pass a group of 16 often.
    @Test func aSmallGroupRarelyPassesTheMinimumAndShowsNothingWhenItFails() throws {
        var a = try #require(Self.demo)
        let medicated = a.players.filter { $0.group == .medicated }
        let keep = Set(GamePublicRelease.completeCases(medicated).prefix(16).map(\.id))
        a.players.removeAll { $0.group == .medicated && !keep.contains($0.id) }
        var passed = 0, pointPassed = 0
        for i in 0..<100 {
            let r = GamePublicRelease.make(a, settings: GamePrivacySettings(key: Self.key(i)),
                                           inputs: Data("small".utf8))
            #expect(r.shown(.control))
            if (r.stats[.medicated]?.first?.n ?? 0) >= GamePublicRelease.minimumGroup { pointPassed += 1 }
            if r.shown(.medicated) { passed += 1; continue }
            let model = try #require(GamePublicPage.build(a, release: r,
                                                          simulated: true).page.model as? GamePublicPageModel)
            #expect(!model.tau.contains { $0.group == Group.medicated.label })
            for block in model.comparisons where [block.groupA, block.groupB].contains(Group.medicated.label) {
                #expect(block.rows.allSatisfy { $0.hedgesG == "–" && $0.interval == "–" })
            }
        }
        #expect(passed <= 5, "a group of 16 passed in \(passed) of 100 releases")
        #expect(pointPassed >= 10, "the noisy point passed in \(pointPassed) of 100 releases")
    }
}
#endif
