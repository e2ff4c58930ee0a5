#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines
import TextBasics

// MARK: - Loading an experience file

/// Reads an experience file (JSON, see `docs/experience-format.md`) and checks every
/// per-file rule. Rules that need the owner's whole collection (unique titles, the
/// 10-custom limit, default titles) are in ``ExperienceCollection``.
public struct ExperienceLoader {
    /// Checks media files: `nil` skips the checks (e.g. for pure tests of the format).
    public var mediaRoot: URL?

    public init(mediaRoot: URL? = nil) { self.mediaRoot = mediaRoot }

    /// Loads `url`; media are looked up beside it. `display` is the name used in messages.
    public static func load(url: URL, display: String? = nil) -> (Experience?, [ExperienceIssue]) {
        let name = display ?? url.path
        guard let data = FileManager.default.contents(atPath: url.path) else {
            var isDir = false
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir)
            let why = !exists ? "no such file: check the path (an experience is a .json file)"
                : isDir ? "is a folder, not an experience file: give the .json files inside it"
                : "cannot read the file: check that it is a file you may read"
            return (nil, [.error(name, nil, why)])
        }
        return load(data: data, url: url, display: name)
    }

    /// Loads `data`, the bytes read from `url` (its slug from the file's name, media looked
    /// up beside it). `display` is the name used in messages.
    public static func load(data: Data, url: URL, display: String) -> (Experience?, [ExperienceIssue]) {
        let slug = slugify(url.deletingPathExtension().lastPathComponent)
        return ExperienceLoader(mediaRoot: url.deletingLastPathComponent()).load(data: data, file: display, slug: slug)
    }

    /// What an id may hold, as the messages say it (a `ü` is a letter, but not an ASCII one).
    static let idCharacters = "ASCII letters (a–z, A–Z), digits, '-' and '_'"

    /// A folder-safe slug: lower-case ASCII letters, digits and `-`.
    public static func slugify(_ s: String) -> String {
        var out = ""
        for c in s.lowercased().unicodeScalars {
            if c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) { out.unicodeScalars.append(c) }
            else if !out.hasSuffix("-") { out += "-" }
        }
        let t = out.trimming(scalarsIn: "-")
        return t.isEmpty ? "experience" : t
    }

    /// Parses and checks `data`. Returns the experience when its structure could be read
    /// (even if rules failed) and every issue found, errors and warnings, in file order.
    public func load(data: Data, file: String, slug: String) -> (Experience?, [ExperienceIssue]) {
        var issues: [ExperienceIssue] = []
        func err(_ line: Int?, _ m: String) { issues.append(.error(file, line, m)) }
        func warn(_ line: Int?, _ m: String) { issues.append(.warning(file, line, m)) }

        let root: JNode
        do { root = try JSONReader.document(data, file: file) } catch {
            return (nil, [.syntax(error)])
        }
        guard let top = root.members else {
            return (nil, [.error(file, root.line, "expected an object at the top, found \(root.typeName)")])
        }

        var lines: [String: Int] = [:]
        for m in top { lines[m.key] = m.keyLine }
        checkKeys(top,
                  allowed: ["title", "description", "kind", "owner", "firstPanorama", "finalPanorama",
                            "panoramas"], what: "experience", err: err)

        func text(_ node: JNode?, _ name: String) -> String? {
            guard let node else { return nil }
            if node.isNull { return nil }
            guard let s = node.stringValue else {
                err(node.line, "\(name) must be text, found \(node.typeName)")
                return nil
            }
            return s
        }

        // Title (F16): absent or empty → default assigned by the collection.
        var title = text(root["title"], "title")
        if let t = title, t.trimmingWhitespace().isEmpty { title = nil }
        if let t = title, !Rules.titleLength.contains(t.count) {
            err(root["title"]?.line, "title \"\(t)\" has \(t.count) characters; it must have 4 to 16 (spaces count)")
        }
        // Description (F17).
        let description = text(root["description"], "description") ?? ""
        if description.count > Rules.descriptionMax {
            err(root["description"]?.line,
                "description has \(description.count) characters; at most \(Rules.descriptionMax) are allowed")
        }
        var kind = ExperienceKind.premade
        if let k = text(root["kind"], "kind") {
            if let v = ExperienceKind(rawValue: k) {
                kind = v
            } else {
                err(root["kind"]?.line, "kind must be \"premade\" or \"custom\", not \"\(k)\"")
            }
        }
        let owner = text(root["owner"], "owner").flatMap { $0.isEmpty ? nil : $0 }
        if kind == .custom, owner == nil { err(root["kind"]?.line ?? 1, "a custom experience needs an owner") }

        // Panoramas.
        var panoramas: [Panorama] = []
        guard let pnode = root["panoramas"] else {
            err(1, "missing \"panoramas\": an experience needs at least one panorama")
            return (nil, issues)
        }
        guard let plist = pnode.items else {
            err(pnode.line, "panoramas must be a list, found \(pnode.typeName)")
            return (nil, issues)
        }
        if plist.isEmpty { err(pnode.line, "an experience needs at least one panorama") }
        var seenIDs = Set<String>()
        for (i, node) in plist.enumerated() {
            guard let members = node.members else {
                err(node.line, "panorama \(i + 1) must be an object, found \(node.typeName)")
                continue
            }
            checkKeys(members, allowed: ["id", "title", "image", "triggers", "startYaw", "startPitch"],
                      what: "panorama", err: err)
            let id = text(node["id"], "panorama id") ?? "p\(i + 1)"
            if node["id"] != nil, !Rules.isValidID(id) {
                err(node["id"]?.line, "panorama id \"\(id)\" may use only \(Self.idCharacters)")
            }
            if seenIDs.contains(id) { err(node["id"]?.line ?? node.line, "panorama id \"\(id)\" is used twice") }
            seenIDs.insert(id)
            let ptitle = text(node["title"], "panorama title") ?? ""
            if !Rules.panoramaTitleLength.contains(ptitle.count) {
                err(node["title"]?.line ?? node.line, "panorama \"\(id)\" needs a title of 1 to 60 characters")
            }
            var image = ""
            if let im = text(node["image"], "image") { image = im }
            if image.isEmpty, node["image"].map({ $0.isNull || $0.stringValue == "" }) ?? true {
                err(node["image"]?.line ?? node.line, "panorama \"\(id)\" has no image")   // (absent, null or "")
            }
            if !image.isEmpty {
                checkMedia(image, allowed: Rules.imageTypes, what: "image", line: node["image"]?.line ?? node.line,
                           err: err)
            }

            var triggers: [Trigger] = []
            if let tnode = node["triggers"] {
                if let tl = tnode.items {
                    var tids = Set<String>()
                    for (j, t) in tl.enumerated() {
                        if let trig = trigger(t, index: j, panorama: id, err: err) {
                            if !tids.insert(trig.id).inserted {
                                err(t.line, "trigger id \"\(trig.id)\" is used twice in panorama \"\(id)\"")
                            }
                            triggers.append(trig)
                        }
                    }
                } else if !tnode.isNull { err(tnode.line, "triggers must be a list, found \(tnode.typeName)") }
            }
            let startYaw = angle(node["startYaw"], "startYaw", Rules.yawRange, err: err) ?? 0
            let startPitch = angle(node["startPitch"], "startPitch", Rules.pitchRange, err: err) ?? 0
            panoramas.append(Panorama(id: id, title: ptitle, image: image, triggers: triggers,
                                      startYaw: startYaw, startPitch: startPitch, line: node.line))
        }

        // Doors (F26): a door's target must be a panorama of the same experience.
        let ids = Set(panoramas.map(\.id))
        for p in panoramas {
            for t in p.triggers where t.kind == .door {
                guard let target = t.target else { continue }
                if !ids.contains(target) {
                    err(t.line, "door \"\(t.label)\" leads to panorama \"\(target)\", which is not in this experience")
                } else if target == p.id {
                    warn(t.line, "door \"\(t.label)\" leads back to its own panorama \"\(p.id)\"")
                }
            }
        }
        var first = panoramas.first?.id
        if let f = text(root["firstPanorama"], "firstPanorama") {
            if ids.contains(f) {
                first = f
            } else {
                err(root["firstPanorama"]?.line, "firstPanorama \"\(f)\" is not a panorama of this experience")
            }
        }
        var final: String?
        if let f = text(root["finalPanorama"], "finalPanorama") {
            if ids.contains(f) {
                final = f
            } else {
                err(root["finalPanorama"]?.line, "finalPanorama \"\(f)\" is not a panorama of this experience")
            }
        }
        let exp = Experience(file: file, slug: slug, title: title, description: description, kind: kind, owner: owner,
                             panoramas: panoramas, firstPanorama: first, explicitFinal: final, lines: lines)
        return (exp, issues)
    }

    // MARK: Parts

    private func trigger(_ node: JNode, index j: Int, panorama: String, err: (Int?, String) -> Void) -> Trigger? {
        guard let members = node.members else {
            err(node.line, "trigger \(j + 1) of panorama \"\(panorama)\" must be an object, found \(node.typeName)")
            return nil
        }
        checkKeys(members,
                  allowed: ["id", "kind", "yaw", "pitch", "size", "label", "media", "target", "targetYaw",
                            "targetPitch", "text"],
                  what: "trigger", err: err)
        var id = "t\(j + 1)"   // (absent or null: the default, as for a panorama)
        if let n = node["id"], !n.isNull {
            if let s = n.stringValue {
                id = s
                if !Rules.isValidID(s) { err(n.line, "trigger id \"\(s)\" may use only \(Self.idCharacters)") }
            } else {
                err(n.line, "trigger id must be text, found \(n.typeName)")
            }
        }
        guard let ks = node["kind"]?.stringValue else {
            err(node["kind"]?.line ?? node.line,
                "trigger \(j + 1) of panorama \"\(panorama)\" needs a kind: sound, video, door or note")
            return nil
        }
        guard let kind = TriggerKind(rawValue: ks) else {
            err(node["kind"]?.line, "trigger kind must be sound, video, door or note, not \"\(ks)\"")
            return nil
        }
        func num(_ key: String, _ range: ClosedRange<Double>, default d: Double?) -> Double {
            guard let n = node[key] else {
                if d == nil { err(node.line, "trigger \(j + 1) of panorama \"\(panorama)\" needs \(key)") }
                return d ?? 0
            }
            guard let v = n.numberValue else {
                err(n.line, "\(key) must be a number, found \(n.typeName)")
                return d ?? 0
            }
            if !range.contains(v) {
                err(n.line, "\(key) \(fmt(v)) is out of range \(fmt(range.lowerBound))…\(fmt(range.upperBound))")
            }
            return v
        }
        let yaw = num("yaw", Rules.yawRange, default: nil)
        let pitch = num("pitch", Rules.pitchRange, default: nil)
        let size = num("size", Rules.sizeRange, default: 1)
        let label = node["label"]?.stringValue ?? ""
        if !Rules.labelLength.contains(label.trimmingWhitespace().count) || label.count > Rules.labelLength.upperBound {
            err(node["label"]?.line ?? node.line,
                "trigger \(j + 1) of panorama \"\(panorama)\" needs a text label of 1 to 40 characters")
        }
        var media: String?, target: String?, text: String?
        if kind != .door {
            for k in ["targetYaw", "targetPitch"] where node[k] != nil { err(node[k]?.line, "only a door has \(k)") }
        }
        if kind != .note, node["text"] != nil { err(node["text"]?.line, "only a note has text") }
        switch kind {
        case .note:
            if node["media"] != nil { err(node["media"]?.line, "a note has no media; use text") }
            if node["target"] != nil { err(node["target"]?.line, "a note has no target; use text") }
            let t = node["text"]?.stringValue ?? ""
            if t.trimmingWhitespaceAndNewlines().isEmpty || t.count > Rules.noteTextMax {
                err(node["text"]?.line ?? node.line,
                    "note \"\(label)\" needs a text of 1 to \(Rules.noteTextMax) characters")
            }
            text = t
        case .sound, .video:
            if node["target"] != nil {
                err(node["target"]?.line, "a \(kind.rawValue) trigger has no target; use media")
            }
            if let m = node["media"]?.stringValue {
                media = m
                checkMedia(m, allowed: kind == .sound ? Rules.soundTypes : Rules.videoTypes,
                           what: "\(kind.rawValue) file",
                           line: node["media"]?.line ?? node.line, err: err)
            } else { err(node["media"]?.line ?? node.line, "\(kind.rawValue) trigger \"\(label)\" needs a media file") }
        case .door:
            if node["media"] != nil { err(node["media"]?.line, "a door has no media; use target") }
            if let t = node["target"]?.stringValue {
                target = t
            } else {
                err(node["target"]?.line ?? node.line, "door \"\(label)\" needs a target panorama")
            }
        }
        let targetYaw = angle(node["targetYaw"], "targetYaw", Rules.yawRange, err: err)
        let targetPitch = angle(node["targetPitch"], "targetPitch", Rules.pitchRange, err: err)
        return Trigger(id: id, kind: kind, yaw: yaw, pitch: pitch, size: size, label: label, media: media,
                       target: target,
                       targetYaw: targetYaw, targetPitch: targetPitch, text: text, line: node.line)
    }

    /// An optional angle in degrees: a number in `range`, else an error.
    private func angle(_ node: JNode?, _ key: String, _ range: ClosedRange<Double>,
                       err: (Int?, String) -> Void) -> Double? {
        guard let node, !node.isNull else { return nil }
        guard let v = node.numberValue else {
            err(node.line, "\(key) must be a number, found \(node.typeName)")
            return nil
        }
        if !range.contains(v) {
            err(node.line, "\(key) \(fmt(v)) is out of range \(fmt(range.lowerBound))…\(fmt(range.upperBound))")
            return nil
        }
        return v
    }

    private func checkKeys(_ members: [JMember], allowed: Set<String>, what: String, err: (Int?, String) -> Void) {
        var seen = Set<String>()
        for m in members {
            if !allowed.contains(m.key) {
                err(m.keyLine, "unknown \(what) key \"\(m.key)\" (known: \(allowed.sorted().joined(separator: ", ")))")
            } else if !seen.insert(m.key).inserted {
                err(m.keyLine, "\(what) key \"\(m.key)\" is given twice")
            }
        }
    }

    /// Checks a media path: safe, of an allowed type, present, and with matching content.
    private func checkMedia(_ path: String, allowed: Set<String>, what: String, line: Int,
                            err: (Int?, String) -> Void) {
        guard Rules.isSafeRelativePath(path) else {
            err(line, "\(what) \"\(path)\" must be a relative path inside the experience's folder, "
                + "using only ASCII letters (a–z, A–Z), digits, '-', '_', '.' and '/'"); return
        }
        let ext = PathText.pathExtension(path).lowercased()
        guard allowed.contains(ext) else {
            err(line,
                "\(what) \"\(path)\" is not a playable type (use \(allowed.sorted().joined(separator: ", ")))"); return
        }
        guard let root = mediaRoot else { return }
        let url = root.appendingPathComponent(path)
        var isDir = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir else {
            // Paths are relative to the experience file's folder: say so, and what to do.
            err(line, "\(what) \"\(path)\" does not exist in the folder of this file; "
                + "correct the path, or put the file at \(path) beside it"); return
        }
        let head = Self.firstBytes(of: url.path, count: 16)
        guard let fam = MediaSniffer.family(of: head), MediaSniffer.expected(forExtension: ext).contains(fam) else {
            err(line,
                "\(what) \"\(path)\" is not a playable .\(ext) file (its content does not match its name)"); return
        }
    }
}

/// Numbers in messages: whole numbers without `.0`.
func fmt(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : cFormat("%.3g", v)
}

extension ExperienceLoader {
    /// Up to `count` bytes from the start of the file at `path` (none when unreadable).
    static func firstBytes(of path: String, count: Int) -> Data {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return Data() }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = read(fd, &buffer, count)
        return n > 0 ? Data(buffer[0..<n]) : Data()
    }
}
