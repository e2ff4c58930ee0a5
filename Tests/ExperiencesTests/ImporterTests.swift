import Foundation
import Testing
@testable import Experiences

func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return try Data(contentsOf: url)
}

@Test func pannellumTourImportMatchesGolden() throws {
    let r = try TourImporter.pannellum(try fixture("pannellum-tour.json"), file: "tour.json")
    let expected = String(decoding: try fixture("pannellum-tour.expected.json"), as: UTF8.self)
    #expect(r.json == expected)
}

@Test func pannellumImportReportsWhatHasNoPrepEquivalent() throws {
    let src = String(decoding: try fixture("pannellum-tour.json"), as: UTF8.self)
    let r = try TourImporter.pannellum(Data(src.utf8), file: "tour.json")
    let notes = r.notes
    #expect(notes.allSatisfy { $0.file == "tour.json" && $0.severity == .warning })
    #expect(
        notes.contains {
            $0.message.contains("URL has no Prep equivalent") && $0.message.contains("link was dropped")
                && $0.line == lineOf("\"URL\"", in: src)
        })
    #expect(notes.contains { $0.message.contains("default.author") && $0.line == lineOf("\"author\"", in: src) })
    #expect(notes.contains { $0.message.contains("default.sceneFadeDuration") })
    #expect(notes.filter { $0.message.contains(": hfov has no Prep equivalent") }.count == 2)
    #expect(!notes.contains { $0.message.contains("targetYaw") || $0.message.contains("targetPitch") })
    #expect(notes.count == 5, "\(notes)")
}

@Test func pannellumKeepsStartingViewsTargetYawAndInfoHotSpotsAsNotes() throws {
    let r = try TourImporter.pannellum(try fixture("pannellum-tour.json"), file: "tour.json")
    let circle = try #require(r.experience.panorama("circle")), house = try #require(r.experience.panorama("house"))
    #expect(circle.startYaw == 117 && circle.startPitch == -3)
    #expect(house.startYaw == 5 && house.startPitch == 0)
    let back = try #require(house.triggers.first)
    #expect(back.kind == .door && back.targetYaw == -23 && back.targetPitch == 2 && back.yaw == 10)
    let info = try #require(circle.triggers.first { $0.kind == .note })
    #expect(info.text == "Baltimore Museum of Art" && info.label == "Baltimore Museum of Art" && info.pitch == 14.1)
}

/// Runs a Pannellum import of `json` and returns the result.
func pannellum(_ json: String) throws(ExperienceError) -> ImportResult {
    try TourImporter.pannellum(Data(json.utf8), file: "t.json")
}

@Test func pannellumBasePathPrefixesImages() throws {
    let r = try pannellum(
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        #"{"default": {"firstScene": "a", "basePath": "images"}, "scenes": {"a": {"title": "A", "panorama": "a.jpg"}, "b": {"title": "B", "panorama": "b.jpg", "basePath": "other/"}}}"#
        // END DATA TABLE
    )
    #expect(r.experience.panoramas.map(\.image) == ["images/a.jpg", "other/b.jpg"])
}

@Test func pannellumReadsNumbersWrittenAsStrings() throws {
    let r = try pannellum(
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        #"{"scenes": {"a": {"title": "A", "panorama": "a.jpg", "yaw": "30", "pitch": " -5 ", "hotSpots": [{"type": "scene", "sceneId": "a", "yaw": "100.5", "pitch": "12", "targetYaw": "45"}]}}}"#
        // END DATA TABLE
    )
    let p = r.experience.panoramas[0]
    #expect(p.startYaw == 30 && p.startPitch == -5)
    #expect(p.triggers[0].yaw == 100.5 && p.triggers[0].pitch == 12 && p.triggers[0].targetYaw == 45)
}

@Test func pannellumDoorToMissingSceneIsAWarningAndLeftOut() throws {
    let src =
        "{\"scenes\": {\"a\": {\"title\": \"A\", \"panorama\": \"a.jpg\", \"hotSpots\": [\n{\"type\": \"scene\",\n "
            + "\"sceneId\": \"nowhere\", \"yaw\": 1, \"pitch\": 0}]}}}"
    let r = try pannellum(src)
    #expect(r.experience.panoramas[0].triggers.isEmpty)
    let n = try #require(r.notes.first { $0.message.contains("\"nowhere\", which is not in the tour") })
    #expect(n.line == 3 && n.severity == .warning)
    let (_, issues) = ExperienceLoader().load(data: Data(r.json.utf8), file: "x.json", slug: "x")
    #expect(issues.filter { $0.severity == .error }.isEmpty, "\(issues)")
}

@Test func pannellumClampingIsReported() throws {
    let r = try pannellum(
        "{\"scenes\": {\"a\": {\"title\": \"A\", \"panorama\": \"a.jpg\", \"hotSpots\": [{\"type\": \"scene\", "
            + "\"sceneId\": \"a\", \"yaw\": 0,\n \"pitch\": 95}]}}}"
    )
    #expect(r.experience.panoramas[0].triggers[0].pitch == 90)
    #expect(
        r.notes.contains {
            $0.line == 2 && $0.message.contains("pitch 95° is outside −90…90 and was clamped to 90°")
        })
}

@Test func pannellumSingleSceneConfigurationImports() throws {
    let r = try pannellum(
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        #"{"type": "equirectangular", "panorama": "room.jpg", "title": "My room", "autoLoad": true, "hotSpots": [{"type": "info", "text": "The window", "yaw": 20, "pitch": 3}]}"#
        // END DATA TABLE
    )
    #expect(r.experience.panoramas.count == 1)
    let p = r.experience.panoramas[0]
    #expect(p.id == "my-room" && p.image == "room.jpg" && p.title == "My room")
    #expect(p.triggers.map(\.kind) == [.note])
    #expect(r.notes.contains { $0.message == "autoLoad has no Prep equivalent and was left out" })
}

@Test func pannellumRemoteImageIsAClearError() {
    for json in [#"{"scenes": {"a": {"title": "A", "panorama": "https://example.org/a.jpg"}}}"#,
        #"{"default": {"basePath": "//cdn.example.org/"}, "scenes": {"a": {"title": "A", "panorama": "a.jpg"}}}"#
    ] {
        do { _ = try pannellum(json); Issue.record("expected an error") } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues[0].message.contains("is a remote address; download it beside the tour file"))
        }
    }
}

@Test func shortenedLabelsEndAtAWordBoundary() throws {
    #expect(
        TourImporter.shorten("Walk along the path to the big old oak tree by the pond", 40)
            == "Walk along the path to the big old oak…")
    #expect(TourImporter.shorten(String(repeating: "x", count: 50), 40) == String(repeating: "x", count: 39) + "…")
    #expect(TourImporter.shorten("short", 40) == "short")
    let r = try pannellum(
        // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
        #"{"scenes": {"a": {"title": "A", "panorama": "a.jpg", "hotSpots": [{"type": "scene", "sceneId": "a", "yaw": 0, "pitch": 0, "text": "Walk along the path to the big old oak tree by the pond"}]}}}"#
        // END DATA TABLE
    )
    let label = r.experience.panoramas[0].triggers[0].label
    #expect(label == "Walk along the path to the big old oak…" && label.count <= 40)
}

@Test func marzipanoDataJSImportMatchesGolden() throws {
    let r = try TourImporter.marzipano(try fixture("marzipano-data.js"), file: "data.js")
    let expected = String(decoding: try fixture("marzipano-data.expected.json"), as: UTF8.self)
    #expect(r.json == expected)
}

@Test func marzipanoImportReportsTilesSettingsAndRotation() throws {
    let src = String(decoding: try fixture("marzipano-data.js"), as: UTF8.self)
    let r = try TourImporter.marzipano(Data(src.utf8), file: "data.js")
    let msgs = r.notes.map(\.message)
    #expect(r.notes.first { $0.message.hasPrefix("settings") }?.line == lineOf("\"settings\"", in: src))
    #expect(msgs.filter { $0.contains("tiled cube faces") }.count == 2)
    #expect(msgs.contains { $0.contains("rotation has no Prep equivalent") })
    #expect(msgs.contains { $0.contains("scene id \"1-waiting room\" was renamed \"1-waiting-room\"") })
    #expect(
        r.experience.panoramas[0].triggers.contains {
            $0.kind == .note && $0.label == "Reception" && $0.text == "Say hello here"
        })
}

/// Marzipano's documented convention (RectilinearView.coordinatesToScreen): the ray of
/// (yaw, pitch) is (sin yaw·cos pitch, −sin pitch, −cos yaw·cos pitch) with x right,
/// y up and −z forward. Dossier's direction of (yaw°, pitch°) is
/// (cos p·sin y, sin p, cos p·cos y) with +z forward. The imported angles must give the same ray.
@Test func marzipanoPitchIsPositiveDownwardAndImportsToTheSameDirection() throws {
    let cases: [(Double, Double)] = [
        (1.5707963267948966, -0.2617993877991494), (-0.5, 0.1), (0.3, 0.17), (2.5, 1.2), (-3.0, -0.9)
    ]
    for (myaw, mpitch) in cases {
        let js =
            "var APP_DATA = {\"scenes\": [{\"id\": \"a\", \"name\": \"A\", \"linkHotspots\": [{\"yaw\": \(myaw), "
                + "\"pitch\": \(mpitch), \"target\": \"a\"}]}]};"
        let t = try TourImporter.marzipano(Data(js.utf8), file: "d.js").experience.panoramas[0].triggers[0]
        let marzipanoRay = (x: sin(myaw) * cos(mpitch), up: -sin(mpitch), forward: cos(myaw) * cos(mpitch))
        let y = t.yaw * .pi / 180, p = t.pitch * .pi / 180
        let dossierRay = (x: cos(p) * sin(y), up: sin(p), forward: cos(p) * cos(y))
        #expect(abs(marzipanoRay.x - dossierRay.x) < 3e-4 && abs(marzipanoRay.up - dossierRay.up) < 3e-4
                && abs(marzipanoRay.forward - dossierRay.forward) < 3e-4, "\(myaw), \(mpitch) → \(t.yaw), \(t.pitch)")
    }
    // The fixture's door 15° below the horizon in Marzipano (pitch −0.26 rad looks *up* there).
    let r = try TourImporter.marzipano(try fixture("marzipano-data.js"), file: "data.js")
    #expect(abs(r.experience.panoramas[0].triggers[0].pitch - 15) < 1e-9)
    #expect(r.experience.panoramas[1].startYaw == 180)
}

@Test func importedTourValidatesOnceImagesExist() throws {
    let r = try TourImporter.pannellum(try fixture("pannellum-tour.json"), file: "tour.json")
    let d = TempDir()
    d.write("circle.jpg", jpegHeader(width: 1024, height: 512))
    d.write("house.jpg", jpegHeader(width: 1024, height: 512))
    let (e, issues) = loadExperience(r.json, in: d)
    #expect(issues.isEmpty, "\(issues)")
    #expect(GraphAnalysis(e!).shortestPath == ["circle", "house"])
}

@Test func radiansBecomeDegreesAndYawWraps() {
    #expect(abs(TourImporter.degrees(.pi / 2) - 90) < 1e-12)
    #expect(TourImporter.wrapYaw(370) == 10)
    #expect(TourImporter.wrapYaw(-190) == 170)
    #expect(TourImporter.wrapYaw(180) == 180)
}

@Test func notATourIsAnErrorWithLine() {
    #expect(throws: ExperienceError.self) { try TourImporter.pannellum(Data("{\"x\": 1}".utf8), file: "t.json") }
    do {
        _ = try TourImporter.marzipano(Data("var APP_DATA = {\n\"scenes\": [,]};".utf8), file: "d.js");
        Issue.record("expected error")
    }
    catch { #expect(error.issues.first?.line == 2) }
}

@Test func everyGuessedDirectionIsReportedWithItsLine() throws {
    let src = """
    {"scenes": {"a": {"title": "Room A", "panorama": "a.jpg", "yaw": "east", "hotSpots": [
      {"type": "info", "text": "Desk", "pitch": 2, "yaw": "abc"},
      {"type": "info", "text": "Lamp", "yaw": 30},
      {"type": "info", "text": "Door", "pitch": 1, "yaw": 40}
    ]}}}
    """
    let r = try pannellum(src)
    let spots = try #require(r.experience.panorama("a")).triggers
    #expect(spots.map(\.yaw) == [0, 30, 40] && spots.map(\.pitch) == [2, 0, 1])
    #expect(
        r.notes.contains {
            $0.line == 2
                && $0.message
                    == "hot spot 1 of scene \"a\": yaw is \"abc\", not a number; 0 was used, so check where it sits"
        })
    #expect(
        r.notes.contains {
            $0.line == 3
                && $0.message == "hot spot 2 of scene \"a\": pitch is missing; 0 was used, so check where it sits"
        })
    #expect(r.notes.contains { $0.line == 1 && $0.message.hasPrefix("scene \"a\": yaw is \"east\", not a number") })
    #expect(r.notes.count == 3, "\(r.notes)")   // nothing about the third hot spot, nothing about a missing scene pitch

    let marz = """
    var APP_DATA = {"scenes": [{"id": "s", "name": "Scene", "levels": [], "faceSize": 1,
      "initialViewParameters": {"yaw": 0.5},
      "linkHotspots": [], "infoHotspots": [{"pitch": 0.1, "title": "Sign", "text": "Hi"}]}]};
    """
    let m = try TourImporter.marzipano(Data(marz.utf8), file: "data.js")
    #expect(
        m.notes.contains {
            $0.line == 3
                && $0.message == "info hot spot 1 of scene \"s\": yaw is missing; 0 was used, so check where it sits"
        })
    #expect(!m.notes.contains { $0.message.contains("starting: pitch") })   // a starting view may leave pitch out
}
