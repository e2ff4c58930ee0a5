// MARK: - Why a telemetry line is not a JSON object

/// Names what is wrong with a line Foundation's parser refused (or read as something other
/// than an object), so the message is not a bare "not a JSON object"
/// (docs/game-telemetry.md, "JSON Lines format"). Positions count Unicode characters from 1.
enum JSONProblem {
    /// The first problem of `line`, in reading order.
    static func describe(_ line: String) -> String {
        let s = Array(line.unicodeScalars)
        var i = 0
        var inString = false
        var depth = 0
        var sawValue = false
        func ws(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        while i < s.count {
            let c = s[i]
            if c.value < 0x20 && !(!inString && ws(c)) {
                return "character \(i + 1) is a raw control character U+\(hex4(c.value))"
                    + (inString ? " inside a string (JSON needs it escaped, e.g. \\u\(hex4(c.value)))" : " (not allowed in JSON)")
            }
            if inString {
                if c == "\\" { i += 2; continue }
                if c == "\"" { inString = false }
                i += 1
                continue
            }
            if depth == 0 && sawValue && !ws(c) { return "text after the end of the JSON value, at character \(i + 1)" }
            switch c {
            case "\"": inString = true
            case "{", "[":
                if depth == 0 && c == "[" { return "not a JSON object: the line is an array (each line must be one {…} record)" }
                depth += 1
            case "}", "]":
                depth -= 1
                if depth == 0 { sawValue = true }
            case "-", "0"..."9":
                var j = i
                while j < s.count, "+-.eE0123456789".unicodeScalars.contains(s[j]) { j += 1 }
                let token = String(String.UnicodeScalarView(s[i..<j]))
                if depth == 0 { return "not a JSON object: the line is a number" }
                if let problem = numberProblem(token) { return "the number at character \(i + 1) \(problem)" }
                i = j
                continue
            default:
                if depth == 0 && !ws(c) {
                    return c == "t" || c == "f" || c == "n" ? "not a JSON object: the line is a bare word" : "not JSON: character \(i + 1) cannot start a value"
                }
            }
            i += 1
        }
        if inString { return "a string is not closed before the end of the line" }
        if depth > 0 { return "the line ends inside an object or array (a '}' or ']' is missing)" }
        if !sawValue { return "not a JSON object" }
        return "not valid JSON (a syntax error inside the object: check commas, colons and quotes)"
    }

    /// Why a number token cannot be read: more than 20 digits before any fraction, or not
    /// a finite double (`1e400`); nil when it is a number a double holds.
    static func numberProblem(_ token: String) -> String? {
        let mantissa = token.prefix { $0 != "e" && $0 != "E" }
        let whole = mantissa.prefix { $0 != "." }.filter(\.isNumber)
        if whole.count > 20 { return "has \(whole.count) digits: too large (integers are at most 2⁵³ − 1)" }
        guard let d = Double(token) else { return "is not a valid JSON number ('\(token.prefix(24))')" }
        if !d.isFinite { return "is too large for a double ('\(token.prefix(24))')" }
        return nil
    }

    static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
}
