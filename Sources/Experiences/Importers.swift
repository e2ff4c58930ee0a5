import Foundation

// MARK: - Importing tours from other viewers

/// The result of an import: the experience and everything that had no Prep equivalent.
public struct ImportResult: Sendable {
    public var experience: Experience
    /// What was changed or left out, each with the line in the source file.
    public var notes: [ExperienceIssue]
    /// The experience in Dossier's file format.
    public var json: String { ExperienceWriter.json(experience) }
}

public enum TourImporter {
    /// Imports a Pannellum tour (`{"default": {"firstScene"}, "scenes": {id: {title, panorama, hotSpots}}}`).
    /// Scene hot spots become doors; info hot spots and viewer settings are reported.
    public static func pannellum(_ data: Data, file: String, title: String? = nil) throws(ExperienceError) -> ImportResult {
        var notes: [ExperienceIssue] = []
        func note(_ line: Int?, _ m: String) { notes.append(.warning(file, line, m)) }
        let root = try parse(data, file: file)
        guard let scenes = root["scenes"]?.members else {
            throw ExperienceError([.error(file, root["scenes"]?.line ?? root.line, "not a Pannellum tour: no \"scenes\" object")])
        }
        if scenes.isEmpty { throw ExperienceError([.error(file, root["scenes"]!.line, "the tour has no scenes")]) }
        var firstScene = scenes[0].key
        if let d = root["default"]?.members {
            for m in d {
                if m.key == "firstScene", let s = m.value.stringValue { firstScene = s }
                else { note(m.keyLine, "default.\(m.key) has no Prep equivalent and was left out") }
            }
        }
        for m in root.members ?? [] where m.key != "default" && m.key != "scenes" {
            note(m.keyLine, "\(m.key) has no Prep equivalent and was left out")
        }
        var idMap: [String: String] = [:]
        var used = Set<String>()
        for s in scenes { idMap[s.key] = uniqueID(s.key, &used) }
        for s in scenes where idMap[s.key] != s.key { note(s.keyLine, "scene id \"\(s.key)\" was renamed \"\(idMap[s.key]!)\" (ids use letters, digits, '-' and '_')") }
        let sceneTitles = Dictionary(scenes.map { ($0.key, $0.value["title"]?.stringValue ?? $0.key) }, uniquingKeysWith: { a, _ in a })

        var panoramas: [Panorama] = []
        for s in scenes {
            let id = idMap[s.key]!
            let v = s.value
            var ptitle = v["title"]?.stringValue ?? s.key
            ptitle = limit(ptitle, Rules.panoramaTitleLength.upperBound, what: "title of scene \"\(s.key)\"", line: v["title"]?.line ?? s.keyLine, note: note)
            var image = v["panorama"]?.stringValue ?? ""
            if let t = v["type"]?.stringValue, t != "equirectangular" {
                note(v["type"]?.line, "scene \"\(s.key)\" is a \(t) panorama; Prep needs one equirectangular image, so image is set to \(id).jpg")
                image = "\(id).jpg"
            } else if image.isEmpty {
                note(s.keyLine, "scene \"\(s.key)\" has no panorama image; image is set to \(id).jpg")
                image = "\(id).jpg"
            }
            for m in v.members ?? [] where !["title", "panorama", "hotSpots", "type"].contains(m.key) {
                note(m.keyLine, "scene \"\(s.key)\": \(m.key) has no Prep equivalent and was left out")
            }
            var triggers: [Trigger] = []
            for (k, h) in (v["hotSpots"]?.items ?? []).enumerated() {
                let type = h["type"]?.stringValue ?? "info"
                let text = h["text"]?.stringValue
                guard type == "scene", let target = h["sceneId"]?.stringValue else {
                    let what = text.map { " \"\($0)\"" } ?? ""
                    note(h.line, "\(type) hot spot\(what) in scene \"\(s.key)\" has no Prep equivalent (Prep triggers are sound, video and doors) and was left out" + (h["URL"] != nil ? "; its link was dropped" : ""))
                    continue
                }
                for m in h.members ?? [] where !["type", "sceneId", "text", "pitch", "yaw"].contains(m.key) {
                    note(m.keyLine, "hot spot \(m.key) has no Prep equivalent (doors always open the next panorama facing its default view)")
                }
                let label = limit(text ?? "Go to \(sceneTitles[target] ?? target)", Rules.labelLength.upperBound,
                                  what: "hot spot text", line: h["text"]?.line ?? h.line, note: note)
                triggers.append(Trigger(id: "t\(k + 1)", kind: .door, yaw: wrapYaw(h["yaw"]?.numberValue ?? 0),
                                        pitch: clampPitch(h["pitch"]?.numberValue ?? 0), label: label,
                                        target: idMap[target] ?? target, line: h.line))
            }
            panoramas.append(Panorama(id: id, title: ptitle, image: image, triggers: triggers, line: s.keyLine))
        }
        let exp = Experience(file: file, slug: ExperienceLoader.slugify((file as NSString).deletingPathExtension.components(separatedBy: "/").last ?? "tour"),
                             title: chooseTitle(title ?? sceneTitles[firstScene], line: root.line, note: note),
                             panoramas: panoramas, firstPanorama: idMap[firstScene] ?? firstScene)
        return ImportResult(experience: exp, notes: notes)
    }

    /// Imports a Marzipano Tool `data.js` (`var APP_DATA = {...};`). Angles are radians;
    /// link hot spots become doors; info hot spots, view parameters and settings are reported.
    public static func marzipano(_ data: Data, file: String, title: String? = nil) throws(ExperienceError) -> ImportResult {
        var notes: [ExperienceIssue] = []
        func note(_ line: Int?, _ m: String) { notes.append(.warning(file, line, m)) }
        // Blank out everything outside the object literal, keeping line breaks, so lines stay true.
        var bytes = [UInt8](data)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")), let close = bytes.lastIndex(of: UInt8(ascii: "}")), open < close else {
            throw ExperienceError([.error(file, 1, "not a Marzipano data.js: no APP_DATA object")])
        }
        for i in bytes.indices where (i < open || i > close) && bytes[i] != 0x0A { bytes[i] = 0x20 }
        let root = try parse(Data(bytes), file: file)
        guard let scenes = root["scenes"]?.items, !scenes.isEmpty else {
            throw ExperienceError([.error(file, root["scenes"]?.line ?? root.line, "not a Marzipano tour: no scenes")])
        }
        for m in root.members ?? [] where m.key != "scenes" && m.key != "name" {
            note(m.keyLine, "\(m.key) has no Prep equivalent and was left out")
        }
        var idMap: [String: String] = [:]
        var used = Set<String>()
        var names: [String: String] = [:]
        for s in scenes {
            if let id = s["id"]?.stringValue { idMap[id] = uniqueID(id, &used); names[id] = s["name"]?.stringValue ?? id }
        }
        var panoramas: [Panorama] = []
        for (i, s) in scenes.enumerated() {
            guard let sid = s["id"]?.stringValue else { throw ExperienceError([.error(file, s.line, "scene \(i + 1) has no id")]) }
            let id = idMap[sid]!
            if id != sid { note(s["id"]?.line, "scene id \"\(sid)\" was renamed \"\(id)\" (ids use letters, digits, '-' and '_')") }
            let ptitle = limit(names[sid] ?? sid, Rules.panoramaTitleLength.upperBound, what: "name of scene \"\(sid)\"", line: s["name"]?.line ?? s.line, note: note)
            note(s.line, "scene \"\(sid)\" is stored as tiled cube faces (tiles/\(sid)/); Prep needs one equirectangular image: put it at \(id).jpg")
            for m in s.members ?? [] where !["id", "name", "levels", "faceSize", "linkHotspots", "infoHotspots"].contains(m.key) {
                note(m.keyLine, "scene \"\(sid)\": \(m.key) has no Prep equivalent and was left out")
            }
            var triggers: [Trigger] = []
            for (k, h) in (s["linkHotspots"]?.items ?? []).enumerated() {
                guard let target = h["target"]?.stringValue else { note(h.line, "link hot spot without a target was left out"); continue }
                if let r = h["rotation"]?.numberValue, r != 0 { note(h["rotation"]?.line, "link hot spot rotation has no Prep equivalent and was left out") }
                let label = limit("Go to \(names[target] ?? target)", Rules.labelLength.upperBound, what: "door label", line: h.line, note: note)
                triggers.append(Trigger(id: "t\(k + 1)", kind: .door,
                                        yaw: wrapYaw(degrees(h["yaw"]?.numberValue ?? 0)),
                                        pitch: clampPitch(degrees(h["pitch"]?.numberValue ?? 0)),
                                        label: label, target: idMap[target] ?? target, line: h.line))
            }
            for h in s["infoHotspots"]?.items ?? [] {
                let t = h["title"]?.stringValue.map { " \"\($0)\"" } ?? ""
                note(h.line, "info hot spot\(t) in scene \"\(sid)\" has no Prep equivalent (Prep triggers are sound, video and doors) and was left out")
            }
            panoramas.append(Panorama(id: id, title: ptitle, image: "\(id).jpg", triggers: triggers, line: s.line))
        }
        let exp = Experience(file: file, slug: "tour", title: chooseTitle(title ?? root["name"]?.stringValue, line: root["name"]?.line, note: note),
                             panoramas: panoramas, firstPanorama: panoramas.first?.id)
        return ImportResult(experience: exp, notes: notes)
    }

    // MARK: Helpers

    public static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// Yaw into −180…180 (180 stays 180).
    public static func wrapYaw(_ d: Double) -> Double {
        var y = d.truncatingRemainder(dividingBy: 360)
        if y > 180 { y -= 360 }
        if y < -180 { y += 360 }
        return y
    }

    static func clampPitch(_ d: Double) -> Double { min(90, max(-90, d)) }

    static func parse(_ data: Data, file: String) throws(ExperienceError) -> JNode {
        do { return try LineJSONParser.parse(data) } catch {
            throw ExperienceError([.error(file, error.line, "invalid JSON: \(error.message)")])
        }
    }

    static func uniqueID(_ raw: String, _ used: inout Set<String>) -> String {
        var base = Rules.isValidID(raw) ? raw : ExperienceLoader.slugify(raw)
        if base.isEmpty { base = "scene" }
        var id = base, n = 2
        while used.contains(id) { id = "\(base)-\(n)"; n += 1 }
        used.insert(id)
        return id
    }

    static func limit(_ s: String, _ max: Int, what: String, line: Int?, note: (Int?, String) -> Void) -> String {
        guard s.count > max else { return s }
        note(line, "\(what) was shortened to \(max) characters")
        return String(s.prefix(max))
    }

    static func chooseTitle(_ t: String?, line: Int?, note: (Int?, String) -> Void) -> String? {
        guard let t, !t.isEmpty else { return nil }
        if Rules.titleLength.contains(t.count) { return t }
        note(line, "title \"\(t)\" is not 4 to 16 characters; it was left out so the default title applies (or pass --title)")
        return nil
    }
}
