import Foundation
import Testing
import JSONLines
@testable import Experiences

// MARK: - JSON with lines

@Test func parserRecordsLinesOfNestedValuesAndKeys() throws {
    let text = "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    {\"c\": \"x\"}\n  ]\n}"
    let root = try JSONReader.document(text, file: "e.json")
    #expect(root.line == 1)
    #expect(root["a"]?.line == 2)
    #expect(root["b"]?.items?[0].line == 4)
    #expect(root["b"]?.items?[1]["c"]?.line == 5)
    #expect(root.members?.map(\.keyLine) == [2, 3])
    #expect(root["b"]?.items?[1]["c"]?.stringValue == "x")
}

@Test func parserDecodesEscapesAndSurrogatePairs() throws {
    let root = try JSONReader.document(#"{"s": "a\"b\\c\/d\u00e9\ud83d\ude00\n"}"#, file: "e.json")
    #expect(root["s"]?.stringValue == "a\"b\\c/dé😀\n")
}

@Test func parserReportsSyntaxErrorLine() {
    do {
        _ = try JSONReader.document("{\n  \"a\": 1,\n  \"b\": 2,\n}", file: "e.json")
        Issue.record("expected a syntax error")
    } catch { #expect(error.line == 4) }
    #expect(throws: JSONLinesError.self) { try JSONReader.document("[1, 2", file: "e.json") }
    #expect(throws: JSONLinesError.self) { try JSONReader.document("01", file: "e.json") }
    #expect(throws: JSONLinesError.self) { try JSONReader.document("{\"a\": 1} x", file: "e.json") }
}

// MARK: - Per-file rules

@Test func validExperienceLoadsWithoutIssues() {
    let d = validDir()
    let (e, issues) = loadExperience(validJSON, in: d)
    #expect(issues.isEmpty, "\(issues)")
    #expect(e?.title == "At the dentist")
    #expect(e?.panoramas.map(\.id) == ["a", "b", "c"])
    #expect(e?.panoramas[0].triggers.map(\.id) == ["t1", "t2"])
    #expect(e?.firstPanorama == "a")
    #expect(e?.finalPanoramaID == "c")
    #expect(e?.panoramas[0].triggers[0].line == lineOf("\"Bell\"", in: validJSON))
}

@Test(arguments: [
    ("Abc", false), ("Abcd", true), ("sixteen chars ok", true), ("seventeen chars!!", false), ("a  b", true),
    ("   ", true)
])
func titleMustHaveFourToSixteenCharactersSpacesIncluded(title: String, ok: Bool) {
    let json = variant("\"At the dentist\"", "\"\(title)\"")
    let (_, issues) = loadExperience(json, in: validDir())
    let titleErrors = errors(issues).filter { $0.message.contains("4 to 16") }
    #expect(titleErrors.isEmpty == ok, "\(issues)")
    if !ok { #expect(titleErrors.first?.line == lineOf("\"title\"", in: json)) }
}

@Test func blankTitleIsLeftForTheDefault() {
    let (e, issues) = loadExperience(variant("  \"title\": \"At the dentist\",\n", ""), in: validDir())
    #expect(errors(issues).isEmpty)
    #expect(e?.title == nil)
}

@Test func descriptionIsLimitedTo128Characters() {
    let ok = String(repeating: "x", count: 127) + " "
    let (_, i1) = loadExperience(variant("\"Three rooms.\"", "\"\(ok)\""), in: validDir())
    #expect(errors(i1).isEmpty)
    let long = variant("\"Three rooms.\"", "\"\(ok)y\"")
    let (_, i2) = loadExperience(long, in: validDir())
    #expect(errors(i2).count == 1)
    #expect(errors(i2).first?.line == lineOf("\"description\"", in: long))
    #expect(errors(i2).first?.message.contains("129 characters") == true)
}

@Test func doorToMissingPanoramaIsAnErrorAtTheTriggerLine() {
    let json = variant("\"target\": \"c\"", "\"target\": \"nowhere\"")
    let (_, issues) = loadExperience(json, in: validDir())
    let e = errors(issues)
    #expect(e.count == 1)
    #expect(e.first?.line == lineOf("\"nowhere\"", in: json))
    #expect(e.first?.message.contains("not in this experience") == true)
    #expect(e.first?.description.hasPrefix("exp.json:\(lineOf("\"nowhere\"", in: json)): ") == true)
}

@Test func positionsAndSizeMustBeInRange() {
    let json = variant("\"yaw\": 90, \"pitch\": 0", "\"yaw\": 181, \"pitch\": -91, \"size\": 0.2")
    let (_, issues) = loadExperience(json, in: validDir())
    let msgs = errors(issues).map(\.message)
    #expect(msgs.count == 3)
    #expect(msgs.contains { $0.hasPrefix("yaw 181 is out of range") })
    #expect(msgs.contains { $0.hasPrefix("pitch -91 is out of range") })
    #expect(msgs.contains { $0.hasPrefix("size 0.2 is out of range") })
}

@Test func mediaMustExistAndBePlayable() {
    let d = validDir()
    d.write("fake.wav", jpegHeader(width: 2, height: 1))
    d.write("notes.txt", "hello")
    let json = validJSON
        .replacingOccurrences(of: "\"media\": \"v.mp4\"", with: "\"media\": \"missing.mp4\"")
        .replacingOccurrences(of: "\"label\": \"Bell\", \"media\": \"s.wav\"",
                              with: "\"label\": \"Bell\", \"media\": \"fake.wav\"")
        .replacingOccurrences(of: "\"label\": \"Drill sound\", \"media\": \"s.wav\"",
                              with: "\"label\": \"Drill sound\", \"media\": \"notes.txt\"")
        .replacingOccurrences(of: "\"image\": \"b.jpg\"", with: "\"image\": \"../b.jpg\"")
        .replacingOccurrences(of: "\"image\": \"c.jpg\"", with: "\"image\": \"my photo#2.jpg\"")
    d.write("my photo#2.jpg", jpegHeader(width: 1024, height: 512))
    let (_, issues) = loadExperience(json, in: d)
    let msgs = errors(issues).map(\.message)
    #expect(msgs.count == 5, "\(msgs)")
    #expect(msgs.contains { $0.contains("my photo#2.jpg\" must be a relative path inside") })
    #expect(msgs.contains { $0.contains("missing.mp4\" does not exist") })
    #expect(msgs.contains { $0.contains("fake.wav\" is not a playable .wav file") })
    #expect(msgs.contains { $0.contains("notes.txt\" is not a playable type") })
    #expect(msgs.contains { $0.contains("../b.jpg\" must be a relative path inside") })
}

@Test func everyTriggerNeedsALabelAndKindSpecificFields() {
    let json = variant("\"label\": \"Go in\", \"target\": \"b\"", "\"label\": \" \"")
    let (_, issues) = loadExperience(json, in: validDir())
    let msgs = errors(issues).map(\.message)
    #expect(msgs.contains { $0.contains("needs a text label") })
    #expect(msgs.contains { $0.contains("needs a target panorama") })
}

@Test func unknownKeysAndDuplicatePanoramaIDsAreReported() {
    let json = variant("\"description\": \"Three rooms.\",", "\"descripton\": \"typo\",")
        .replacingOccurrences(of: "{\"id\": \"b\"", with: "{\"id\": \"a\"")
    let (_, issues) = loadExperience(json, in: validDir())
    let e = errors(issues)
    #expect(
        e.contains {
            $0.message.hasPrefix("unknown experience key \"descripton\"") && $0.line == lineOf("descripton", in: json)
        })
    #expect(e.contains { $0.message.contains("panorama id \"a\" is used twice") })
}

@Test func customExperienceNeedsAnOwner() {
    let (_, issues) = loadExperience(
        variant("\"description\": \"Three rooms.\",", "\"kind\": \"custom\","), in: validDir())
    #expect(errors(issues).map(\.message) == ["a custom experience needs an owner"])
}

// MARK: - Collection rules

func exp(_ file: String, _ title: String?, kind: ExperienceKind = .custom, owner: String? = "sam") -> Experience {
    Experience(file: file, slug: file, title: title, kind: kind, owner: owner,
               panoramas: [Panorama(id: "p", title: "P", image: "p.jpg")], lines: ["title": 2, "kind": 4])
}

@Test func duplicateTitleInOwnersCollectionIsAnError() {
    let list = [exp("a.json", "Dentist"), exp("b.json", "dentist "), exp("c.json", "Dentist", owner: "kim")]
    let (_, issues) = ExperienceCollection.check(list)
    #expect(issues.count == 1)
    #expect(issues.first?.file == "b.json")
    #expect(issues.first?.line == 2)
    #expect(issues.first?.message.contains("already used in sam's collection by a.json") == true)
}

@Test func customTitleMayNotRepeatAPremadeTitle() {
    let (_, issues) = ExperienceCollection.check([
        exp("p.json", "Haircut", kind: .premade, owner: nil), exp("c.json", "HAIRCUT")
    ])
    #expect(issues.map(\.file) == ["c.json"])
}

@Test func eleventhCustomExperienceOfAnOwnerIsAnError() {
    var list = (1...11).map { exp("e\($0).json", "Trip number \($0)") }
    list.append(exp("k.json", "Other owner", owner: "kim"))
    list.append(exp("p.json", "Premade one", kind: .premade, owner: nil))
    let (_, issues) = ExperienceCollection.check(list)
    #expect(issues.map(\.file) == ["e11.json"])
    #expect(issues.first?.line == 4)
    let (_, ok) = ExperienceCollection.check(Array(list.prefix(10)))
    #expect(ok.isEmpty)
}

@Test func defaultTitleUsesNextFreeNumber() {
    let list = [exp("a.json", "experience 1"), exp("b.json", nil), exp("c.json", "Experience 3"), exp("d.json", nil),
                exp("e.json", nil, owner: "kim")]
    let (out, issues) = ExperienceCollection.check(list)
    #expect(issues.isEmpty)
    #expect(
        out.map { $0.title ?? "" } == ["experience 1", "experience 2", "Experience 3", "experience 4", "experience 1"])
}

// MARK: - Writer

@Test func writerOutputLoadsBackToTheSameExperience() {
    let d = validDir()
    let (e, _) = loadExperience(validJSON, in: d)
    let written = ExperienceWriter.json(e!)
    let (again, issues) = loadExperience(written, in: d, name: "again.json")
    #expect(errors(issues).isEmpty)
    #expect(again?.panoramas.map(\.triggers.count) == e?.panoramas.map(\.triggers.count))
    #expect(again?.panoramas.flatMap { $0.triggers.map(\.label) } == e?.panoramas.flatMap { $0.triggers.map(\.label) })
    #expect(again?.title == e?.title)
    #expect(ExperienceWriter.json(again!) == written)
}

// MARK: - Slugs as docs/experience-format.md defines them (issue 43)

@Test func slugIsLowerCasedAsciiRunsJoinedByDashesAndTrimmed() {
    #expect(ExperienceLoader.slugify("My Visit!") == "my-visit")          // the trailing "-" is trimmed
    #expect(ExperienceLoader.slugify("--At  the dentist--") == "at-the-dentist")
    #expect(ExperienceLoader.slugify("Zahnärztin") == "zahn-rztin")      // ä is not an ASCII letter
    #expect(ExperienceLoader.slugify("ü") == "experience")               // nothing left: the fallback
    #expect(ExperienceLoader.slugify("---") == "experience")
}
