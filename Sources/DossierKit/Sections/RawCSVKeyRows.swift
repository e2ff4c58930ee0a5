import RecallStudy
import Render

// raw.csv's key rows with their constant parts copied as one piece each (docs/perf-study.md,
// "Issue #45, raw.csv, the analysis and the tables with less work per row"). A key row is
// nearly every row of raw.csv (3,128 of a simulated participant's 3,458 events). Its
// columns B–D (the participant, the page's string, the page word and field) are the same
// for every key of one field of one page: the first key row of that field writes them with
// their own field writers and remembers where they are in the buffer; the next ones copy
// those bytes. Its columns H–K (correct, touch, fields, event: `,True,,,down`) and the
// CR LF are one static piece per answer and action. The plain twin is `rawFields` (the
// generic row, still used for every other kind of row): `RawCSVKeyRowsTwinTests`.

enum RawCSVKeyRows {
    /// Where a key row's columns B–D, with their commas, were written in the buffer.
    struct Prefix: Equatable {
        var at: Int
        var count: Int
    }

    /// Columns H–K of a key row and its CR LF: the answer (`True`, `False` or empty), no
    /// touch, no field list, the action's word.
    static func end(_ correct: Bool?, _ action: KeyAction) -> StaticString {
        switch (correct, action) {
        case (nil, .down): return ",,,,down\r\n"
        case (nil, .up): return ",,,,up\r\n"
        case (nil, .tap): return ",,,,tap\r\n"
        case (true?, .down): return ",True,,,down\r\n"
        case (true?, .up): return ",True,,,up\r\n"
        case (true?, .tap): return ",True,,,tap\r\n"
        case (false?, .down): return ",False,,,down\r\n"
        case (false?, .up): return ",False,,,up\r\n"
        case (false?, .tap): return ",False,,,tap\r\n"
        }
    }

    /// One key row: `rawFields(t, string, page, field, key, entered, target, correct, nil,
    /// nil, .key(action), words, encoded)`'s bytes. With `prefix` nil, columns B–D are
    /// written by their field writers and `prefix` set to where they are; else they are
    /// the bytes at `prefix` (written for the same `string`, `page`, `field` and
    /// participant into this buffer), copied.
    @inline(__always) static func write(
        _ w: inout RawCSVBuffer, t: Int, prefix: inout Prefix?, string: Int?, page: PageKind?, field: Int?,
        key: String, entered: String, target: Int?, correct: Bool?, action: KeyAction,
        words: RawCSVWords, encoded: UnsafeBufferPointer<UInt8>
    ) {
        w.numberField(t)
        if let p = prefix {
            w.fieldsAgain(at: p.at, count: p.count)
        } else {
            let at = w.count
            w.encodedField(words.participant(encoded))
            if let string { w.numberField(string) } else { w.emptyField() }
            if let page {
                w.plainField(page.titleWord)
                if let field { w.appendToField(0x20); w.appendDigits(field) }
            } else {
                w.emptyField()
            }
            prefix = Prefix(at: at, count: w.count - at)
        }
        w.textField(key)
        w.textField(entered)
        if let g = words.target(target, encoded) { w.encodedField(g) } else { w.emptyField() }
        w.endRecord(with: end(correct, action))
    }
}

extension RawCSVDirect.Walk {
    /// A key row, through ``RawCSVKeyRows``; its columns B–D written anew after a page
    /// event (``keyPrefix`` cleared) or when the row's field differs from the last key
    /// row's.
    mutating func keyRow(
        _ w: inout RawCSVBuffer, _ t: Int, field: Int?, key: String, entered: String, target: Int?, correct: Bool?,
        action: KeyAction
    ) {
        if keyPrefixField != field { keyPrefix = nil; keyPrefixField = field }
        RawCSVKeyRows.write(&w, t: t, prefix: &keyPrefix, string: string, page: page, field: field, key: key,
                            entered: entered, target: target, correct: correct, action: action, words: words,
                            encoded: encoded)
    }
}
