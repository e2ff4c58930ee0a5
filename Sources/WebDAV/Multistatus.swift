import Foundation
import XMLScan

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
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
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
        var s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("W/") { s.removeFirst(2) }
        if s.count >= 2, s.hasPrefix("\""), s.hasSuffix("\"") { s = String(s.dropFirst().dropLast()) }
        return s
    }

    /// The quoted form sent in `If-Match`.
    static func quoted(_ tag: String) -> String { "\"\(tag)\"" }
}

/// RFC 7231 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), also RFC 850 and asctime forms.
public enum HTTPDate {
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    public static func parse(_ text: String) -> Date? {
        for f in formats {
            let df = DateFormatter()
            df.locale = Locale(identifier: "en_US_POSIX")
            df.timeZone = TimeZone(identifier: "GMT")
            df.dateFormat = f
            if let d = df.date(from: text) { return d }
        }
        return nil
    }
}
