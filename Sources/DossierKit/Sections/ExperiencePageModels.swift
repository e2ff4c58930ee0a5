import Render

// The models of the experiences pages (Templates/experiences/), built by
// ``ExperiencesSection``: a viewer, an overview and a congratulations page per experience,
// the section's home and the editor.

/// `experiences/viewer`: the 360° viewer; the experience itself is embedded as JSON.
struct ExperienceViewerModel: TemplateRecord {
    var title, slug: String
    /// The viewer data, safe inside `<script>` (``HTML/scriptSafeJSON(_:)``).
    var json: String
    var firstTitle: String
    /// The first panorama's prepared scene script, when it has one.
    var firstScene: Scene?
    var totalClips: Int

    static let fields = TemplateFields<Self>([
        .text("title") { $0.title },
        .text("slug") { $0.slug },
        .text("json") { $0.json },
        .text("firstTitle") { $0.firstTitle },
        .list("firstScene", Scene.self) { $0.firstScene.map { [$0] } ?? [] },
        .int("totalClips") { $0.totalClips },
    ])

    /// `firstScene[]`: the script that holds a panorama's tiles.
    struct Scene: TemplateRecord {
        var src, id: String

        static let fields = TemplateFields<Self>([
            .text("src") { $0.src },
            .text("id") { $0.id },
        ])
    }
}

/// `experiences/overview`: the door graph, the panoramas, the media checks, the warnings.
struct ExperienceOverviewModel: TemplateRecord {
    var title, description, file, kindLabel: String
    var owner: String?
    var graphSVG, firstTitle, finalTitle, finalClipsLabel, totalClipsLabel: String
    var shortestPath: [PathStep]
    var panoramas: [PanoramaRow]
    var media: [MediaRow]
    var totalSize, budget: String
    var overBudget: Bool
    var warnings: [String]

    static let fields = TemplateFields<Self>([
        .text("title") { $0.title },
        .text("description") { $0.description },
        .text("file") { $0.file },
        .text("kindLabel") { $0.kindLabel },
        .texts("owner") { $0.owner.map { [$0] } ?? [] },
        .text("graphSVG") { $0.graphSVG },
        .text("firstTitle") { $0.firstTitle },
        .text("finalTitle") { $0.finalTitle },
        .text("finalClipsLabel") { $0.finalClipsLabel },
        .text("totalClipsLabel") { $0.totalClipsLabel },
        .list("shortestPath", PathStep.self) { $0.shortestPath },
        .list("panoramas", PanoramaRow.self) { $0.panoramas },
        .list("media", MediaRow.self) { $0.media },
        .text("totalSize") { $0.totalSize },
        .text("budget") { $0.budget },
        .bool("overBudget") { $0.overBudget },
        .texts("warnings") { $0.warnings },
        .bool("hasWarnings") { !$0.warnings.isEmpty },
    ])

    /// `shortestPath[]`: a panorama on the shortest way to the end.
    struct PathStep: TemplateRecord {
        var title: String
        var first: Bool

        static let fields = TemplateFields<Self>([
            .text("title") { $0.title },
            .bool("first") { $0.first },
        ])
    }

    /// `panoramas[]`: a panorama, its clips, its doors and its status in the graph.
    struct PanoramaRow: TemplateRecord {
        var id, title: String
        var clips: Int
        var doors, status: String

        static let fields = TemplateFields<Self>([
            .text("id") { $0.id },
            .text("title") { $0.title },
            .int("clips") { $0.clips },
            .text("doors") { $0.doors },
            .text("status") { $0.status },
        ])
    }

    /// `media[]`: a media file's checks, as shown.
    struct MediaRow: TemplateRecord {
        var path, role, size, pixels, rms, peak, note: String

        static let fields = TemplateFields<Self>([
            .text("path") { $0.path },
            .text("role") { $0.role },
            .text("size") { $0.size },
            .text("pixels") { $0.pixels },
            .text("rms") { $0.rms },
            .text("peak") { $0.peak },
            .text("note") { $0.note },
        ])
    }
}

/// `experiences/congratulations`: shown when an experience is finished.
struct ExperienceCongratulationsModel: TemplateRecord {
    var title: String

    static let fields = TemplateFields<Self>([.text("title") { $0.title }])
}

/// `experiences/home`: a widget per experience.
struct ExperiencesHomeModel: TemplateRecord {
    var experiences: [Widget]
    var warningCount: Int

    static let fields = TemplateFields<Self>([
        .list("experiences", Widget.self) { $0.experiences },
        .bool("hasWarnings") { $0.warningCount > 0 },
        .int("warningCount") { $0.warningCount },
    ])

    /// `experiences[]`: an experience's thumbnail, title and facts.
    struct Widget: TemplateRecord {
        var slug, title, description, thumb, places, clipsLabel, kindLabel: String

        static let fields = TemplateFields<Self>([
            .text("slug") { $0.slug },
            .text("title") { $0.title },
            .text("description") { $0.description },
            .text("thumb") { $0.thumb },
            .text("places") { $0.places },
            .text("clipsLabel") { $0.clipsLabel },
            .text("kindLabel") { $0.kindLabel },
        ])
    }
}

/// `experiences/editor`: the site's experiences embedded as JSON.
struct ExperienceEditorModel: TemplateRecord {
    var json: String

    static let fields = TemplateFields<Self>([.text("json") { $0.json }])
}
