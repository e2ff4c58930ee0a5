#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Rules over an owner's whole collection

/// Checks the rules that concern several experiences together and assigns default titles.
///
/// An owner's collection is every premade experience plus that owner's custom ones (the
/// home page shows them together, F4). Titles are compared after trimming spaces and
/// ignoring case, so "Dentist" and "dentist " count as the same title.
public enum ExperienceCollection {
    /// Returns the experiences with default titles filled in (`experience N`, the smallest
    /// N ≥ 1 not taken in the owner's collection, assigned in the given order) and the
    /// issues found: duplicate titles, more than 10 custom experiences per owner.
    public static func check(_ experiences: [Experience]) -> ([Experience], [ExperienceIssue]) {
        var out = experiences
        var issues: [ExperienceIssue] = []
        func norm(_ s: String) -> String { s.trimmingWhitespace().lowercased() }
        func collection(of i: Int) -> [Int] {
            let e = out[i]
            if e.kind == .premade { return Array(out.indices) }  // a premade title must be unique everywhere
            return out.indices.filter { out[$0].kind == .premade || out[$0].owner == e.owner }
        }
        // Default titles (F16, F22).
        for i in out.indices where out[i].title == nil {
            let taken = Set(collection(of: i).compactMap { out[$0].title.map(norm) })
            var n = 1
            while taken.contains(norm(Rules.defaultTitlePrefix + String(n))) { n += 1 }
            out[i].title = Rules.defaultTitlePrefix + String(n)
        }
        // One site folder per experience: two files with one slug (`a b.json`, `a-b.json`).
        var slugs: [String: String] = [:]
        for e in out {
            if let other = slugs[e.slug] {
                issues.append(.error(e.file, nil, "its site folder experiences/\(e.slug)/ is already used by "
                                     + "\(other); rename the file"))
            } else {
                slugs[e.slug] = e.file
            }
        }
        // Unique titles (F16): report the later file.
        for i in out.indices {
            guard let t = out[i].title else { continue }
            if let j = collection(of: i).first(where: { $0 < i && out[$0].title.map(norm) == norm(t) }) {
                let whose = out[i].kind == .custom ? "\(out[i].owner ?? "")'s collection" : "the premade experiences"
                issues.append(.error(out[i].file, out[i].lines["title"] ?? 1,
                                     "title \"\(t)\" is already used in \(whose) by \(out[j].file)"))
            }
        }
        // At most 10 custom experiences per owner (2.1.5): the 11th and later are errors.
        var counts: [String: Int] = [:]
        for e in out where e.kind == .custom {
            let owner = e.owner ?? ""
            counts[owner, default: 0] += 1
            if counts[owner]! > Rules.maxCustomPerOwner {
                issues.append(
                    .error(
                        e.file, e.lines["kind"] ?? 1,
                        "\(owner) already has \(Rules.maxCustomPerOwner) custom experiences; at most "
                            + "\(Rules.maxCustomPerOwner) are allowed"
                    ))
            }
        }
        return (out, issues)
    }
}
