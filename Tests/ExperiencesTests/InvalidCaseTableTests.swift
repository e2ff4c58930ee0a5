import Foundation
import Testing
@testable import Experiences

/// One row of `Fixtures/invalid-cases.json` (the same table drives the editor's browser test).
struct InvalidCase: CustomTestStringConvertible, Sendable {
    var name: String
    var experience: Data
    var others: [(file: String, title: String, kind: ExperienceKind, owner: String?)]
    var error: String
    var testDescription: String { name }
}

func invalidCaseTable() throws -> (valid: Data, cases: [InvalidCase]) {
    let root = try #require(try JSONSerialization.jsonObject(with: fixture("invalid-cases.json")) as? [String: Any])
    func data(_ o: Any) throws -> Data { try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) }
    let cases = try (root["cases"] as? [[String: Any]] ?? []).map { c in
        InvalidCase(name: c["name"] as? String ?? "", experience: try data(c["experience"]!),
                    others: (c["others"] as? [[String: String]] ?? []).map {
                        ($0["file"]!, $0["title"]!, ExperienceKind(rawValue: $0["kind"]!)!, $0["owner"])
                    }, error: c["error"] as? String ?? "")
    }
    return (try data(root["valid"]!), cases)
}

/// Every error the loader and the collection rules report for `data`, checked after `others`.
func validationErrors(
    _ data: Data, others: [(file: String, title: String, kind: ExperienceKind, owner: String?)]
) -> [String] {
    let (e, issues) = ExperienceLoader().load(data: data, file: "case.json", slug: "case")
    var errs = issues.filter { $0.severity == .error }.map(\.message)
    if let e {
        let before = others.map {
            Experience(file: $0.file, slug: $0.file, title: $0.title, kind: $0.kind, owner: $0.owner, panoramas: [])
        }
        let (_, found) = ExperienceCollection.check(before + [e])
        errs += found.filter { $0.severity == .error }.map(\.message)
    }
    return errs
}

@Test func invalidCaseTableBaseExperienceIsValid() throws {
    #expect(validationErrors(try invalidCaseTable().valid, others: []) == [])
}

@Test(arguments: try! invalidCaseTable().cases)
func invalidCaseGivesItsTableMessage(_ c: InvalidCase) {
    #expect(validationErrors(c.experience, others: c.others) == [c.error])
}
