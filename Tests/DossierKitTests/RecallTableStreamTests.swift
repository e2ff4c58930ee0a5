import Foundation
import Escaping
import RecallStudy
import Testing
@testable import DossierKit

/// The study-wide tables are written row by row (RecallTableStream); the bytes must be
/// those of the whole-table writers they replace.
@Suite struct RecallTableStreamTests {
    @Test func streamedCSVAndJSONEqualTheWholeTableWriters() {
        let header = ["participant", "source_file", "n", "x", "ok", "gap", "Zeta", "ä"]
        let rows: [[TableCell]] = [
            [
                .text("S1"), .text("logs/a \"b\".jsonl"), .int(3), .number(0.1 + 0.2), .flag(true), .empty,
                .text("=cmd"), .text("é\n\u{2028}")
            ],
            [.text("S2"), .text("x,y"), .int(-7), .number(1e-7), .flag(false), .number(2.5), .text(""), .text("\t")],
            [.text("S3"), .text("z"), .int(0), .number(123456789.123), .text("true"), .empty, .empty, .empty],
        ]
        let whole = RecallStudy.Table(header: header, rows: rows)
        var s = RecallTableStream(header: header)
        s.append(Array(rows.prefix(1)))
        s.append([])
        s.append(Array(rows.dropFirst()))
        #expect(s.csvData == RecallRender.csv(whole))
        #expect(
            String(decoding: s.jsonData, as: UTF8.self) == String(decoding: RecallStudyFiles.json(whole), as: UTF8.self)
        )
        let empty = RecallTableStream(header: header)
        #expect(empty.jsonData == RecallStudyFiles.json(RecallStudy.Table(header: header, rows: [])))
        #expect(empty.csvData == RecallRender.csv(RecallStudy.Table(header: header, rows: [])))
    }

    /// The byte path of a JSON string (`appendQuoted`) against `JSONText.quote`: every
    /// byte class it must send to `quote` (controls, `"`, `\`, U+2028/U+2029 and other
    /// `E2` characters), non-ASCII it may copy, at random.
    @Test func quotedTextAsJSONTextQuotes() {
        let pieces = [
            "a", "S001", "data/logs/S1.jsonl", "\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", " ", "/", "é",
            "\u{2028}", "\u{2029}", "\u{2027}", "\u{2030}", "€", "😀", "\r\n", "=", ",", "True"
        ]
        var texts = [""] + pieces
        var g = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            texts.append((0..<Int.random(in: 1...8, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined())
        }
        for t in texts {
            var out: [UInt8] = [0x2C]
            RecallTableStream.appendQuoted(t, to: &out)
            #expect(out == [0x2C] + Array(JSONText.quote(t).utf8), "\(t.debugDescription)")
        }
    }

    /// A participant's rows written without the header record (``RecallRowBlocks``,
    /// shared ``RecallTableStream/Columns``) are the rows of a stream with it.
    @Test func rowsWithoutTheHeaderRecordAsWithIt() {
        let header = ["participant", "source_file", "n", "x", "ok"]
        let rows: [[TableCell]] = [[.text("S1"), .text("a\u{2028}b"), .int(3), .number(0.125), .flag(true)],
                                   [.text("S2"), .text("x,y"), .int(-7), .number(1.5), .empty]]
        var with = RecallTableStream(header: header),
            without = RecallTableStream(.init(header: header), headerRecord: false)
        var csvOnly = RecallTableStream(.csvOnly, headerRecord: false)
        with.append(rows); without.append(rows); csvOnly.append(rows)
        #expect(without.csvRows == with.csvRows && without.jsonRows == with.jsonRows)
        #expect(csvOnly.csvRows == with.csvRows && csvOnly.csvData == Data(with.csvRows))
        #expect(without.csvRowsData == Data(with.csvRows) && without.jsonRowsData == Data(with.jsonRows))
        #expect(with.csvRowsData == Data(with.csvRows) && with.jsonRowsData == Data(with.jsonRows))
    }
}
