#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RecallStudy
import Render

/// `recall: strings:` as one file or as named sets (docs/recall-section.md, "String
/// sets"), and the summary of a project with more than one set.
enum RecallSets {
    /// One entry of the manifest: the set's name and its file.
    struct Entry { var name: String; var url: URL }

    /// `strings: FILE` → one set named by the file's stem; `strings: {NAME: FILE, …}` →
    /// the sets in manifest order, the first the default. Names are 1–40 characters of
    /// `A–Z a–z 0–9 . _ -` (they name the folder `recall/sets/NAME/`), not starting with `.`.
    static func entries(_ config: SectionConfig) throws -> [Entry] {
        guard case .map(let items, _)? = config.value("strings") else {
            let url = try config.path("strings")!
            return [Entry(name: url.deletingPathExtension().lastPathComponent, url: url)]
        }
        if items.isEmpty { throw config.error("strings", "name at least one string set") }
        var out: [Entry] = []
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        for item in items {
            func fail(_ m: String) -> DossierError {
                DossierError(file: config.file, line: item.keyLine, "recall.strings.\(item.key): \(m)")
            }
            guard !item.key.isEmpty, item.key.count <= 40, item.key.allSatisfy(allowed.contains),
                  !item.key.hasPrefix(".") else {
                throw fail("a set name is 1–40 letters, digits, '.', '_' or '-' (not starting with '.')")
            }
            guard case .scalar(let path, _) = item.value else { throw fail("expected the path of a strings file") }
            let url = config.resolve(path)
            guard FileManager.default.fileExists(atPath: url.path) else { throw fail("file not found: \(path)") }
            try config.confinement?.check(url, shown: path)
            out.append(Entry(name: item.key, url: url))
        }
        return out
    }

    /// Loads every set's file (errors at the file's line), with the SHA-256 (hex) of the
    /// bytes parsed, by path (``Section/inputsReadEarly``).
    static func load(_ entries: [Entry], project: Project) throws -> (StringSets, [String: String]) {
        var digests: [String: String] = [:]
        do {
            let sets = StringSets(try entries.map { e in
                let shown = project.display(e.url)
                guard let data = FileManager.default.contents(atPath: e.url.path) else {
                    throw DossierError(file: shown, "cannot read the strings file")
                }
                digests[e.url.path] = Hashing.sha256(data)
                return StringSets.Named(name: e.name, strings: try StringSet.parse(data, file: shown), file: shown)
            })
            return (sets, digests)
        } catch let e as RecallError {
            throw DossierError(file: e.file, line: e.line, e.message)
        }
    }

    /// The model of `recall/index.html` for several sets: per set its file, participant
    /// count and participants (linked), and a link to the set's own summary.
    static func indexModel(_ sets: StringSets, _ groups: [String: [StudyAggregate.Row]], cohorts: Int,
                           kitSet: String?) -> RecallSetsModel {
        let rows = sets.sets.map { set in
            let members = groups[set.name] ?? []
            return RecallSetsModel.SetRow(
                name: set.name, file: set.file,
                participants: members.enumerated().map { index, member in
                    RecallSetsModel.Participant(slug: member.slug, participant: member.participant,
                                                last: index == members.count - 1)
                },
                complete: members.filter(\.complete).count)
        }
        let total = groups.values.reduce(0) { $0 + $1.count }
        return RecallSetsModel(sets: rows, participantCount: total, cohortCount: cohorts, kitSet: kitSet)
    }
}
