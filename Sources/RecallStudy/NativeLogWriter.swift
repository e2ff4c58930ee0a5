#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping

// MARK: - Writing the native JSON Lines log (what a capture app writes)

public enum NativeLogWriter {
    /// The header line (no newline).
    public static func header(participant: String, strings: [String]?, device: String?) -> String {
        var s = "{\"type\":\"session\",\"format\":\"\(NativeLog.format)\",\"participant\":\(quote(participant))"
        if let device { s += ",\"device\":\(quote(device))" }
        if let strings { s += ",\"strings\":[" + strings.map(quote).joined(separator: ",") + "]" }
        return s + "}"
    }

    /// One event as a line (no newline). Keys are written in a fixed order.
    public static func line(_ e: SessionEvent) -> String {
        var s = "{\"t\":\(e.t),"
        switch e.kind {
        case .page(let p, let n):
            s += "\"type\":\"page\",\"page\":\"\(p.rawValue)\""
            if let n { s += ",\"string\":\(n)" }
        case .focus(let f):
            s += "\"type\":\"focus\",\"field\":\(f)"
        case .key(let label, let action, let text, let field):
            s += "\"type\":\"key\",\"key\":\(quote(label))"
            if action != .tap { s += ",\"action\":\"\(action.rawValue)\"" }   // tap is the default
            if let text { s += ",\"text\":\(quote(text))" }
            if let field { s += ",\"field\":\(field)" }
        case .touch(let x, let y, let target):
            s += "\"type\":\"touch\",\"x\":\(RawData.fmtCoord(x)),\"y\":\(RawData.fmtCoord(y))"
            if let target { s += ",\"target\":\(quote(target))" }
        case .button(let b, let ok):
            s += "\"type\":\"button\",\"button\":\"\(b.rawValue)\""
            if let ok { s += ",\"result\":\"\(ok ? "ok" : "not-ok")\"" }
        case .fields(let values):
            s += "\"type\":\"fields\",\"values\":[" + values.map(quote).joined(separator: ",") + "]"
        case .close:
            s += "\"type\":\"close\""
        }
        return s + "}"
    }

    /// A whole log: header then one line per event, each ended by LF.
    public static func log(participant: String, strings: [String]?, device: String?, events: [SessionEvent]) -> String {
        var out = header(participant: participant, strings: strings, device: device) + "\n"
        for e in events { out += line(e) + "\n" }
        return out
    }

    /// A JSON string literal.
    public static func quote(_ s: String) -> String { JSONText.quote(s) }
}
