#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The session event model (docs/recall-events.md)

/// A page of the test app (seed section 3).
public enum PageKind: String, Sendable, Codable, CaseIterable {
    case welcome, ready, memorize, verify, entry, recall, thankyou

    /// Pages that belong to one of the ten strings.
    public var hasString: Bool { self == .memorize || self == .verify || self == .entry }
    /// How many text fields the page has.
    public var fieldCount: Int {
        switch self {
        case .memorize, .verify, .welcome: return 1
        case .entry, .recall: return 10
        case .ready, .thankyou: return 0
        }
    }
    /// The name used in reports and in column D of raw.csv.
    public var title: String { titleWord.description }
    /// ``title`` as a static string (raw.csv writes it without making a string).
    public var titleWord: StaticString {
        switch self {
        case .welcome: return "Welcome"
        case .ready: return "Ready"
        case .memorize: return "Memorize"
        case .verify: return "Verify"
        case .entry: return "Entry"
        case .recall: return "Recall"
        case .thankyou: return "Thank You"
        }
    }
}

/// What a key event says about the key: pressed, released, or one event for both
/// (touch keyboards that report only the change in the field).
public enum KeyAction: String, Sendable, Codable { case down, up, tap }

/// A button of the app.
public enum ButtonKind: String, Sendable, Codable, CaseIterable {
    case begin, next, verify, memorize, startTest = "start-test", done
}

/// One thing that happened, `t` milliseconds after Begin.
public enum EventKind: Sendable, Hashable {
    /// A page was displayed (`string` 1–10 for Memorize, Verify and Entry).
    case page(PageKind, string: Int?)
    /// A text field got the cursor (1–10; 1 on pages with one field).
    case focus(field: Int)
    /// A key: its label as shown on the keyboard, the action and the field's text after
    /// it (`nil` on an `up` that left the text unchanged).
    case key(label: String, action: KeyAction, text: String?, field: Int?)
    /// A touch on the screen outside the keyboard.
    case touch(x: Double, y: Double, target: String?)
    /// A button; `verifyOK` is the app's Verify result (OK / Not OK) for `verify`.
    case button(ButtonKind, verifyOK: Bool?)
    /// The fields' contents when the page is left (one value per field).
    case fields([String])
    /// The app was closed (the session is abandoned).
    case close
}

/// One event with its time and where it came from.
public struct SessionEvent: Sendable, Hashable {
    /// Milliseconds since Begin.
    public var t: Int
    /// 1-based line of the source file (for messages).
    public var line: Int
    public var kind: EventKind
}

/// Where a session log came from.
public enum SessionSource: String, Sendable, Codable {
    /// Dossier's JSON Lines event log (the mobile app's format).
    case native
    /// The desktop test's Raw Data CSV (seed Appendix A).
    case desktop
}

/// One participant's session, as read from a file.
public struct SessionLog: Sendable {
    /// The participant number typed on the Welcome page (1–12 characters).
    public var participant: String
    /// The strings the log says the app showed (native header, desktop target column),
    /// checked against the study's strings file.
    public var declaredStrings: [DeclaredString]
    public var events: [SessionEvent]
    public var source: SessionSource
    /// The file, as shown in messages.
    public var file: String
    /// Problems that leave the data usable.
    public var warnings: [RecallWarning]
    /// Free-form device description from the header (e.g. "iPhone 4S, iOS 5.1").
    public var device: String?
    /// The string set the native header names (`set`), and that header's line; nil when
    /// the log names none (it then uses the project's default set, docs/recall-events.md).
    public var stringSet: String?
    public var stringSetLine: Int?

    public init(participant: String, declaredStrings: [DeclaredString], events: [SessionEvent],
                source: SessionSource, file: String, warnings: [RecallWarning] = [], device: String? = nil) {
        self.participant = participant
        self.declaredStrings = declaredStrings
        self.events = events
        self.source = source
        self.file = file
        self.warnings = warnings
        self.device = device
    }

    public static let maxParticipantLength = 12
}

/// A target string as a log states it, with the line that states it.
public struct DeclaredString: Sendable, Hashable {
    public var number: Int
    public var text: String
    public var line: Int
}
