import Escaping
import TextBasics
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let w = jsonWriter()
        return w.bytes
    }

    /// ``jsonBytes()`` as `Data`, copied once out of the writer (participant.json).
    public func jsonData() -> Data {
        let w = jsonWriter()
        return w.data
    }

    private func jsonWriter() -> JSONBytes {
        var w = JSONBytes(capacity: 8192 + 4096 * strings.count)
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
        return w
    }
}

/// A compact JSON writer for objects whose keys the caller emits in sorted order. Its
/// bytes go straight into one growing buffer (`malloc`): each key, number and string is
/// a check for room and stores, where an `[UInt8]` took a uniqueness and capacity check
/// per append and four appends per key (docs/perf-study.md, "Issue #45, raw.csv rows and
/// the participant's JSON written in place"). The twin is `JSONEncoder`
/// (`ParticipantJSONTests`).
struct JSONBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// Whether the next key or element needs a comma before it.
    private var needsComma = false

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        base = malloc(self.capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// The bytes written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written, as `Data` (one copy: ``bytes`` and then `Data` of it were two).
    var data: Data { Data(bytes: base, count: count) }

    /// Makes room for `n` more bytes.
    @inline(__always) private mutating func room(_ n: Int) {
        if capacity - count < n { grow(n) }
    }

    @inline(never) private mutating func grow(_ n: Int) {
        capacity = max(capacity * 2, count + n)
        base = realloc(base, capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    /// One byte, room for it made by the caller.
    @inline(__always) private mutating func put(_ b: UInt8) {
        base[count] = b
        count += 1
    }

    /// Bytes, room for them made by the caller.
    @inline(__always) private mutating func put(_ b: UnsafeBufferPointer<UInt8>) {
        if let from = b.baseAddress { (base + count).update(from: from, count: b.count) }
        count += b.count
    }

    @inline(__always) private mutating func comma() { if needsComma { put(0x2C) } }

    // The writers of keys and small values are inlined where they are called (each key a
    // constant length, copied without a call): `key` alone was ≈ 77 instructions a key
    // as a call (docs/perf-study.md, "Issue #45, the participant analysis and its JSON").
    @inline(__always) mutating func open() { room(2); comma(); put(0x7B); needsComma = false }
    @inline(__always) mutating func close() { room(1); put(0x7D); needsComma = true }

    /// `,"key":` (the comma when one is due), written at once after one check for room.
    @inline(__always) mutating func key(_ k: StaticString) {
        let n = k.utf8CodeUnitCount
        room(n + 4)
        comma()
        put(0x22)
        k.withUTF8Buffer { put($0) }
        put(0x22); put(0x3A)
        needsComma = false
    }

    mutating func array<T>(_ items: [T], _ element: (inout JSONBytes, T) -> Void) {
        room(2)
        comma()
        put(0x5B)
        needsComma = false
        // Each element lent where it lies (`for x in items` copied it: a `StringResult` or
        // `TypedEntry` copy retains every array and text inside it).
        items.withUnsafeBufferPointer { b in
            for i in b.indices { element(&self, b[i]) }
        }
        room(1)
        put(0x5D)
        needsComma = true
    }

    mutating func optional(_ k: StaticString, _ v: Int?) { if let v { key(k); int(v) } }
    mutating func optional(_ k: StaticString, _ v: Double?) { if let v { key(k); double(v) } }
    mutating func optional(_ k: StaticString, _ v: Bool?) { if let v { key(k); bool(v) } }

    @inline(__always) mutating func int(_ v: Int) {
        room(22)
        comma()
        digits(v)
        needsComma = true
    }

    /// `-` when negative, then the digits (room for 21 bytes made by the caller).
    @inline(__always) private mutating func digits(_ v: Int) {
        count += ByteWriting.writeDecimal(v, to: base + count)
    }

    @inline(__always) mutating func bool(_ v: Bool) {
        room(6)
        comma()
        if v {
            put(0x74); put(0x72); put(0x75); put(0x65)
        } else {
            put(0x66); put(0x61); put(0x6C); put(0x73); put(0x65)
        }
        needsComma = true
    }

    mutating func double(_ v: Double) {
        room(1)
        comma()
        plainDouble(v)
        needsComma = true
    }

    /// `v.description` without a trailing `.0`. A nonzero whole number or half below
    /// 10⁹ in magnitude (the medians of whole milliseconds: nearly every double of the
    /// file) is its integer digits and `.5` for a half, which is what `description`
    /// prints for it; its shortest round-trip text and the string edit were 0.6 % of a
    /// study build (`ParticipantJSONTests`). Anything else goes through `description`.
    private mutating func plainDouble(_ v: Double) {
        let twice = v * 2
        if v != 0, abs(v) < 1e9, twice == twice.rounded() {
            let halves = Int(twice)
            room(24)
            if halves < 0 { put(0x2D) }
            digits(Int(halves.magnitude / 2))
            if halves % 2 != 0 { put(0x2E); put(0x35) }   // ".5"
            return
        }
        var s = v.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        s.withUTF8 { room($0.count); put($0) }
    }

    /// ``plainDouble(_:)``'s bytes appended to `bytes` (for the tests).
    static func appendDouble(_ v: Double, to bytes: inout [UInt8]) {
        var w = JSONBytes()
        w.plainDouble(v)
        bytes += w.bytes
    }

    mutating func string(_ s: String) {
        room(1)
        comma()
        put(0x22)
        // Nearly every string needs no escape: its bytes are copied at once.
        var s = s
        let plain = s.withUTF8 { u -> Bool in
            if u.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) { return false }
            room(u.count + 1)
            put(u)
            return true
        }
        if !plain {
            let hex: StaticString = "0123456789abcdef"
            for b in s.utf8 {
                room(6)
                switch b {
                case 0x22: put(0x5C); put(0x22)
                case 0x5C: put(0x5C); put(0x5C)
                case 0x08: put(0x5C); put(0x62)
                case 0x0C: put(0x5C); put(0x66)
                case 0x0A: put(0x5C); put(0x6E)
                case 0x0D: put(0x5C); put(0x72)
                case 0x09: put(0x5C); put(0x74)
                case 0..<0x20:
                    put(0x5C); put(0x75); put(0x30); put(0x30)
                    put(hex.utf8Start[Int(b >> 4)]); put(hex.utf8Start[Int(b & 15)])
                default: put(b)
                }
            }
        }
        room(1)
        put(0x22)
        needsComma = true
    }

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
