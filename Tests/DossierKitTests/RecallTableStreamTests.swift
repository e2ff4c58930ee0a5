import Foundation
import RecallStudy
import Testing
@testable import DossierKit

/// The study-wide tables are written row by row (RecallTableStream); the bytes must be
/// those of the whole-table writers they replace.
@Suite struct RecallTableStreamTests {
    @Test func streamedCSVAndJSONEqualTheWholeTableWriters() {
        let header = ["participant", "source_file", "n", "x", "ok", "gap", "Zeta", "ä"]
        let rows: [[TableCell]] = [
            [.text("S1"), .text("logs/a \"b\".jsonl"), .int(3), .number(0.1 + 0.2), .text("True"), .empty, .text("=cmd"), .text("é\n\u{2028}")],
            [.text("S2"), .text("x,y"), .int(-7), .number(1e-7), .text("False"), .number(2.5), .text(""), .text("\t")],
            [.text("S3"), .text("z"), .int(0), .number(123456789.123), .text("true"), .empty, .empty, .empty],
        ]
        let whole = RecallStudy.Table(header: header, rows: rows)
        var s = RecallTableStream(header: header)
        s.append(Array(rows.prefix(1)))
        s.append([])
        s.append(Array(rows.dropFirst()))
        #expect(s.csvData == RecallRender.csv(whole))
        #expect(String(decoding: s.jsonData, as: UTF8.self) == String(decoding: RecallStudyFiles.json(whole), as: UTF8.self))
        let empty = RecallTableStream(header: header)
        #expect(empty.jsonData == RecallStudyFiles.json(RecallStudy.Table(header: header, rows: [])))
        #expect(empty.csvData == RecallRender.csv(RecallStudy.Table(header: header, rows: [])))
    }
}
