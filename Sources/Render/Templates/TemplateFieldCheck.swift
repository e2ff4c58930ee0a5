/// Checks templates against their models' field tables (``TemplateRecord``) without
/// rendering them: every branch of a template is walked, whatever a model's data.
///
/// A name is looked up as the renderer looks it up: in the innermost context first
/// (the item of `{{#list}}`, the object of `{{#object}}`), then outwards. The check
/// reports a name no context in scope has (a key the template reads that its model
/// lacks), a list or object written as `{{x}}` (it renders nothing), and — from
/// ``unread(_:)``, after every template was checked — a field no template read.
public struct TemplateFieldCheck {
    /// What is wrong, one sentence each, naming the template and the field.
    public private(set) var problems: [String] = []
    /// `type.field` of every field some template read.
    public private(set) var read: Set<String> = []

    public init() {}

    /// What a context on the stack is: a model with fields, or a text (`{{#x}}` on a text
    /// pushes it; only `{{.}}` reads it).
    private enum Scope {
        case record(TemplateSchema)
        case text
    }

    /// Walks template `name` of `templates` with `scopes` as its outermost contexts (the
    /// first is searched last).
    public mutating func check(_ templates: TemplateSet, template name: String, scopes: [TemplateSchema]) {
        guard let nodes = templates.parsed(name) else {
            problems.append("\(name): no such template")
            return
        }
        var stack = scopes.map { Scope.record($0) }
        walk(nodes, &stack, templates: templates, template: name, path: [], depth: 0)
    }

    /// The fields of `roots` and of every model reachable from them that no checked
    /// template read, as `type.field`.
    public func unread(_ roots: [TemplateSchema]) -> [String] {
        var seen: Set<String> = [], out: [String] = []
        var queue = roots
        while let schema = queue.popLast() {
            guard seen.insert(schema.type).inserted else { continue }
            for field in schema.fields {
                if !field.forOwnTemplates, !read.contains(schema.type + "." + field.name) {
                    out.append(schema.type + "." + field.name)
                }
                var kind = field.kind
                while case .list(let inner) = kind { kind = inner }
                if case .object(let make) = kind { queue.append(make()) }
            }
        }
        return out.sorted()
    }

    private mutating func walk(_ nodes: [MustacheNode], _ stack: inout [Scope], templates: TemplateSet,
                               template: String, path: [String], depth: Int) {
        for node in nodes {
            switch node {
            case .text:
                break
            case .variable(let name, _):
                if let kind = resolve(name, stack, template: template, path: path) {
                    switch kind {
                    case .text, .bool: break
                    case .list, .object:
                        problems.append("\(template): {{\(name.shown)}}\(where_(path)) is a list or an object, "
                                        + "which renders nothing as a variable")
                    }
                }
            case .section(let name, let inner, let inverted):
                let kind = resolve(name, stack, template: template, path: path)
                let innerPath = path + [(inverted ? "^" : "#") + name.shown]
                var pushed = false
                if !inverted, let kind {
                    var item = kind
                    if case .list(let element) = kind { item = element }
                    switch item {
                    case .object(let make): stack.append(.record(make())); pushed = true
                    case .text: stack.append(.text); pushed = true
                    case .bool, .list: break
                    }
                }
                walk(inner, &stack, templates: templates, template: template, path: innerPath, depth: depth)
                if pushed { stack.removeLast() }
            case .partial(let partial, _):
                guard depth < 16, let inner = templates.parsed(partial) else { continue }
                walk(inner, &stack, templates: templates, template: partial, path: path, depth: depth + 1)
            }
        }
    }

    /// The kind of `name` in `stack`, marking the field read; nil (and a problem) when no
    /// context has it.
    private mutating func resolve(_ name: MustacheName, _ stack: [Scope], template: String,
                                  path: [String]) -> TemplateFieldKind? {
        guard let first = name.parts.first else {
            if case .record(let schema)? = stack.last { return .object { schema } }
            return .text
        }
        let candidates = name.current ? Array(stack.suffix(1)) : stack.reversed()
        var found: (TemplateSchema, TemplateFieldKind)?
        for case .record(let schema) in candidates {
            if let kind = schema.kind(of: first) { found = (schema, kind); break }
        }
        guard var (schema, kind) = found else {
            let types = stack.compactMap { scope -> String? in
                if case .record(let schema) = scope { return schema.type }
                return nil
            }
            problems.append("\(template): {{\(name.shown)}}\(where_(path)) is not a field of "
                            + types.reversed().joined(separator: " or "))
            return nil
        }
        read.insert(schema.type + "." + first)
        for part in name.parts.dropFirst() {
            guard case .object(let make) = kind else {
                problems.append("\(template): {{\(name.shown)}}\(where_(path)): \(schema.type).\(first) has no fields")
                return nil
            }
            schema = make()
            guard let inner = schema.kind(of: part) else {
                problems.append("\(template): {{\(name.shown)}}\(where_(path)) is not a field of \(schema.type)")
                return nil
            }
            read.insert(schema.type + "." + part)
            kind = inner
        }
        return kind
    }

    private func where_(_ path: [String]) -> String {
        path.isEmpty ? "" : " (inside {{" + path.joined(separator: "}} {{") + "}})"
    }
}

extension MustacheName {
    /// The name as a template writes it.
    var shown: String { (current ? "." : "") + (parts.isEmpty ? "" : parts.joined(separator: ".")) }
}
