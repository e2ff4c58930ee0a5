import Render

/// What `recall/summary` shows (a study's or a string set's summary page), built by
/// ``RecallStudyPage/model(strings:aggregate:cohorts:heatmapRows:)``; the section adds
/// the kit and set fields.
struct RecallSummaryModel: TemplateRecord {
    var participantCount = 0, completeCount = 0, desktopCount = 0
    var strings: [StringLink] = []
    /// The participant × string heatmap: present when there are participants.
    var heatmap: Heatmap?
    var lengthSVG = "", recallSVG = "", errorsSVG = ""
    var perString: [StringRow] = []
    /// The participant table's place (``PageSplice/marker``), when there are participants.
    var participantsTable: String?
    var cohorts: [Cohort] = []
    var hasKit = false
    /// A string set's name and the way up to `recall/` from its page (projects with sets).
    var setName: String?, up: String?

    struct Heatmap { var svg: String, shown: Int, total: Int }

    static let fields = TemplateFields<Self>([
        .int("participantCount") { $0.participantCount },
        .int("completeCount") { $0.completeCount },
        .int("incompleteCount") { $0.participantCount - $0.completeCount },
        .int("desktopCount") { $0.desktopCount },
        .bool("hasDesktop") { $0.desktopCount > 0 },
        .bool("hasParticipants") { $0.participantCount > 0 },
        .list("strings", StringLink.self) { $0.strings },
        .maybeText("heatmapSVG") { $0.heatmap?.svg },
        .bool("heatmapTruncated") { $0.heatmap.map { $0.shown < $0.total } ?? false },
        .maybeText("heatmapShown") { $0.heatmap.map { String($0.shown) } },
        .maybeText("heatmapTotal") { $0.heatmap.map { String($0.total) } },
        .text("lengthSVG") { $0.lengthSVG },
        .list("perString", StringRow.self) { $0.perString },
        .text("recallSVG") { $0.recallSVG },
        .text("errorsSVG") { $0.errorsSVG },
        .maybeText("participantsTable") { $0.participantsTable },
        .list("cohorts", Cohort.self) { $0.cohorts },
        .bool("hasCohorts") { !$0.cohorts.isEmpty },
        .bool("hasKit") { $0.hasKit },
        .maybeText("setName") { $0.setName },
        .maybeText("up") { $0.up },
    ])

    /// `strings[]`: a string's number, for the links to its dynamics file.
    struct StringLink: TemplateRecord {
        var number: Int
        var last: Bool

        static let fields = TemplateFields<Self>([
            .int("n") { $0.number },
            .bool("last") { $0.last },
        ])
    }

    /// `perString[]`: a row of the Strings table (times and rates already as shown).
    struct StringRow: TemplateRecord {
        var number: Int, text: String, reached: Int, entryCount: Int
        var meanEntry, sdEntry, medianEntry, recallRate, incorrectRate, rekeysPer, verifyPer: String

        static let fields = TemplateFields<Self>([
            .int("n") { $0.number },
            .text("text") { $0.text },
            .int("length") { $0.text.count },
            .int("reached") { $0.reached },
            .int("entryN") { $0.entryCount },
            .text("meanEntry") { $0.meanEntry },
            .text("sdEntry") { $0.sdEntry },
            .text("medianEntry") { $0.medianEntry },
            .text("recallRate") { $0.recallRate },
            .text("incorrectRate") { $0.incorrectRate },
            .text("rekeysPer") { $0.rekeysPer },
            .text("verifyPer") { $0.verifyPer },
        ])
    }

    /// `cohorts[]`: a desktop cohort's heading, counts, CSV link and heatmap.
    struct Cohort: TemplateRecord {
        var name, slug: String
        var complete, incomplete: Int
        var svg: String

        static let fields = TemplateFields<Self>([
            .text("name") { $0.name },
            .text("slug") { $0.slug },
            .int("complete") { $0.complete },
            .int("incomplete") { $0.incomplete },
            .text("svg") { $0.svg },
        ])
    }
}

/// What `recall/sets` shows (`recall/index.html` of a project with several string sets),
/// built by ``RecallSets/indexModel(_:_:cohorts:)``; the section adds the kit fields.
struct RecallSetsModel: TemplateRecord {
    var sets: [SetRow]
    var participantCount: Int
    var cohortCount: Int
    /// The kit's default string set, when the project has the kit.
    var kitSet: String?

    static let fields = TemplateFields<Self>([
        .list("sets", SetRow.self) { $0.sets },
        .int("setCount") { $0.sets.count },
        .int("participantCount") { $0.participantCount },
        .bool("hasCohorts") { $0.cohortCount > 0 },
        .bool("hasKit") { $0.kitSet != nil },
        .maybeText("kitSet") { $0.kitSet },
    ])

    /// `sets[]`: a set, its file, its participants (complete ones counted).
    struct SetRow: TemplateRecord {
        var name, file: String
        var participants: [Participant]
        var complete: Int

        static let fields = TemplateFields<Self>([
            .text("name") { $0.name },
            .text("file") { $0.file },
            .int("count") { $0.participants.count },
            .int("complete") { $0.complete },
            .list("participants", Participant.self) { $0.participants },
        ])
    }

    /// `sets[].participants[]`: a link to a participant's page.
    struct Participant: TemplateRecord {
        var slug, participant: String
        var last: Bool

        static let fields = TemplateFields<Self>([
            .text("slug") { $0.slug },
            .text("participant") { $0.participant },
            .bool("last") { $0.last },
        ])
    }
}
