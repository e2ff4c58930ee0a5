#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CompactBinary
import RecallStudy

/// What a unit leaves for the summary. A participant's is binary (byte 0x04, the slug,
/// the string set, the summary, the contribution: thousands are read by every summary);
/// a desktop cohort's (a handful) is JSON.
struct RecallRecord: Codable {
    var kind, id, slug: String
    var participant: ParticipantSummary?
    var cohort: CohortTable?
    /// What the study aggregates need of the participant (binary records only).
    var contribution: StudyContribution?
    /// The participant's string set (binary records).
    var set: String?

    enum CodingKeys: String, CodingKey { case kind, id, slug, participant, cohort }

    /// Byte 0x04, the slug, the string set's name, the summary (u32 length + bytes), then
    /// the contribution. (0x01–0x03, written before, carried the participant's rows.)
    static func participantData(slug: String, set: String, _ summary: ParticipantSummary,
                                _ contribution: StudyContribution) -> Data {
        var w = CompactWriter()
        w.u8(0x04)
        w.string(slug)
        w.string(set)
        w.data(Data(summary.compactBytes()))
        w.raw(contribution.compactBytes())
        return Data(w.bytes)
    }

    static func decode(_ data: Data) throws -> RecallRecord {
        guard let version = data.first, version <= 0x04 else {
            return try JSONDecoder().decode(RecallRecord.self, from: data)
        }
        if version != 0x04 {
            throw DossierError(
                "recall: the build state holds participant records of an older Dossier; run with --clean")
        }
        let rec: RecallRecord? = data.withUnsafeBytes { b in
            var r = CompactReader(b)
            _ = r.u8()
            guard let slug = r.string(), let set = r.string(), let n = r.count(), let sb = r.take(n),
                  let summary = ParticipantSummary(compactBytes: sb),
                  let contribution = StudyContribution(
                    compactBytes: UnsafeRawBufferPointer(rebasing: b[r.position...])) else { return nil }
            return RecallRecord(kind: "participant", id: "p-" + slug, slug: slug, participant: summary,
                                cohort: nil, contribution: contribution, set: set)
        }
        guard let rec else {
            throw DossierError("recall: a participant record in the build state is damaged; run with --clean")
        }
        return rec
    }
}
