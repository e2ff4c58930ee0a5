import Foundation
import Mustache
import Testing
import UntypedModels
@testable import Render

// Dossier's Mustache renderer replaced swift-mustache; these tests render the same
// templates with the same models through both and require the same bytes.

/// Renders `templates[name]` through Dossier's renderer and through swift-mustache.
private func both(
    _ templates: [String: String], _ name: String, _ model: [String: Any]
) throws -> (ours: String, theirs: String) {
    var library = MustacheLibrary()
    for (n, t) in templates { library.register(try MustacheTemplate(string: t), named: n) }
    let set = try TemplateSet(
        builtIn: templates.map { TemplateSet.Source(name: $0.key, text: $0.value, file: $0.key) }, folders: [])
    return (try set.render(name, model), library.render(model, withTemplate: name) ?? "<missing>")
}

private let tricky = "a <b> & \"c\" 'd'"

@Test(arguments: [
    // standalone tags take their line; indented and CRLF lines too
    "a\n{{#s}}\nin {{x}}\n{{/s}}\nb\n",
    "  {{#s}}\n  in\n  {{/s}}\n",
    "a\r\n{{#s}}\r\nin\r\n{{/s}}\r\nb",
    "{{#s}}x{{/s}}\n{{^s}}y{{/s}}\n",
    "{{! a comment }}\nline\n  {{! indented comment }}  \nend",
    "  {{!c}} x\n",
    "before {{#s}}\ninside\n{{/s}} after\n",
    "{{#list}}{{name}}, {{/list}}\n{{^empty}}none{{/empty}}",
    "{{#list}}\n  - {{name}} {{#flag}}yes{{/flag}}{{^flag}}no{{/flag}}\n{{/list}}\n",
    "{{site.title}} {{#site}}{{title}}{{/site}} {{.site.title}}",
    "{{#list}}{{x}}{{/list}}",                // x from the outer context
    "{{x}} {{{x}}} {{& x}} {{ x }}",
    "{{=<% %>=}}\n<% x %> {{x}}\n<%={{ }}=%>\n{{x}}\n",
    "{{#texts}}[{{.}}]{{/texts}}",
    "{{#emptyText}}shown for an empty string{{/emptyText}}{{#zero}}and 0{{/zero}}",
    "{{missing}}|{{#missing}}no{{/missing}}|{{^missing}}yes{{/missing}}|{{nothing}}|{{^nothing}}null{{/nothing}}",
    "{{flag}} {{number}} {{double}}",
    "x {{> part}}\n  {{> part}}\n{{> part}}",
    "\t{{#s}}\t\n{{x}}\n\t{{/s}}\t",
    "{{#s}}{{#list}}{{#s}}{{name}}{{/s}}{{/list}}{{/s}}",
    "unclosed tag at end {{",
])
func rendersLikeSwiftMustache(_ template: String) throws {
    let model: [String: Any] = [
        "s": true, "x": tricky, "flag": false, "number": 42, "double": 2.5,
        "site": ["title": "Site & co"],
        "list": [["name": "one", "flag": true], ["name": "<two>", "flag": false]],
        "empty": [Any](), "texts": ["p", "q"], "emptyText": "", "zero": 0, "nothing": NSNull(),
    ]
    let r = try both(["t": template, "part": "p1 {{x}}\np2\n"], "t", model)
    #expect(r.ours == r.theirs)
}

/// The names of a template's tags, and whether each is ever written as a variable.
private func tagNames(_ text: String) -> [String: Bool] {
    var names: [String: Bool] = [:]
    let re = try! NSRegularExpression(pattern: #"\{\{([#^/&{]?)\s*([A-Za-z0-9_.?-]+)"#)
    for m in re.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        let kind = String(text[Range(m.range(at: 1), in: text)!])
        let name = String(text[Range(m.range(at: 2), in: text)!])
        names[name] = (names[name] ?? false) || kind == "" || kind == "&" || kind == "{"
    }
    return names
}

/// A model giving every name of `names` a value of one of four shapes (`variant`):
/// all present and true, all empty/false, and two mixtures; sections get lists of models
/// with the same names (`textLists`: lists of text, for templates that write `{{.}}`).
private func model(_ names: [String: Bool], variant: Int, depth: Int = 2, textLists: Bool = false) -> [String: Any] {
    var m: [String: Any] = [:]
    for (i, (name, isVariable)) in names.sorted(by: { $0.key < $1.key }).enumerated() {
        let parts = name.split(separator: ".").map(String.init)
        guard let key = parts.first else { continue }
        let pick = (variant + i) % 4
        let value: Any
        if isVariable {
            value = variant == 1 ? "" : [tricky + " \(name)", "", "plain", "x'y"][pick]
        } else if variant == 1 || depth == 0 {
            value = [false, [Any](), "", false][pick]
        } else {
            let items: [Any] = textLists ? ["p<", "q'"]
                : [model(names, variant: 1, depth: depth - 1), model(names, variant: 0, depth: depth - 1)]
            value = [textLists ? "t" : true, items, "",
                     false][pick]  // (`{{.}}` in a `true` section is the object above)
        }
        if parts.count == 1 { m[key] = value } else {
            var inner = m[key] as? [String: Any] ?? [:]
            inner[parts.dropFirst().joined(separator: ".")] = value
            m[key] = inner
        }
    }
    return m
}

@Test func everyBuiltInTemplateRendersLikeSwiftMustache() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
        .standardized
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        .compactMap { $0 as? URL }.filter { $0.pathExtension == "mustache" }
    #expect(files.count > 10)
    for file in files {
        let text = try String(contentsOf: file, encoding: .utf8)
        let names = tagNames(text)
        // `{{.}}` of an object is the object's debug description in swift-mustache and
        // nothing in Dossier: templates only write `{{.}}` inside lists of text.
        let withoutDot = text.replacingOccurrences(of: "{{.}}", with: "")
        for variant in 0..<4 {
            let r = try both(["t": withoutDot], "t", model(names, variant: variant))
            #expect(r.ours == r.theirs, "\(file.lastPathComponent), variant \(variant)")
            if text != withoutDot {
                let r = try both(["t": text], "t", model(names, variant: variant, textLists: true))
                #expect(r.ours == r.theirs, "\(file.lastPathComponent) with lists of text, variant \(variant)")
            }
        }
    }
}

@Test func typedModelsAreWalkedWithoutTheirFieldsBeingDictionaryKeys() throws {
    struct Item: TemplateModel {
        var name: String
        func value(_ n: String) -> TemplateValue? { n == "name" ? .text(name) : nil }
    }
    struct Root: TemplateModel {
        var items: [Item]
        func value(_ n: String) -> TemplateValue? {
            switch n {
            case "items": .list(of: items)
            case "title": .text("T<")
            default: nil
            }
        }
    }
    let set = try TemplateSet(
        builtIn: [.init(name: "t", text: "{{#items}}{{name}}/{{title}};{{/items}}", file: "t")], folders: [])
    #expect(try set.render("t", Root(items: [Item(name: "a&"), Item(name: "b")])) == "a&amp;/T&lt;;b/T&lt;;")
}

@Test func parseErrorsNameTheFileAndLine() {
    for (text, line) in [
        ("ok\n{{#a}}\n{{/b}}\n", 3), ("{{#a}}\n\nx", 3), ("\n{{upper(x)}}", 2), ("{{<parent}}{{/parent}}", 1)
    ] {
        #expect {
            _ = try TemplateSet(builtIn: [.init(name: "t", text: text, file: "templates/t.mustache")], folders: [])
        } throws: { error in
            "\(error)".hasPrefix("templates/t.mustache:\(line): template error:")
        }
    }
}

/// A project template that is not UTF-8 (or cannot be read) is an error naming its file and
/// the first bad line — never skipped, which would put the built-in template in its place.
@Test func aProjectTemplateThatIsNotUTF8IsAnErrorAtItsLine() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tpl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("page.mustache")
    let builtIn = [TemplateSet.Source(name: "page", text: "built-in {{x}}", file: "Templates/page.mustache")]
    for (bytes, line) in [([0xFF], 1), (Array("ok\n<p>\n".utf8) + [0xE9, 0x74, 0x0A], 3),
                          (Array("é\n".utf8) + [0xC3], 2), (Array("a\nb\n\n".utf8) + [0xED, 0xA0, 0x80], 4)] {
        try Data(bytes).write(to: file)
        #expect {
            _ = try TemplateSet(builtIn: builtIn, folders: [folder])
        } throws: { error in
            "\(error)" == "\(file.path):\(line): template error: not UTF-8 text; save the template as UTF-8"
        }
    }
    // Valid UTF-8 (é as one scalar and as e + U+0301) overrides the built-in one.
    try Data("é e\u{301} {{x}}".utf8).write(to: file)
    let set = try TemplateSet(builtIn: builtIn, folders: [folder])
    #expect(set.overridden == ["page"])
    #expect(try set.render("page", ["x": "1"]) == "é e\u{301} 1")
}
