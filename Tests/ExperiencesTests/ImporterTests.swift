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
    #expect(notes.contains { $0.message.hasPrefix("info hot spot \"Baltimore Museum of Art\"") && $0.message.contains("link was dropped")
        && $0.line == lineOf("\"pitch\": 14.1", in: src) - 1 })
    #expect(notes.contains { $0.message.contains("default.author") && $0.line == lineOf("\"author\"", in: src) })
    #expect(notes.contains { $0.message.contains("default.sceneFadeDuration") })
    #expect(notes.contains { $0.message.contains("targetYaw") })
    #expect(notes.contains { $0.message.contains("targetPitch") })
    #expect(notes.filter { $0.message.contains(": hfov has no Prep equivalent") }.count == 2)
    #expect(notes.count == 10)
}

@Test func marzipanoDataJSImportMatchesGolden() throws {
    let r = try TourImporter.marzipano(try fixture("marzipano-data.js"), file: "data.js")
    let expected = String(decoding: try fixture("marzipano-data.expected.json"), as: UTF8.self)
    #expect(r.json == expected)
}

@Test func marzipanoImportReportsInfoHotspotsTilesAndSettings() throws {
    let src = String(decoding: try fixture("marzipano-data.js"), as: UTF8.self)
    let r = try TourImporter.marzipano(Data(src.utf8), file: "data.js")
    let msgs = r.notes.map(\.message)
    #expect(msgs.contains { $0.hasPrefix("info hot spot \"Reception\"") })
    #expect(r.notes.first { $0.message.hasPrefix("settings") }?.line == lineOf("\"settings\"", in: src))
    #expect(msgs.filter { $0.contains("tiled cube faces") }.count == 2)
    #expect(msgs.contains { $0.contains("rotation has no Prep equivalent") })
    #expect(msgs.contains { $0.contains("scene id \"1-waiting room\" was renamed \"1-waiting-room\"") })
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
    do { _ = try TourImporter.marzipano(Data("var APP_DATA = {\n\"scenes\": [,]};".utf8), file: "d.js"); Issue.record("expected error") }
    catch { #expect(error.issues.first?.line == 2) }
}
