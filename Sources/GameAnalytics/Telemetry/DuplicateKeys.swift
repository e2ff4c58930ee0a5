import Foundation

// MARK: - Duplicate JSON keys

/// Finds the first object key that appears twice in the same JSON object of `text`
/// (Foundation's parser silently keeps one of them). Returns the key, or nil. Runs in one
/// pass over the UTF-8 bytes; it assumes the text is otherwise valid JSON (the parser
/// runs first) and only tracks strings, nesting and which strings are keys.
func firstDuplicateKey(in text: String) -> String? {
    let b = Array(text.utf8)
    // One frame per open container: nil for an array, the set of keys seen for an object.
    var stack: [Set<String>?] = []
    var expectKey = false
    var i = 0
    while i < b.count {
        let c = b[i]
        switch c {
        case UInt8(ascii: "{"): stack.append([]); expectKey = true
        case UInt8(ascii: "["): stack.append(nil); expectKey = false
        case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast(); expectKey = false
        case UInt8(ascii: ","): expectKey = stack.last.map { $0 != nil } ?? false
        case UInt8(ascii: ":"): expectKey = false
        case UInt8(ascii: "\""):
            var j = i + 1
            var raw: [UInt8] = []
            while j < b.count && b[j] != UInt8(ascii: "\"") {
                if b[j] == UInt8(ascii: "\\") && j + 1 < b.count { raw.append(b[j]); j += 1 }
                raw.append(b[j]); j += 1
            }
            if expectKey, var keys = stack.last ?? nil {
                // Decode escapes so "a" and "\u0061" count as the same key.
                let quoted = "\"" + String(decoding: raw, as: UTF8.self) + "\""
                let key = (try? JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed)) as? String
                    ?? String(decoding: raw, as: UTF8.self)
                if keys.contains(key) { return key }
                keys.insert(key)
                stack[stack.count - 1] = keys
            }
            i = j
        default: break
        }
        i += 1
    }
    return nil
}
