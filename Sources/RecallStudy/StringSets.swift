#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - More than one strings file per project (seed 4a.3: strings change between waves)

/// The project's named string sets, in manifest order; the first is the default
/// (docs/recall-section.md, "String sets").
public struct StringSets: Sendable {
    public struct Named: Sendable {
        public var name: String
        public var strings: StringSet
        /// The strings file as shown in messages and pages.
        public var file: String
        public init(name: String, strings: StringSet, file: String) {
            self.name = name; self.strings = strings; self.file = file
        }

        /// Whether every declared string is this set's string of the same number.
        func agrees(with declared: [DeclaredString]) -> Bool {
            declared.allSatisfy { (1...StringSet.count).contains($0.number) && $0.text == strings[number: $0.number] }
        }
    }

    public var sets: [Named]

    /// At least one set, names unique (the caller checks both with the manifest's line).
    public init(_ sets: [Named]) { precondition(!sets.isEmpty); self.sets = sets }

    /// The set used by a log that names none (and by desktop Raw Data logs).
    public var defaultSet: Named { sets[0] }

    public var isSingle: Bool { sets.count == 1 }

    public func named(_ name: String) -> Named? { sets.first { $0.name == name } }

    /// The set a log is compared against: the one its header names; for a log that names
    /// none (a native log without `set`, every desktop Raw Data log), the first set in
    /// manifest order — the default first — whose strings agree with every string the
    /// log declares (the header's `strings`, the desktop file's target column), else the
    /// default. A name the project does not define is an error at the header's line.
    public func resolve(_ log: SessionLog) throws -> Named {
        guard let name = log.stringSet else {
            guard !isSingle, !log.declaredStrings.isEmpty else { return defaultSet }
            return sets.first { $0.agrees(with: log.declaredStrings) } ?? defaultSet
        }
        if let s = named(name) { return s }
        throw RecallError(
            file: log.file, line: log.stringSetLine,
            "the log names string set \"\(name)\", which the project does not define (defined: "
                + "\(sets.map { "\"\($0.name)\"" }.joined(separator: ", ")))"
        )
    }
}

extension StudyTables {
    /// `recall/sets.csv`: which participant log used which string set; sets in manifest
    /// order, participants in unit order within a set.
    public static func sets(_ sets: StringSets, _ groups: [String: [StudyAggregate.Row]]) -> Table {
        var rows: [[TableCell]] = []
        for s in sets.sets {
            for p in groups[s.name] ?? [] {
                rows.append([.text(s.name), .text(s.file), .text(p.participant), .text(p.sourceFile), .bool(p.complete)]
                )
            }
        }
        return Table(header: ["string_set", "strings_file", "participant", "source_file", "complete"], rows: rows)
    }
}
