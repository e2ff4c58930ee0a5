import CompactBinary
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

/// One participant's rows of the study-wide files, already as bytes: the blob a
/// participant unit leaves (``UnitResult/blob``) so the study summary writes
/// `entries`, `recall`, `study-table`, `participants` (CSV and JSON) and the dynamics
/// tables by concatenating blocks, without decoding any participant or holding any
/// table in memory (docs/incremental.md gives the format and the concatenation rules).
struct RecallRowBlocks {
    /// The streamed tables, in blob order, with their row functions.
    static let tables: [(name: String, rows: @Sendable ([StudyParticipant]) -> RecallStudy.Table)] = [
        ("entries", StudyTables.entries), ("recall", StudyTables.recall),
        ("study-table", StudyTables.tidyStudy), ("participants", StudyTables.participants),
    ]
    /// Per table (``tables`` order): CSV rows without the header; JSON rows as
    /// ``RecallTableStream/jsonRows``. Decoded blocks are slices of the blob's bytes
    /// (the summary reads ~90 MB of blocks at 2,000 participants: not copied again).
    var csv: [Data] = []
    var json: [Data] = []
    /// Per distinct (string, key sequence) of the participant's timings, in
    /// ``StudyContribution/sequences`` order: the CSV rows of that string's dynamics
    /// table when the sequence is the table's.
    var dynamics: [(string: Int, keys: [String], csv: Data)] = []

    /// The JSON keys of ``tables``, made once (round six sorted and quoted each table's
    /// header, and made each dynamics table's header, again for every participant).
    static let columns = tables.map { RecallTableStream.Columns(header: $0.rows([]).header) }

    init(_ p: StudyParticipant) {
        // The CSV rows are written by ``TableRowsCSV`` (the same bytes as the stream's
        // `csvRowsData`: `RecallRowBlocksTests`), the JSON rows by the stream.
        for (t, columns) in zip(Self.tables, Self.columns) {
            let rows = t.rows([p]).rows
            csv.append(TableRowsCSV.data(rows: rows))
            var s = RecallTableStream(columns, headerRecord: false, csv: false)
            s.append(rows)
            json.append(s.jsonRowsData)
        }
        for q in p.contribution.sequences {
            var w = TableRowsCSV.buffer(rows: 8)
            for t in p.detail.timings where t.string == q.string && t.keys == q.keys {
                w.tableCells(DynamicsTable.row(t, participant: p.summary.participant, sourceFile: p.sourceFile))
            }
            dynamics.append((q.string, q.keys, w.data()))
        }
    }

    private init() {}

    static let magic = Array("DOSSIER-RECALL-ROWS\n".utf8)
    static let version: UInt8 = 2

    /// `DOSSIER-RECALL-ROWS\n`, version byte 2 (entries with `one_tap`), then per table (``tables`` order) the CSV
    /// rows and the JSON rows (each u32 length + bytes), then u32 n dynamics blocks
    /// (i64 string, u32 k × string key, u32 length + CSV rows), then `END\n`.
    func encoded() -> Data {
        var w = CompactWriter(capacity: 64 + csv.reduce(0) { $0 + $1.count } + json.reduce(0) { $0 + $1.count })
        w.raw(Self.magic)
        w.u8(Self.version)
        for i in Self.tables.indices { w.data(csv[i]); w.data(json[i]) }
        w.count(dynamics.count)
        for d in dynamics {
            w.int(d.string)
            w.count(d.keys.count); for k in d.keys { w.string(k) }
            w.data(d.csv)
        }
        w.raw(Array("END\n".utf8))
        return Data(w.bytes)
    }

    /// nil unless `data` is exactly one blob of this version.
    static func decode(_ data: Data) -> RecallRowBlocks? {
        data.withUnsafeBytes { b -> RecallRowBlocks? in
            var r = CompactReader(b)
            var out = RecallRowBlocks()
            /// The next `u32 n + n bytes` as a slice of `data` (shared storage, no copy).
            func block() -> Data? {
                guard let n = r.count(), r.take(n) != nil else { return nil }
                let end = data.startIndex + r.position
                return data[(end - n)..<end]
            }
            guard r.expect(magic), r.u8() == version else { return nil }
            for _ in tables.indices {
                guard let c = block(), let j = block() else { return nil }
                out.csv.append(c); out.json.append(j)
            }
            guard let nd = r.count() else { return nil }
            for _ in 0..<nd {
                guard let s = r.int(), let nk = r.count() else { return nil }
                var keys: [String] = []
                for _ in 0..<nk { guard let k = r.string() else { return nil }; keys.append(k) }
                guard let rows = block() else { return nil }
                out.dynamics.append((s, keys, rows))
            }
            guard r.expect(Array("END\n".utf8)), r.atEnd else { return nil }
            return out
        }
    }
}
