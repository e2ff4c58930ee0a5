#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import XMLScan
import TextBasics

/// One resource listed by PROPFIND.
public struct DAVResource: Sendable, Equatable {
    /// Path relative to the client's base URL, decoded, without a trailing slash
    /// (`""` is the base collection itself).
    public var path: String
    /// The decoded `href` exactly as the server sent it (absolute path).
    public var href: String
    public var isCollection: Bool
    /// The entity tag without quotes or a weak `W/` prefix, if the server gave one.
    public var etag: String?
    public var lastModified: Date?
    public var contentLength: Int64?
}

/// Parses a `207 Multi-Status` body of a PROPFIND answer (RFC 4918 §14.16).
///
/// Only properties inside a `propstat` whose `status` is 2xx count (servers list the
/// properties they do not have under `404`). Element names are matched in the `DAV:`
/// namespace whatever prefix the server uses.
public enum MultistatusParser {
    public static func parse(_ data: Data) throws -> [(href: String, resource: DAVResourceProperties)] {
        var state = State()
        do {
            var scanner = try XMLScanner(data)
            while let event = try scanner.next() {
                switch event {
                case .start(let name, _): state.start(name)
                case .text(let t), .cdata(let t): state.text += t
                case .end: state.end()
                }
            }
        } catch {
            throw WebDAVError.badResponse(url: "", detail: "PROPFIND answer is not valid XML: \(error)")
        }
        if state.sawMultistatus == false {
            throw WebDAVError.badResponse(url: "", detail: "PROPFIND answer has no DAV:multistatus element")
        }
        return state.responses
    }

    /// The properties of one `response`.
    public struct DAVResourceProperties: Sendable, Equatable {
        public var isCollection = false
        public var etag: String?
        public var lastModified: Date?
        public var contentLength: Int64?
    }

    /// The walk over the scanner's events.
    private struct State {
        var responses: [(href: String, resource: DAVResourceProperties)] = []
        var sawMultistatus = false
        // state of the current response
        var href: String?
        var props = DAVResourceProperties()
        var pending = DAVResourceProperties()   // properties of the current propstat
        var propstatStatus: Int?
        /// Open elements: the local name for `DAV:` names, `{namespace}local` for others.
        var stack: [String] = []
        var text = ""

        mutating func start(_ name: XMLName) {
            let local = name.namespace == "DAV:" ? name.local : "{\(name.namespace)}\(name.local)"
            stack.append(local)
            text = ""
            switch local {
            case "multistatus": sawMultistatus = true
            case "response": href = nil; props = DAVResourceProperties()
            case "propstat": pending = DAVResourceProperties(); propstatStatus = nil
            case "collection": if stack.dropLast().last == "resourcetype" { pending.isCollection = true }
            default: break
            }
        }

        mutating func end() {
            guard let local = stack.popLast() else { return }
            let value = text.trimmingWhitespaceAndNewlines()
            let inPropstat = stack.contains("propstat")
            switch local {
            case "href" where stack.last == "response":
                href = value
            case "status" where stack.last == "propstat":
                propstatStatus = MultistatusParser.statusCode(value)
            case "getetag" where inPropstat:
                pending.etag = value.isEmpty ? nil : ETag.normalize(value)
            case "getlastmodified" where inPropstat:
                pending.lastModified = HTTPDate.parse(value)
            case "getcontentlength" where inPropstat:
                pending.contentLength = Int64(value)
            case "propstat":
                if let s = propstatStatus, (200..<300).contains(s) {
                    if pending.isCollection { props.isCollection = true }
                    if let e = pending.etag { props.etag = e }
                    if let d = pending.lastModified { props.lastModified = d }
                    if let l = pending.contentLength { props.contentLength = l }
                }
            case "response":
                if let href { responses.append((href, props)) }
            default: break
            }
            text = ""
        }
    }

    /// `HTTP/1.1 200 OK` → 200.
    static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        return Int(parts[1])
    }
}

/// Entity-tag helpers.
public enum ETag {
    /// `W/"abc"` → `abc`; `"abc"` → `abc`; `abc` → `abc`.
    public static func normalize(_ raw: String) -> String {
        var s = raw.trimmingWhitespace()
        if s.hasPrefix("W/") { s.removeFirst(2) }
        if s.count >= 2, s.hasPrefix("\""), s.hasSuffix("\"") { s = String(s.dropFirst().dropLast()) }
        return s
    }

    /// The quoted form sent in `If-Match`.
    static func quoted(_ tag: String) -> String { "\"\(tag)\"" }
}

/// RFC 7231 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), also RFC 850 and asctime forms.
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or nil when `text` is none of the three forms (zone `GMT` or `UTC`).
    public static func parse(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() }
        var day: Int?, month: Int?, year: Int?, clock: [Int]?
        switch words.count {
        case 6 where words[5] == "gmt" || words[5] == "utc":   // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, clock) = (Int(words[1]), months.firstIndex(of: words[2]), Int(words[3]), hms(words[4]))
            if words[3].count != 4 { year = nil }
        case 4 where words[3] == "gmt" || words[3] == "utc":   // Sunday, 06-Nov-94 08:49:37 GMT
            let dmy = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard dmy.count == 3, dmy[2].count == 2, let yy = Int(dmy[2]) else { return nil }
            (day, month, year, clock) = (Int(dmy[0]), months.firstIndex(of: String(dmy[1])), fullYear(yy),
                                         hms(words[2]))
        case 5:                                                  // Sun Nov  6 08:49:37 1994
            (day, month, year, clock) = (Int(words[2]), months.firstIndex(of: words[1]), Int(words[4]), hms(words[3]))
        default: return nil
        }
        guard let day, let month, let year, let clock, (1...31).contains(day) else { return nil }
        let days = ISODateText.days(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }

    /// A two-digit year in the century that puts it less than 80 years before and at most
    /// 20 years after this year (the window date parsers use).
    static func fullYear(_ yy: Int) -> Int {
        let now = 1970 + Int(Date().timeIntervalSince1970 / 31_556_952)
        var y = now / 100 * 100 + yy
        if y > now + 20 { y -= 100 } else if y <= now - 80 { y += 100 }
        return y
    }

    static func hms(_ s: String) -> [Int]? {
        let p = s.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard p.count == 3, let h = p[0], let m = p[1], let sec = p[2], (0..<24).contains(h), (0..<60).contains(m),
              (0...60).contains(sec) else { return nil }
        return [h, m, sec]
    }
}
