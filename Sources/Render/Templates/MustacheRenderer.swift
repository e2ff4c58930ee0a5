import Escaping

/// Renders parsed templates (``MustacheNode``) with a ``TemplateValue`` context stack:
/// a name is looked up from the innermost context outwards, a section pushes its value.
/// Walks typed models through ``TemplateModel/value(_:)`` — no dynamic casts.
struct MustacheRenderer {
    /// Every template by name, for partials.
    let templates: [String: [MustacheNode]]

    func render(_ nodes: [MustacheNode], model: TemplateValue, capacity: Int = 0) -> String {
        var out = ""
        out.reserveCapacity(capacity)
        var stack = [model]
        render(nodes, &stack, indentation: "", into: &out)
        return out
    }

    /// Appends `nodes` to `out`. Inside a standalone partial (`indentation` not empty) a
    /// node's non-empty output that starts a new line of this template is indented.
    private func render(
        _ nodes: [MustacheNode], _ stack: inout [TemplateValue], indentation: String, into out: inout String
    ) {
        if indentation.isEmpty {
            for node in nodes { render(node, &stack, indentation: indentation, into: &out) }
            return
        }
        var mine = ""
        for node in nodes {
            var piece = ""
            render(node, &stack, indentation: indentation, into: &piece)
            if !piece.isEmpty, mine.utf8.last == 0x0A { mine += indentation }
            mine += piece
        }
        out += mine
    }

    private func render(
        _ node: MustacheNode, _ stack: inout [TemplateValue], indentation: String, into out: inout String
    ) {
        switch node {
        case .text(let t):
            out += t
        case .variable(let name, let escaped):
            switch lookup(name, stack) {
            case .text(let s)?: if escaped { XMLText.append(s, to: &out) } else { out += s }
            case .bool(let b)?: out += b ? "true" : "false"
            default: break
            }
        case .section(let name, let inner, let inverted):
            let value = lookup(name, stack)
            if inverted {
                switch value {
                case .list(let items)? where items.isEmpty: renderWith(.list([]), inner, &stack, indentation, &out)
                case .bool(false)?, .null?, nil: render(inner, &stack, indentation: indentation, into: &out)
                default: break
                }
                return
            }
            switch value {
            case .list(let items)?: for item in items { renderWith(item, inner, &stack, indentation, &out) }
            case .bool(let b)?: if b { render(inner, &stack, indentation: indentation, into: &out) }
            case .null?, nil: break
            case let v?: renderWith(v, inner, &stack, indentation, &out)
            }
        case .partial(let name, let indent):
            if let nodes = templates[name] {
                render(nodes, &stack, indentation: indentation + (indent ?? ""), into: &out)
            }
        }
    }

    private func renderWith(_ value: TemplateValue, _ nodes: [MustacheNode], _ stack: inout [TemplateValue],
                            _ indentation: String, _ out: inout String) {
        stack.append(value)
        render(nodes, &stack, indentation: indentation, into: &out)
        stack.removeLast()
    }

    /// `.` is the current value; `a.b` finds `a` in the innermost context that has it,
    /// then `b` inside it; `.a` looks only in the current value.
    private func lookup(_ name: MustacheName, _ stack: [TemplateValue]) -> TemplateValue? {
        guard let first = name.parts.first else { return stack.last }
        let id = name.ids[0]
        var value: TemplateValue?
        if name.current {
            value = stack.last?.field(id: id, first)
        } else {
            for context in stack.reversed() {
                if let v = context.field(id: id, first) { value = v; break }
            }
        }
        for k in name.parts.indices.dropFirst() { value = value?.field(id: name.ids[k], name.parts[k]) }
        return value
    }
}

