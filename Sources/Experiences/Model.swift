#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

// MARK: - Model

/// What a trigger does when pressed (seed F10): play a sound, play a video, go to
/// another panorama through a door, or show a short written note (imported info hot
/// spots; a caretaker reads it with the child).
public enum TriggerKind: String, Sendable, CaseIterable, Codable {
    case sound, video, door, note

    /// A clip is a trigger the child is expected to play (sound or video).
    public var isClip: Bool { self == .sound || self == .video }
}

/// A button placed on a panorama at a direction (`yaw`, `pitch` in degrees).
public struct Trigger: Sendable, Equatable, Codable {
    /// Stable id within the panorama (`t1`, `t2`, … when not given).
    public var id: String
    public var kind: TriggerKind
    /// Degrees, −180…180; 0 is the centre of the image, positive to the right.
    public var yaw: Double
    /// Degrees, −90…90; positive up.
    public var pitch: Double
    /// Relative size of the button, 0.5…3 (1 = the standard 44 px target).
    public var size: Double
    /// Always-visible text label (REQ1).
    public var label: String
    /// Media file (sound or video), relative to the experience file's folder.
    public var media: String?
    /// Target panorama id (door).
    public var target: String?
    /// Direction the child faces on arriving through a door (degrees); `nil` = the target's start view.
    public var targetYaw: Double?
    public var targetPitch: Double?
    /// The text of a note trigger.
    public var text: String?
    /// Line of the trigger in its file.
    public var line: Int

    public init(id: String, kind: TriggerKind, yaw: Double, pitch: Double, size: Double = 1, label: String,
                media: String? = nil, target: String? = nil, targetYaw: Double? = nil, targetPitch: Double? = nil,
                text: String? = nil, line: Int = 0) {
        self.id = id; self.kind = kind; self.yaw = yaw; self.pitch = pitch; self.size = size
        self.label = label; self.media = media; self.target = target
        self.targetYaw = targetYaw; self.targetPitch = targetPitch; self.text = text; self.line = line
    }
}

/// One 360° equirectangular photo with its triggers.
public struct Panorama: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    /// Equirectangular image (2:1), relative to the experience file's folder.
    public var image: String
    public var triggers: [Trigger]
    /// The direction the view faces on arrival (degrees; yaw 0, pitch 0 when not given).
    public var startYaw: Double
    public var startPitch: Double
    public var line: Int

    public init(id: String, title: String, image: String, triggers: [Trigger] = [], startYaw: Double = 0,
                startPitch: Double = 0, line: Int = 0) {
        self.id = id; self.title = title; self.image = image; self.triggers = triggers
        self.startYaw = startYaw; self.startPitch = startPitch; self.line = line
    }

    /// Sound and video triggers, in file order.
    public var clips: [Trigger] { triggers.filter { $0.kind.isClip } }
    /// Door targets, in file order (may repeat).
    public var doorTargets: [String] { triggers.compactMap { $0.kind == .door ? $0.target : nil } }
}

/// Premade experiences ship with the app; custom ones are made by a caretaker (2.1.5).
public enum ExperienceKind: String, Sendable, Codable { case premade, custom }

/// A sequential tour of panoramas.
public struct Experience: Sendable, Equatable, Codable {
    /// The file it was read from, as shown in messages.
    public var file: String
    /// Slug used for the site folder (the file name without `.json`).
    public var slug: String
    /// `nil` when the file gives none; ``ExperienceCollection`` then assigns `experience N`.
    public var title: String?
    public var description: String
    public var kind: ExperienceKind
    /// Owner of a custom experience (whose collection the title must be unique in).
    public var owner: String?
    public var panoramas: [Panorama]
    public var firstPanorama: String
    /// The panorama whose clips finish the experience (see ``finalPanoramaID``).
    public var explicitFinal: String?
    /// Lines of the top-level keys, for messages.
    public var lines: [String: Int]

    public init(file: String, slug: String, title: String?, description: String = "", kind: ExperienceKind = .premade,
                owner: String? = nil, panoramas: [Panorama], firstPanorama: String? = nil, explicitFinal: String? = nil,
                lines: [String: Int] = [:]) {
        self.file = file; self.slug = slug; self.title = title; self.description = description; self.kind = kind
        self.owner = owner; self.panoramas = panoramas
        self.firstPanorama = firstPanorama ?? panoramas.first?.id ?? ""
        self.explicitFinal = explicitFinal; self.lines = lines
    }

    /// The final panorama: `finalPanorama` when given, else the last panorama in file order.
    public var finalPanoramaID: String { explicitFinal ?? panoramas.last?.id ?? "" }

    public func panorama(_ id: String) -> Panorama? { panoramas.first { $0.id == id } }

    /// The line of a top-level key, or 1.
    public func line(_ key: String) -> Int { lines[key] ?? 1 }

    /// Every media path the experience uses (images, then clips), first use first, no repeats.
    public var mediaPaths: [String] {
        var seen = Set<String>(); var out: [String] = []
        for p in panoramas where seen.insert(p.image).inserted { out.append(p.image) }
        for p in panoramas { for t in p.triggers { if let m = t.media, seen.insert(m).inserted { out.append(m) } } }
        return out
    }
}

// MARK: - Diagnostics

/// A problem found in an experience: an error stops the build, a warning is shown.
public struct ExperienceIssue: Sendable, Equatable, CustomStringConvertible, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning }
    public var severity: Severity
    public var file: String
    public var line: Int?
    /// The column of a JSON syntax error (docs/json-lines.md); nil for every other issue.
    public var column: Int?
    public var message: String

    public init(_ severity: Severity, file: String, line: Int?, _ message: String) {
        self.severity = severity; self.file = file; self.line = line; self.message = message
    }
    public static func error(_ file: String, _ line: Int?, _ message: String) -> ExperienceIssue {
        .init(.error, file: file, line: line, message)
    }
    public static func warning(_ file: String, _ line: Int?, _ message: String) -> ExperienceIssue {
        .init(.warning, file: file, line: line, message)
    }
    /// The issue of a file that is not JSON: `file:line:column: invalid JSON: …`.
    public static func syntax(_ e: JSONLinesError) -> ExperienceIssue {
        var issue = ExperienceIssue.error(e.file, e.line, "invalid JSON: \(e.message)")
        issue.column = e.column
        return issue
    }

    /// `file:line: message` (warnings say so), `file:line:column: message` for a syntax error.
    public var description: String {
        let at = (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "")
        return "\(file)\(at): \(severity == .warning ? "warning: " : "")\(message)"
    }
}

/// Thrown when a file cannot be used: every error found, each with file and line.
public struct ExperienceError: Error, Sendable, CustomStringConvertible {
    public var issues: [ExperienceIssue]
    public init(_ issues: [ExperienceIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
