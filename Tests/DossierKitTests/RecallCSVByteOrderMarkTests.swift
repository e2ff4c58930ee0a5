import Foundation
import RecallStudy
@testable import Render
import Testing
@testable import DossierKit

/// Round seven's CSV files (docs/perf-study.md, "Round seven, data path"): written with
/// the byte-order mark, against the build's copy that added it.
struct RecallCSVByteOrderMarkTests {
    /// raw.csv and rolled-up.csv written with the mark are the files the build made by
    /// adding it (`CSVWriter.withBOM`), which then leaves them as they are.
    @Test func bomWrittenAsTheBuildAddedIt() throws {
        let sets = [StringSet.nistDesktop, try RecallRenderTests.edgeStrings()]
        for s in try RecallRenderTests.simulatedSessions(sets, seed: 70, count: 2) {
            let plain = RecallRender.rawCSV(log: s.log, result: s.result, strings: s.strings)
            let marked = RecallRender.rawCSV(log: s.log, result: s.result, strings: s.strings, bom: true)
            #expect(marked == CSVWriter.withBOM(plain, true), "\(s.label)")
            #expect(CSVWriter.withBOM(marked, true) == marked)
            let rolled = RolledUp.table(s.result)
            #expect(RecallRender.csv(rolled, bom: true) == CSVWriter.withBOM(RecallRender.csv(rolled), true))
            #expect(RecallRender.csv(rolled, bom: false) == RecallRender.csv(rolled))
        }
    }
}
