#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics
import JSONLines
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Reading Dossier's native JSON Lines session log (docs/recall-events.md)

public enum NativeLog {
    /// The `format` value of the header line this version writes and reads.
    public static let format = "dossier-recall/1"

    /// The largest session log read (256 MiB, docs/limits.md): a log is read whole, so a
    /// larger file is refused before it is opened rather than held in memory.
    public static let maximumSize: Int64 = 256 << 20

    /// Reads a log file.
    public static func load(_ url: URL, display: String? = nil) throws -> SessionLog {
        let name = display ?? url.path
        var st = stat()
        if stat(url.path, &st) == 0, Int64(st.st_size) > maximumSize {
            throw RecallError(file: name, "a session log is \(st.st_size) bytes, more than the maximum of 256 MiB "
                + "(docs/limits.md); split the session into several logs")
        }
        guard let bytes = readFile(url.path) else {
            throw RecallError(file: name, "cannot read the session log")
        }
        return try bytes.withUnsafeBufferPointer { try parse(bytes: $0, file: name) }
    }

    /// ``load(_:display:)`` of a log whose bytes were read already (by the build, which
    /// hashed them on the way: docs/incremental.md "Each log read once"); the same size
    /// limit and errors.
    public static func load(bytes: [UInt8], display name: String) throws -> SessionLog {
        if Int64(bytes.count) > maximumSize {
            throw RecallError(file: name, "a session log is \(bytes.count) bytes, more than the maximum of 256 MiB "
                + "(docs/limits.md); split the session into several logs")
        }
        return try bytes.withUnsafeBufferPointer { try parse(bytes: $0, file: name) }
    }

    /// A file's bytes, read with read(2) into one buffer sized from fstat(2) (a file
    /// that grew meanwhile is read to its end); nil when it cannot be read.
    /// (`FileManager.contents(atPath:)` read into a buffer of its own and copied it.)
    public static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR else { return nil }
        /// Fills `buf` up to the end of the file; the count read, nil on an error.
        func fill(_ buf: UnsafeMutableBufferPointer<UInt8>) -> Int? {
            var n = 0
            while n < buf.count {
                let r = read(fd, buf.baseAddress! + n, buf.count - n)
                if r < 0 && errno == EINTR { continue }
                if r < 0 { return nil }
                if r == 0 { break }
                n += r
            }
            return n
        }
        // One byte more than the size, so that reaching the end needs no second buffer.
        let size = max(Int(st.st_size), 0) + 1
        var failed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            if let n = fill(buf) { count = n } else { count = 0; failed = true }
        }
        if failed { return nil }
        if bytes.count == size {                    // it grew since fstat: the rest in chunks
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                guard let n = chunk.withUnsafeMutableBufferPointer({ fill($0) }) else { return nil }
                bytes += chunk[..<n]
                if n < chunk.count { break }
            }
        }
        return bytes
    }

    /// Parses the bytes of a log: one JSON object per line, the first a `session` header.
    ///
    /// Errors (with file and line): a line that is not a JSON object, an unknown event
    /// type, page, button or key action, a time that is negative or goes backwards, a
    /// string number outside 1–10, a field outside the page's fields, a participant
    /// number that is empty or over 12 characters. A last line without a final newline
    /// that does not parse is taken as cut off by a closing app: it is dropped with a warning.
    public static func parse(_ data: Data, file: String) throws -> SessionLog {
        try data.withUnsafeBytes { raw -> SessionLog in
            let p = raw.bindMemory(to: UInt8.self)
            return try parse(bytes: p, file: file)
        }
    }

    static func parse(bytes p: UnsafeBufferPointer<UInt8>, file: String) throws -> SessionLog {
        var warnings: [RecallWarning] = []
        var events: [SessionEvent] = []
        // One event a line: sized once (a short estimate copied every event at the end).
        events.reserveCapacity(JSONLinesFile.lineCount(p))
        var header: LineFields?
        var headerLine = 0
        var lineNo = 0
        var start = 0
        start = JSONLinesFile.bodyStart(p)   // after a UTF-8 BOM
        var lastT = 0
        var lastLine = 0
        var page: PageKind? = nil
        var bytesEnd = p.count
        if bytesEnd > 0, p[bytesEnd - 1] != 0x0A { bytesEnd = p.count }
        while start < bytesEnd {
            lineNo += 1
            let stop = JSONLinesFile.lineEnd(p, from: start)
            let hasNewline = stop < bytesEnd
            let lineStart = start
            start = stop + 1
            var e = stop
            if e > lineStart, p[e - 1] == 0x0D { e -= 1 }
            // Blank lines are allowed (and ignored).
            if JSONLinesFile.isBlank(p, from: lineStart, to: e) { continue }
            if let bad = UTF8Check.firstInvalid(p, from: lineStart, to: e) {
                if !hasNewline && header != nil {
                    warnings.append(RecallWarning(file: file, line: lineNo,
                        "the last line is cut off (it ends inside a character); it was ignored — "
                            + "the app was probably closed while writing"))
                    break
                }
                throw RecallError(file: file, line: lineNo,
                                  UTF8Check.notUTF8(byte: p[lineStart + bad], column: bad + 1))
            }
            var scanner = JSONLineScanner(p, from: lineStart, to: e)
            var f = LineFields()
            do throws(JSONScanProblem) {
                try scanner.scan(into: &f)
            } catch {
                if !hasNewline && header != nil {
                    warnings.append(RecallWarning(file: file, line: lineNo,
                        "the last line is cut off (\(error.message)); it was ignored — "
                            + "the app was probably closed while writing"))
                    break
                }
                throw RecallError(scanner.s.located(error, file: file, firstLine: lineNo))
            }
            guard let type = f.type else {
                throw RecallError(file: file, line: lineNo, "the line has no \"type\"")
            }
            let lineType = type.named(in: LineType.words)
            if header == nil {
                guard lineType == .session else {
                    throw RecallError(file: file, line: lineNo,
                                      "the first line must be the session header ({\"type\":\"session\",…}), found "
                                      + "type \"\(type.string)\"")
                }
                if let fmt = f.format, fmt != format {
                    throw RecallError(file: file, line: lineNo,
                                      "unsupported log format \"\(fmt)\" (this version reads \"\(format)\")")
                }
                guard let participant = f.participant else {
                    throw RecallError(file: file, line: lineNo, "the session header has no \"participant\"")
                }
                try checkParticipant(participant, file: file, line: lineNo)
                if let s = f.strings, s.count != StringSet.count {
                    throw RecallError(file: file, line: lineNo,
                                      "the session header lists \(s.count) strings; it must list \(StringSet.count)")
                }
                header = f
                headerLine = lineNo
                continue
            }
            if lineType == .session {
                throw RecallError(file: file, line: lineNo, "a second session header (one log holds one session)")
            }
            guard let t = f.t else {
                throw RecallError(file: file, line: lineNo, "the event has no time \"t\" (milliseconds since Begin)")
            }
            if t < 0 {
                throw RecallError(file: file, line: lineNo,
                                  "event time \(t) is negative (times are milliseconds since Begin)")
            }
            if t < lastT {
                throw RecallError(file: file, line: lineNo,
                                  "event time \(t) goes backwards (previous \(lastT) on line \(lastLine))")
            }
            lastT = t
            lastLine = lineNo
            let kind: EventKind
            switch lineType {
            case .page?:
                let pk = try named(f.page, in: PageKind.words, event: "page", file: file, line: lineNo)
                var s: Int? = nil
                if pk.hasString {
                    guard let n = f.string else {
                        throw RecallError(file: file, line: lineNo,
                                          "a \(pk.rawValue) page event needs \"string\" (1–10)")
                    }
                    guard (1...StringSet.count).contains(n) else {
                        throw RecallError(file: file, line: lineNo, "string number \(n) is outside 1–10")
                    }
                    s = n
                }
                page = pk
                kind = .page(pk, string: s)
            case .focus?:
                guard let field = f.field else {
                    throw RecallError(file: file, line: lineNo, "a focus event needs \"field\"")
                }
                try checkField(field, page: page, file: file, line: lineNo)
                kind = .focus(field: field)
            case .key?:
                guard let label = f.key else {
                    throw RecallError(file: file, line: lineNo,
                                      "a key event needs \"key\" (the key as shown on the keyboard)")
                }
                var action = KeyAction.tap
                if let a = f.action {
                    guard let ka = a.named(in: KeyAction.words) else {
                        throw RecallError(file: file, line: lineNo,
                                          "unknown key action \"\(a.string)\" (expected down, up or tap)")
                    }
                    action = ka
                }
                let text = f.text
                if text == nil && action != .up {
                    throw RecallError(file: file, line: lineNo,
                                      "a key \(action.rawValue) event needs \"text\" (the field's text after the key)")
                }
                if let field = f.field { try checkField(field, page: page, file: file, line: lineNo) }
                kind = .key(label: label, action: action, text: text, field: f.field)
            case .touch?:
                guard let x = f.x, let y = f.y else {
                    throw RecallError(file: file, line: lineNo, "a touch event needs \"x\" and \"y\"")
                }
                kind = .touch(x: x, y: y, target: f.target)
            case .button?:
                let b = try named(f.button, in: ButtonKind.words, event: "button", file: file, line: lineNo)
                var ok: Bool? = nil
                if b == .verify, let r = f.result {
                    if r.isWord("ok") {
                        ok = true
                    } else if r.isWord("not-ok") {
                        ok = false
                    } else {
                        throw RecallError(file: file, line: lineNo,
                                          "unknown Verify result \"\(r.string)\" (expected ok or not-ok)")
                    }
                }
                kind = .button(b, verifyOK: ok)
            case .fields?:
                guard let values = f.values else {
                    throw RecallError(file: file, line: lineNo, "a fields event needs \"values\"")
                }
                if let page, values.count != page.fieldCount {
                    throw RecallError(file: file, line: lineNo,
                                      "the \(page.title) page has \(page.fieldCount) field(s) but the fields event "
                                      + "lists \(values.count)")
                }
                kind = .fields(values)
            case .close?:
                kind = .close
            case .session?, nil:
                throw RecallError(file: file, line: lineNo,
                                  "unknown event type \"\(type.string)\" (expected page, focus, key, touch, button, "
                                  + "fields or close)")
            }
            events.append(SessionEvent(t: t, line: lineNo, kind: kind))
        }
        guard let h = header, let participant = h.participant else {
            throw RecallError(file: file, line: 1, "the log is empty (no session header)")
        }
        let declared = (h.strings ?? []).enumerated().map {
            DeclaredString(number: $0.offset + 1, text: $0.element, line: headerLine)
        }
        var log = SessionLog(participant: participant, declaredStrings: declared, events: events,
                             source: .native, file: file, warnings: warnings, device: h.device)
        if let name = h.set {
            if name.isEmpty {
                throw RecallError(file: file, line: headerLine,
                                  "the session header's \"set\" is empty (name a string set or leave the key out)")
            }
            log.stringSet = name
            log.stringSetLine = headerLine
        }
        return log
    }

    /// The `type` of a line.
    enum LineType: String, CaseIterable {
        case session, page, focus, key, touch, button, fields, close
        static let words = WordTable(allCases)
    }

    static func checkParticipant(_ p: String, file: String, line: Int?) throws {
        if p.isEmpty {
            throw RecallError(file: file, line: line, "the participant number is empty (it must be 1–12 characters)")
        }
        if isBlank(p) {
            throw RecallError(file: file, line: line,
                              "the participant number is only white space (it needs at least one other character)")
        }
        if p.count > SessionLog.maxParticipantLength {
            throw RecallError(file: file, line: line,
                              "participant number has \(p.count) characters; at most "
                              + "\(SessionLog.maxParticipantLength) are allowed")
        }
    }

    /// Whether `p` is made only of white space: characters with Unicode's White_Space
    /// property, or U+FEFF — what the test kit's `trim()` removes (docs/recall-events.md).
    static func isBlank(_ p: String) -> Bool {
        p.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0 == "\u{FEFF}" }
    }

    /// The page or button a `page` or `button` event names in its field of the same name;
    /// an error says that the field is missing, or which words it may be.
    static func named<E: CaseIterable>(_ word: LineWord?, in table: WordTable<E>, event: String,
                                       file: String, line: Int) throws -> E {
        guard let word else { throw RecallError(file: file, line: line, "a \(event) event needs \"\(event)\"") }
        guard let value = word.named(in: table) else {
            throw RecallError(file: file, line: line, "unknown \(event) \"\(word.string)\" (expected one of "
                              + "\(E.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return value
    }

    static func checkField(_ field: Int, page: PageKind?, file: String, line: Int) throws {
        let n = page?.fieldCount ?? 10
        guard n > 0 else { throw RecallError(file: file, line: line, "the \(page!.title) page has no fields") }
        guard (1...n).contains(field) else {
            throw RecallError(file: file, line: line,
                              "field \(field) is outside 1–\(n)\(page.map { " on the \($0.title) page" } ?? "")")
        }
    }
}

// The words a line's values are read as (``LineWord/named(in:)``).
extension PageKind { static let words = WordTable(allCases) }
extension ButtonKind { static let words = WordTable(allCases) }
extension KeyAction { static let words = WordTable([KeyAction.down, .up, .tap]) }
