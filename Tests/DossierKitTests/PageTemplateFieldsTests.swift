import Foundation
import Render
import Testing
@testable import DossierKit

/// Every built-in template (Templates/, compiled in by Plugins/EmbedFolders) against its
/// page model (``PageTemplates/pageModels``): each name a template reads is a field of a
/// model in scope, and each field of a model is read by some template (or marked as kept
/// for a project's own templates). The check walks every branch of a template, so a field
/// read only when a flag is false is checked too. And it fails when a key is renamed on
/// one side only: in a copy of a template (a project's override in a temp folder), or in
/// a model.
@Suite struct PageTemplateFieldsTests {
    static func builtIn(overrides: URL? = nil) throws -> TemplateSet {
        try TemplateSet(builtIn: try Resources.templates(), folders: overrides.map { [$0] } ?? [])
    }

    @Test func everyTemplateReadsOnlyFieldsItsModelHasAndEveryFieldIsRead() throws {
        let templates = try Self.builtIn()
        #expect(PageTemplates.problems(templates) == [])
        // Every page template has a model, and the game and vault pages are among them
        // (the test runs with every domain).
        #expect(templates.names.count == PageTemplates.pageModels.count + 1)
        #expect(templates.names.contains("game/cohort-public") && templates.names.contains("vault/index"))
    }

    /// Each `{{name}}` tag of each template renamed in a copy (a project override in a temp
    /// folder): the template reads a name its model lacks, and the field it read is unread.
    @Test func aKeyRenamedInACopyOfATemplateIsCaught() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("template-fields-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        var renamed = 0
        for source in try Resources.templates() {
            // The first plain variable tag (`{{name}}`, not a section, partial or comment).
            guard let tag = Self.firstVariable(in: source.text) else { continue }
            let file = folder.appendingPathComponent(source.name + ".mustache")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            let text = Self.replacingFirst("{{\(tag)}}", with: "{{\(tag)Renamed}}", in: source.text)
            try Data(text.utf8).write(to: file)
            let problems = PageTemplates.problems(try Self.builtIn(overrides: folder))
            try FileManager.default.removeItem(at: file)
            #expect(problems.contains { $0.hasPrefix("\(source.name): {{\(tag)Renamed}}") },
                    "\(source.name): renaming {{\(tag)}} was not caught: \(problems)")
            renamed += 1
        }
        #expect(renamed >= 15)
        // What a rename reports, for one page: both sides.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("vault"),
                                                withIntermediateDirectories: true)
        let vault = try #require(try Resources.templates().first { $0.name == "vault/index" })
        try Data(Self.replacingFirst("{{weakCount}}", with: "{{weakTotal}}", in: vault.text).utf8)
            .write(to: folder.appendingPathComponent("vault/index.mustache"))
        let problems = PageTemplates.problems(try Self.builtIn(overrides: folder))
        #expect(problems == [
            "vault/index: {{weakTotal}} is not a field of DossierKit.VaultPageModel or page",
            "DossierKit.VaultPageModel.weakCount: no template reads this field",
        ])
    }

    /// Each field of each page model renamed in a copy of the model: the check reports
    /// the name the template still reads, or the renamed field nobody reads.
    @Test func aFieldRenamedInAModelIsCaught() throws {
        let templates = try Self.builtIn()
        var renamed = 0
        for (name, schema) in PageTemplates.pageModels {
            for (index, field) in schema.fields.enumerated() where !field.forOwnTemplates {
                var fields = schema.fields
                fields[index].name += "Renamed"
                var pages = PageTemplates.pageModels
                pages[name] = TemplateSchema(type: schema.type, fields: fields)
                let problems = PageTemplates.problems(templates, pages: pages)
                #expect(problems.contains("\(schema.type).\(field.name)Renamed: no template reads this field"),
                        "\(name): renaming \(field.name) was not caught: \(problems)")
                renamed += 1
            }
        }
        #expect(renamed >= 150)
    }

    /// A small model that does not match its template: a field too many, a field missing,
    /// a list written as a variable.
    @Test func aMismatchedModelIsReported() throws {
        let templates = try TemplateSet(builtIn: [
            .init(name: "layout", text: "{{{content}}}", file: "layout.mustache"),
            .init(name: "t", text: "{{title}} {{#rows}}{{label}} {{missing}}{{/rows}} {{rows}}", file: "t.mustache"),
        ], folders: [])
        struct Row: TemplateRecord {
            var label: String
            static let fields = TemplateFields<Self>([.text("label") { $0.label }])
        }
        struct Model: TemplateRecord {
            var rows: [Row], extra: String
            static let fields = TemplateFields<Self>([
                .list("rows", Row.self) { $0.rows },
                .text("extra") { $0.extra },
            ])
        }
        let problems = PageTemplates.problems(templates, pages: ["t": Model.schema])
        let model = String(reflecting: Model.self), row = String(reflecting: Row.self)
        #expect(problems.contains("t: {{missing}} (inside {{#rows}}) is not a field of \(row) or \(model) or page"))
        #expect(problems.contains("t: {{rows}} is a list or an object, which renders nothing as a variable"))
        #expect(problems.contains("\(model).extra: no template reads this field"))
    }

    /// The first `{{name}}` of `text` whose name is a plain field (letters only).
    static func firstVariable(in text: String) -> String? {
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            rest = rest[open.upperBound...]
            let name = rest.prefix { $0.isLetter }
            if !name.isEmpty, rest.dropFirst(name.count).hasPrefix("}}") { return String(name) }
        }
        return nil
    }

    static func replacingFirst(_ old: String, with new: String, in text: String) -> String {
        guard let range = text.firstRange(of: old) else { return text }
        return text.replacingCharacters(in: range, with: new)
    }
}
