import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Experiences

func door(_ to: String) -> Trigger {
    Trigger(id: "d-\(to)", kind: .door, yaw: 0, pitch: 0, label: "to \(to)", target: to)
}
func sound() -> Trigger { Trigger(id: "s", kind: .sound, yaw: 0, pitch: 0, label: "s", media: "s.wav") }
func video() -> Trigger { Trigger(id: "v", kind: .video, yaw: 0, pitch: 0, label: "v", media: "v.mp4") }
func pano(_ id: String, _ t: [Trigger]) -> Panorama {
    Panorama(id: id, title: id.uppercased(), image: "\(id).jpg", triggers: t, line: 10)
}
func graph(_ ps: [Panorama], first: String? = nil, final: String? = nil) -> (Experience, GraphAnalysis) {
    let e = Experience(
        file: "g.json", slug: "g", title: "Graph test", panoramas: ps, firstPanorama: first, explicitFinal: final)
    return (e, GraphAnalysis(e))
}

@Test func linearTourIsFullyReachableWithShortestPath() {
    let (_, g) = graph([pano("a", [door("b"), sound()]), pano("b", [door("c")]), pano("c", [sound(), video()])])
    #expect(g.reachable == ["a", "b", "c"])
    #expect(g.unreachable.isEmpty)
    #expect(g.deadEnds.isEmpty)
    #expect(g.final == "c")
    #expect(g.shortestPath == ["a", "b", "c"])
    #expect(g.clipsPerPanorama == ["a": 1, "b": 0, "c": 2])
    #expect(g.totalClips == 3)
    #expect(g.finalClips == 2)
    #expect(!g.hasCycle)
}

@Test func unreachablePanoramaIsAWarning() {
    let (e, g) = graph([pano("a", [door("c")]), pano("b", [door("c")]), pano("c", [])])
    #expect(g.unreachable == ["b"])
    let issues = g.issues(for: e)
    #expect(issues.count == 1)
    #expect(issues.first?.severity == .warning)
    #expect(issues.first?.message.contains("\"b\" cannot be reached") == true)
    #expect(issues.first?.line == 10)
}

@Test func deadEndIsAPanoramaWithoutDoorsThatIsNotFinal() {
    let (e, g) = graph([pano("a", [door("b"), door("c")]), pano("b", [sound()]), pano("c", [])])
    #expect(g.deadEnds == ["b"])
    #expect(g.issues(for: e).map(\.message).contains { $0.contains("\"b\" is a dead end") })
}

@Test func cycleIsDetectedAndShortestPathTakesFewestDoors() {
    // a → b → c → a, and a → d → final: the path through d has 2 doors, through b/c 3.
    let (_, g) = graph([pano("a", [door("b"), door("d")]), pano("b", [door("c")]), pano("c", [door("a"), door("e")]),
                        pano("d", [door("e")]), pano("e", [])])
    #expect(g.hasCycle)
    #expect(g.shortestPath == ["a", "d", "e"])
    #expect(g.deadEnds.isEmpty)
    let (_, acyclic) = graph([pano("a", [door("b"), door("c")]), pano("b", [door("c")]), pano("c", [])])
    #expect(!acyclic.hasCycle)
}

@Test func explicitFinalAndFirstChangeTheAnalysis() {
    let (e, g) = graph([pano("a", []), pano("b", [door("a")]), pano("c", [door("b")])], first: "c", final: "a")
    #expect(g.final == "a")
    #expect(g.shortestPath == ["c", "b", "a"])
    #expect(g.deadEnds.isEmpty)
    #expect(g.issues(for: e).isEmpty)
}

@Test func unreachableFinalPanoramaMeansNoPath() {
    let (e, g) = graph([pano("a", [door("b")]), pano("b", [door("a")]), pano("c", [sound()])])
    #expect(g.shortestPath == nil)
    #expect(g.unreachable == ["c"])
    #expect(g.issues(for: e).contains { $0.message.contains("can never be finished") })
}

@Test func doorsToMissingPanoramasAreNotEdges() {
    let (_, g) = graph([pano("a", [door("zz"), door("b")]), pano("b", [])])
    #expect(g.edges.map(\.to) == ["b"])
}

@Test func svgShowsThumbnailsEscapedTitlesAndUnreachableColumn() {
    var ps = [pano("a", [door("b")]), pano("b", []), pano("c", [])]
    ps[1].title = "<b>x</b>&"
    let (e, g) = graph(ps, final: "b")
    let svg = GraphSVG.render(e, g) { "thumbs/\($0.id).jpg" }
    #expect(svg.hasPrefix("<svg"))
    #expect(svg.contains("<title id=\"graph-title\">"))
    #expect(svg.contains("href=\"thumbs/a.jpg\""))
    #expect(svg.contains("&lt;b&gt;x&lt;/b&gt;&amp;"))
    #expect(!svg.contains("<b>x"))
    #expect(svg.contains("Cannot be reached"))
    #expect(svg.components(separatedBy: "class=\"graph-node\"").count - 1 == 3)
    #expect(svg.components(separatedBy: "marker-end=").count - 1 == 1)
    // The document is well-formed XML.
    #expect(throws: Never.self) { _ = try XMLDocument(xmlString: svg) }
}
