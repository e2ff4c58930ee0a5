import Foundation
import Testing
@testable import DossierKit

// Issue #34: what counts as a cut upload, which linked files may be read, and the
// bounded navigation — the rules docs/publish.md, docs/vault-sync.md and docs/limits.md
// state, checked on their own.

@Test func aRemoteManifestLooksCutOnlyWhenItStartsLikeJSONAndIsNotJSON() throws {
    let whole = try RemoteSite(
        files: [SiteManifest.Entry(path: "a.html", sha256: String(repeating: "a", count: 64), size: 3)],
        etags: [:], dirty: false
    ).encoded()
    #expect(!Publisher.looksCut(whole))
    for n in [0, 1, whole.count / 2, whole.count - 2] {
        #expect(Publisher.looksCut(whole.prefix(n)), "cut at \(n)")
    }
    #expect(!Publisher.looksCut(Data("<html>not ours</html>".utf8)))
}

@Test func theNavigationListsAtMostEightPagesThenAllPages() {
    func page(_ i: Int) -> ContentPage {
        ContentPage(
            source: URL(fileURLWithPath: "/p/content/p\(i).md"), relative: "p\(i).md", title: "P\(i)", summary: "",
            weight: -i, draft: false, toc: nil, raw: Data())
    }
    let few = Navigation.items(content: (0..<8).map(page), sections: [(key: "recall", title: "Recall")])
    #expect(few.count == 1 + 8 + 1 && !few.contains { $0.kind == "all-pages" })
    let many = Navigation.items(content: (0..<500).map(page), sections: [(key: "recall", title: "Recall")])
    #expect(many.count == 1 + Navigation.maxPages + 1 + 1)
    // Lowest weight first: weights are -i, so the last eight pages lead.
    #expect(many[1].title == "P499" && many[8].title == "P492")
    #expect(many.last?.path == Navigation.allPagesPath)
}

@Test func aLinkInsideTheProjectIsReadAndOneLeavingItIsRefusedUnlessAllowed() throws {
    let fm = FileManager.default
    let base = fm.temporaryDirectory.appendingPathComponent("confine-\(UUID().uuidString)")
    let project = base.appendingPathComponent("proj"), outside = base.appendingPathComponent("home")
    try fm.createDirectory(at: project.appendingPathComponent("content"), withIntermediateDirectories: true)
    try fm.createDirectory(at: outside, withIntermediateDirectories: true)
    defer { try? fm.removeItem(at: base) }
    try Data("x".utf8).write(to: outside.appendingPathComponent("diary.md"))
    try Data("y".utf8).write(to: project.appendingPathComponent("real.md"))
    let inLink = project.appendingPathComponent("content/in.md"),
        outLink = project.appendingPathComponent("content/out.md")
    try fm.createSymbolicLink(at: inLink, withDestinationURL: project.appendingPathComponent("real.md"))
    try fm.createSymbolicLink(at: outLink, withDestinationURL: outside.appendingPathComponent("diary.md"))
    let strict = Confinement(root: project)
    try strict.check(inLink, shown: "content/in.md")
    #expect(throws: DossierError.self) { try strict.check(outLink, shown: "content/out.md") }
    // Named outside the project on purpose: read.
    try strict.check(outside.appendingPathComponent("diary.md"), shown: "diary.md")
    try Confinement(root: project, allowed: [outside]).check(outLink, shown: "content/out.md")
}
