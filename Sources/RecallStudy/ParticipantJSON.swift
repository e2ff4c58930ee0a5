import Escaping

// MARK: - participant.json written directly (docs/recall-section.md, "participant.json")

/// The bytes of `participant.json`: exactly what Foundation's `JSONEncoder` writes for
/// ``ParticipantResult`` with `[.sortedKeys, .withoutEscapingSlashes]` (compact, keys in
/// ascending order, `nil` optionals left out), written without the encoder's boxing:
/// the encoder was 13 % of a study build. `ParticipantJSONTests` compares the two on
/// simulated and hostile participants.
///
/// Values: integers in decimal; doubles as Swift's shortest round-trip `description`
/// with a trailing `.0` removed (`2.0` → `2`, `1e-05` stays); booleans `true`/`false`;
/// strings in double quotes with `"` and `\` escaped, `\b \f \n \r \t` for those
/// controls, `\u00XX` (lower-case hex) for the other controls below 0x20, everything
/// else (`/` and non-ASCII included) as UTF-8.
extension ParticipantResult {
    public func jsonBytes() -> [UInt8] {
        var w = JSONBytes()
        w.reserve(8192 + 4096 * strings.count)
        w.open()
        w.key("complete"); w.bool(complete)
        if let device { w.key("device"); w.string(device) }
        w.key("lastEventMs"); w.int(lastEventMs)
        w.optional("medianDownDown", medianDownDown); w.optional("medianHold", medianHold)
        w.optional("medianUpDown", medianUpDown); w.optional("medianUpUp", medianUpUp)
        w.key("pageTurns"); w.array(pageTurns) { w, t in
            w.open()
            w.key("fields"); w.array(t.fields) { $0.string($1) }
            w.key("page"); w.string(t.page.rawValue)
            w.optional("string", t.string)
            w.key("t"); w.int(t.t)
            w.close()
        }
        w.key("participant"); w.string(participant)
        if let recall { w.key("recall"); w.recall(recall) }
        w.optional("sessionEnd", sessionEnd); w.optional("sessionStart", sessionStart)
        w.optional("sessionTotalMs", sessionTotalMs)
        w.key("source"); w.string(source.rawValue)
        w.key("strings"); w.array(strings) { $0.stringResult($1) }
        w.key("warnings"); w.array(warnings) { w, x in
            w.open()
            w.key("file"); w.string(x.file)
            w.optional("line", x.line)
            w.key("message"); w.string(x.message)
            w.close()
        }
        w.close()
        return w.bytes
    }
}

/// A compact JSON writer for objects whose keys the caller emits in sorted order.
struct JSONBytes {
    var bytes: [UInt8] = []
    /// Whether the next key or element needs a comma before it.
    private var needsComma = false

    mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }

    mutating func open() { comma(); bytes.append(0x7B); needsComma = false }
    mutating func close() { bytes.append(0x7D); needsComma = true }

    mutating func key(_ k: StaticString) {
        comma()
        bytes.append(0x22)
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(0x22); bytes.append(0x3A)
        needsComma = false
    }

    mutating func array<T>(_ items: [T], _ element: (inout JSONBytes, T) -> Void) {
        comma()
        bytes.append(0x5B)
        needsComma = false
        for x in items { element(&self, x) }
        bytes.append(0x5D)
        needsComma = true
    }

    mutating func optional(_ k: StaticString, _ v: Int?) { if let v { key(k); int(v) } }
    mutating func optional(_ k: StaticString, _ v: Double?) { if let v { key(k); double(v) } }
    mutating func optional(_ k: StaticString, _ v: Bool?) { if let v { key(k); bool(v) } }

    /// Digits written straight into the bytes (`String(v)` made a string per number).
    mutating func int(_ v: Int) {
        comma()
        DecimalDigits.append(v, to: &bytes)
        needsComma = true
    }

    mutating func bool(_ v: Bool) {
        comma()
        bytes.append(contentsOf: v ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
        needsComma = true
    }

    mutating func double(_ v: Double) {
        comma()
        JSONBytes.appendDouble(v, to: &bytes)
        needsComma = true
    }

    /// `v.description` without a trailing `.0`. A nonzero whole number or half below
    /// 10⁹ in magnitude (the medians of whole milliseconds: nearly every double of the
    /// file) is its integer digits and `.5` for a half, which is what `description`
    /// prints for it; its shortest round-trip text and the string edit were 0.6 % of a
    /// study build (`ParticipantJSONTests`). Anything else goes through `description`.
    static func appendDouble(_ v: Double, to bytes: inout [UInt8]) {
        let twice = v * 2
        if v != 0, abs(v) < 1e9, twice == twice.rounded() {
            let halves = Int(twice)
            if halves < 0 { bytes.append(0x2D) }
            DecimalDigits.append(Int(halves.magnitude / 2), to: &bytes)
            if halves % 2 != 0 { bytes.append(0x2E); bytes.append(0x35) }   // ".5"
            return
        }
        var s = v.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        bytes.append(contentsOf: s.utf8)
    }

    mutating func string(_ s: String) {
        comma()
        bytes.append(0x22)
        // Nearly every string needs no escape: its bytes are copied at once.
        var s = s
        let plain = s.withUTF8 { u -> Bool in
            if u.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) { return false }
            bytes.append(contentsOf: u)
            return true
        }
        if plain {
            bytes.append(0x22)
            needsComma = true
            return
        }
        for b in s.utf8 {
            switch b {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x08: bytes.append(0x5C); bytes.append(0x62)
            case 0x0C: bytes.append(0x5C); bytes.append(0x66)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(0x22)
        needsComma = true
    }

    private mutating func comma() { if needsComma { bytes.append(0x2C) } }

    // MARK: The nested types of ParticipantResult, keys sorted

    mutating func recall(_ r: RecallResult) {
        open()
        key("end"); int(r.end)
        key("entries"); array(r.entries) { $0.entry($1) }
        key("fields"); array(r.fields) { w, f in
            w.open()
            w.key("correct"); w.bool(f.correct)
            w.key("field"); w.int(f.field)
            w.optional("matches", f.matches)
            w.key("text"); w.string(f.text)
            w.close()
        }
        optional("lastKey", r.lastKey)
        key("start"); int(r.start)
        key("stringsRecalled"); array(r.stringsRecalled) { $0.int($1) }
        optional("totalMs", r.totalMs)
        close()
    }

    mutating func stringResult(_ s: StringResult) {
        open()
        key("completed"); bool(s.completed)
        key("deletions"); int(s.deletions)
        key("entries"); array(s.entries) { $0.entry($1) }
        optional("entryDone", s.entryDone); optional("entryStart", s.entryStart);
        optional("entryTotalMs", s.entryTotalMs)
        key("finalCorrect"); int(s.finalCorrect)
        key("finalEntries"); array(s.finalEntries) { $0.string($1) }
        key("incorrectEntries"); int(s.incorrectEntries)
        key("length"); int(s.length)
        optional("meanEntrySeconds", s.meanEntrySeconds)
        optional("medianDownDown", s.medianDownDown); optional("medianHold", s.medianHold)
        optional("medianUpDown", s.medianUpDown); optional("medianUpUp", s.medianUpUp)
        optional("memorizeToLastEntryKeyMs", s.memorizeToLastEntryKeyMs)
        key("memorizeTotalMs"); int(s.memorizeTotalMs)
        key("memorizeViews"); array(s.memorizeViews) { $0.view($1) }
        key("number"); int(s.number)
        key("oneTapEntries"); int(s.oneTapEntries)
        key("practice"); array(s.practice) { $0.entry($1) }
        key("reached"); bool(s.reached)
        key("rekeys"); int(s.rekeys)
        key("target"); string(s.target)
        key("verifyAttempts"); array(s.verifyAttempts) { w, a in
            w.open()
            w.optional("appResult", a.appResult)
            w.key("correct"); w.bool(a.correct)
            w.key("t"); w.int(a.t)
            w.key("text"); w.string(a.text)
            w.close()
        }
        key("verifyFailures"); int(s.verifyFailures)
        key("verifyTotalMs"); int(s.verifyTotalMs)
        key("verifyViews"); array(s.verifyViews) { $0.view($1) }
        close()
    }

    mutating func view(_ v: PageView) {
        open()
        key("durationMs"); int(v.durationMs)
        key("end"); int(v.end)
        key("start"); int(v.start)
        key("textAtTurn"); string(v.textAtTurn)
        optional("toLastKeyMs", v.toLastKeyMs)
        key("view"); int(v.view)
        close()
    }

    mutating func entry(_ e: TypedEntry) {
        open()
        key("correct"); bool(e.correct)
        key("deletions"); int(e.deletions)
        key("durationMs"); int(e.durationMs)
        key("dynamics"); open()
        key("holdCount"); int(e.dynamics.hold.count)
        optional("medianDownDown", e.dynamics.medianDownDown); optional("medianHold", e.dynamics.medianHold)
        optional("medianUpDown", e.dynamics.medianUpDown); optional("medianUpUp", e.dynamics.medianUpUp)
        key("pairCount"); int(e.dynamics.downDown.count)
        close()
        key("end"); int(e.end)
        key("field"); int(e.field)
        key("keystrokes"); int(e.keystrokes)
        key("oneTap"); bool(e.oneTap)
        key("order"); int(e.order)
        key("page"); string(e.page.rawValue)
        key("rekey"); bool(e.rekey)
        key("start"); int(e.start)
        key("text"); string(e.text)
        close()
    }
}
