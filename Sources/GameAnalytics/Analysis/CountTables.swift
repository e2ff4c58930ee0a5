#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Published group counts (docs/game-measures.md, "Publishing counts")

/// The cohort's counts as they may be published: group × age band and group × gender,
/// each with row totals (the group sizes, shared by both tables), column totals and the
/// grand total, suppressed together by ``Suppression``.
public struct CountTables: Sendable, Hashable, Codable {
    public struct Cell: Sendable, Hashable, Codable {
        public var value: Int
        public var status: Suppression.Status
        /// "12", "<5" or "suppressed".
        public var text: String { Suppression.text(value, status) }
    }
    public var groups: [Group]
    public var bands: [String]
    public var genders: [String]
    /// byBand[g][b], byGender[g][k]
    public var byBand: [[Cell]]
    public var byGender: [[Cell]]
    public var groupTotals: [Cell]
    public var bandTotals: [Cell]
    public var genderTotals: [Cell]
    public var total: Cell

    /// Whether a group's size is published (its statistics may then be shown).
    public func isShown(_ g: Group) -> Bool {
        groups.firstIndex(of: g).map { groupTotals[$0].status == .shown } ?? false
    }

    public static func build(_ players: [PlayerResult]) -> CountTables {
        let groups = Group.allCases
        let bands = AgeBand.bands.map(\.label) + ["unknown"]
        let genders = ["female", "male", "other", "unknown"]
        var values: [Int] = []
        func add(_ n: Int) -> Int { values.append(n); return values.count - 1 }
        let bandIdx = groups.map { g in
            bands.map { b in add(players.filter { $0.group == g && ($0.ageBand ?? "unknown") == b }.count) }
        }
        let genderIdx = groups.map { g in
            genders.map { k in add(players.filter { $0.group == g && ($0.survey?.gender ?? "unknown") == k }.count) }
        }
        let gTot = groups.map { g in add(players.filter { $0.group == g }.count) }
        let bTot = bands.map { b in add(players.filter { ($0.ageBand ?? "unknown") == b }.count) }
        let kTot = genders.map { k in add(players.filter { ($0.survey?.gender ?? "unknown") == k }.count) }
        let grand = add(players.count)
        var eq: [Suppression.Equation] = []
        for gi in groups.indices {
            eq.append(.init(parts: bandIdx[gi], total: gTot[gi]))
            eq.append(.init(parts: genderIdx[gi], total: gTot[gi]))
        }
        for bi in bands.indices { eq.append(.init(parts: groups.indices.map { bandIdx[$0][bi] }, total: bTot[bi])) }
        for ki in genders.indices { eq.append(.init(parts: groups.indices.map { genderIdx[$0][ki] }, total: kTot[ki])) }
        eq.append(.init(parts: bTot, total: grand))
        eq.append(.init(parts: kTot, total: grand))
        eq.append(.init(parts: gTot, total: grand))
        let st = Suppression.apply(values: values, equations: eq)
        func cell(_ i: Int) -> Cell { Cell(value: values[i], status: st[i]) }
        return CountTables(groups: groups, bands: bands, genders: genders,
                           byBand: bandIdx.map { $0.map(cell) }, byGender: genderIdx.map { $0.map(cell) },
                           groupTotals: gTot.map(cell), bandTotals: bTot.map(cell), genderTotals: kTot.map(cell),
                           total: cell(grand))
    }
}
