import Render

/// Every built-in template (`Templates/*.mustache`) and the model it is rendered with, and
/// the check that they agree (``TemplateFieldCheck``): a name a template reads that its
/// model lacks, or a model field no template reads, is a problem. docs/architecture.md,
/// "A page of an existing section", says how a page joins this list.
enum PageTemplates {
    /// The page templates' models. A page template is rendered with its model inside
    /// ``PageContext`` (`root`, `site`, `title`); `layout` with ``LayoutModel``.
    static var pageModels: [String: TemplateSchema] {
        var models: [String: TemplateSchema] = [
            "home": HomeModel.schema,
            "page": ContentPageModel.schema,
            "recall/participant": ParticipantPageModel.schema,
            "recall/summary": RecallSummaryModel.schema,
            "recall/sets": RecallSetsModel.schema,
            "experiences/viewer": ExperienceViewerModel.schema,
            "experiences/overview": ExperienceOverviewModel.schema,
            "experiences/congratulations": ExperienceCongratulationsModel.schema,
            "experiences/home": ExperiencesHomeModel.schema,
            "experiences/editor": ExperienceEditorModel.schema,
            "sms/index": SMSPageModel.schema,
        ]
        #if DOMAIN_GAME
        models["game/index"] = GameIndexModel.schema
        models["game/awaiting"] = GameAwaitingModel.schema
        models["game/player"] = GamePlayerModel.schema
        models["game/cohort"] = GameCohortModel.schema
        models["game/cohort-public"] = GamePublicPageModel.schema
        models["game/methods"] = GameMethodsModel.schema
        #endif
        #if DOMAIN_VAULT
        models["vault/index"] = VaultPageModel.schema
        #endif
        return models
    }

    /// Every problem between `templates` and the models in `pages`, one sentence each
    /// (none when they agree): a template without a model, a model without a template,
    /// a name read that no model in scope has, and a field no template reads (except the
    /// fields kept for a project's own templates).
    static func problems(_ templates: TemplateSet, pages: [String: TemplateSchema] = pageModels) -> [String] {
        var check = TemplateFieldCheck()
        var problems: [String] = []
        for name in templates.names.sorted() {
            if name == "layout" {
                check.check(templates, template: name, scopes: [LayoutModel.schema])
            } else if let schema = pages[name] {
                check.check(templates, template: name, scopes: [PageContext.frame, schema])
            } else {
                problems.append("\(name): no model is listed for this template (PageTemplates.pageModels)")
            }
        }
        for name in pages.keys.sorted() where !templates.has(name) {
            problems.append("\(name): a model is listed, but there is no such template")
        }
        let roots = [LayoutModel.schema, PageContext.frame] + pages.keys.sorted().map { pages[$0]! }
        return problems + check.problems + check.unread(roots).map { "\($0): no template reads this field" }
    }
}
