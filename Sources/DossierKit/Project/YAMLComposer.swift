import CLibYAML

/// Turns libyaml's event stream for one YAML document into a ``ConfigNode``
/// (docs/configuration.md, "How YAML is read").
///
/// - Anchors and aliases: an alias stands for the whole node its anchor names (the
///   latest anchor of that name), and every value it stands for counts against
///   ``ConfigNode/maxValues`` — one per node, one more per mapping entry — so nested
///   aliases cannot expand into billions of values.
/// - A scalar is null when its tag is `tag:yaml.org,2002:null` (`!!null`) or it is plain
///   and one of ``, `~`, `null`, `Null`, `NULL`; other tags are kept as text.
/// - A mapping key given twice is an error at the line of the repeat.
/// - An empty stream (nothing, or only comments) is an empty mapping at line 1; a
///   second document is an error.
struct YAMLComposer {
    private struct Anchored {
        var node: ConfigNode
        /// The scalar's text (a null's too), for use as a mapping key.
        var text: String?
        /// How many values the node stands for (``ConfigNode/maxValues``).
        var count: Int
    }

    /// One event, copied out of libyaml's structure.
    private struct Event {
        var type: yaml_event_type_t
        var line: Int
        var value = ""
        var tag: String?
        var anchor: String?
        var plain = false
    }

    private let file: String
    private let input: UnsafeMutableBufferPointer<UInt8>
    private var parser: UnsafeMutablePointer<yaml_parser_t>
    private var anchors: [String: Anchored] = [:]
    private var budget = ConfigNode.maxValues
    /// Added to a line named inside a message ("first at line N"): the lines of a
    /// front matter are counted from the file's start (the error's own line is shifted
    /// by the caller, ConfigNode.parse(_:file:lineOffset:)).
    private var lineOffset = 0

    /// Composes `text`; errors name `file` and the line.
    static func compose(_ text: String, file: String, lineOffset: Int = 0) throws -> ConfigNode {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buf in
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            guard yaml_parser_initialize(parser) == 1 else { throw DossierError(file: file, "out of memory") }
            defer {
                yaml_parser_delete(parser)
                parser.deallocate()
            }
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, buf.baseAddress, buf.count)
            var composer = YAMLComposer(file: file, input: buf, parser: parser)
            composer.lineOffset = lineOffset
            return try composer.document(text)
        }
    }

    private init(file: String, input: UnsafeMutableBufferPointer<UInt8>, parser: UnsafeMutablePointer<yaml_parser_t>) {
        self.file = file
        self.input = input
        self.parser = parser
    }

    private mutating func document(_ text: String) throws -> ConfigNode {
        _ = try next()  // stream start
        let start = try next()
        if start.type == YAML_STREAM_END_EVENT { return .map([], line: 1) }
        let root = try node(from: try next()).node
        _ = try next()  // document end
        let after = try next()
        if after.type != YAML_STREAM_END_EVENT {
            throw DossierError(file: file, line: after.line, "invalid YAML: but found another document")
        }
        return root
    }

    /// The node that begins with `event`, with its text when it is a scalar and the
    /// number of values it stands for; a mapping key (`counted` false) is not counted
    /// itself (its entry is).
    private mutating func node(from event: Event, counted: Bool = true) throws -> Anchored {
        let spent = counted ? 1 : 0
        let made: Anchored
        switch event.type {
        case YAML_ALIAS_EVENT:
            guard let found = anchors[event.anchor ?? ""] else {
                throw DossierError(file: file, line: event.line, "invalid YAML: found undefined alias")
            }
            try spend(counted ? found.count : 0, line: event.line)
            return found
        case YAML_SCALAR_EVENT:
            let isNull =
                event.tag == "tag:yaml.org,2002:null"
                || (event.plain && ["", "~", "null", "Null", "NULL"].contains(event.value))
            try spend(spent, line: event.line)
            made = Anchored(
                node: isNull ? .null(line: event.line) : .scalar(event.value, line: event.line),
                text: event.value, count: 1)
        case YAML_SEQUENCE_START_EVENT:
            try spend(spent, line: event.line)
            var items: [ConfigNode] = []
            var count = 1
            var next = try self.next()
            while next.type != YAML_SEQUENCE_END_EVENT {
                let item = try node(from: next)
                items.append(item.node)
                count += item.count
                next = try self.next()
            }
            made = Anchored(node: .list(items, line: event.line), text: nil, count: count)
        case YAML_MAPPING_START_EVENT:
            try spend(spent, line: event.line)
            made = try mapping(from: event)
        default:
            throw DossierError(file: file, line: event.line, "invalid YAML: unexpected event")
        }
        if let anchor = event.anchor { anchors[anchor] = made }
        return made
    }

    private mutating func mapping(from event: Event) throws -> Anchored {
        var entries: [ConfigEntry] = []
        var count = 1
        var firstLine: [String: Int] = [:]
        var repeats: [(key: String, line: Int)] = []
        var next = try self.next()
        while next.type != YAML_MAPPING_END_EVENT {
            let keyLine = next.line
            let key = try node(from: next, counted: false)
            let text = key.text ?? ""
            try spend(1, line: keyLine)
            let value = try node(from: try self.next())
            entries.append(ConfigEntry(key: text, keyLine: keyLine, value: value.node))
            count += 1 + value.count
            if firstLine[text] == nil {
                firstLine[text] = keyLine
            } else if !repeats.contains(where: { $0.key == text }) {
                repeats.append((text, keyLine))
            }
            next = try self.next()
        }
        if !repeats.isEmpty {
            let sorted = repeats.sorted { $0.key < $1.key }
            let first = sorted[0]
            throw DossierError(
                file: file, line: first.line,
                "duplicate key '\(first.key)' (first at line \((firstLine[first.key] ?? first.line) + lineOffset))"
                    + (sorted.count > 1
                        ? "; also repeated: \(sorted.dropFirst().map(\.key).joined(separator: ", "))" : ""))
        }
        return Anchored(node: .map(entries, line: event.line), text: nil, count: count)
    }

    /// Counts `n` values against the budget; an error at `line` when it is spent.
    private mutating func spend(_ n: Int, line: Int) throws {
        budget -= n
        if budget < 0 {
            throw DossierError(
                file: file, line: line,
                "YAML aliases expand to more than \(ConfigNode.maxValues) values (refused: an alias bomb?)")
        }
    }

    /// The next event, or the parser's error with its line.
    private mutating func next() throws -> Event {
        var raw = yaml_event_t()
        guard yaml_parser_parse(parser, &raw) == 1 else { throw failure() }
        defer { yaml_event_delete(&raw) }
        var event = Event(type: raw.type, line: Int(raw.start_mark.line) + 1)
        func text(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            p.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
        switch raw.type {
        case YAML_ALIAS_EVENT:
            event.anchor = text(raw.data.alias.anchor)
        case YAML_SCALAR_EVENT:
            let s = raw.data.scalar
            event.value = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
            event.tag = text(s.tag)
            event.anchor = text(s.anchor)
            event.plain = s.style == YAML_PLAIN_SCALAR_STYLE
        case YAML_SEQUENCE_START_EVENT:
            event.tag = text(raw.data.sequence_start.tag)
            event.anchor = text(raw.data.sequence_start.anchor)
        case YAML_MAPPING_START_EVENT:
            event.tag = text(raw.data.mapping_start.tag)
            event.anchor = text(raw.data.mapping_start.anchor)
        default:
            break
        }
        return event
    }

    /// libyaml's own description of what is wrong, at its line.
    private func failure() -> DossierError {
        let p = parser.pointee
        let problem = p.problem.map { String(cString: $0) } ?? "unreadable input"
        if p.error == YAML_READER_ERROR {
            // The reader marks a byte offset, not a line.
            let end = min(Int(p.problem_offset), input.count)
            let line = 1 + input[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            return DossierError(file: file, line: line, "invalid YAML: \(problem)")
        }
        if p.error == YAML_MEMORY_ERROR { return DossierError(file: file, "invalid YAML: out of memory") }
        return DossierError(file: file, line: Int(p.problem_mark.line) + 1, "invalid YAML: \(problem)")
    }
}
