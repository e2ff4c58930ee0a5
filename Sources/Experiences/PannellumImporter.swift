#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines
import TextBasics

// MARK: - Pannellum tours

extension TourImporter {
    /// Imports a Pannellum configuration: a tour (`{"default": {"firstScene", "basePath"},
    /// "scenes": {id: {title, panorama, yaw, pitch, hotSpots}}}`) or a single-scene
    /// configuration (`{"panorama", "hotSpots", …}` at the top). Scene hot spots become
    /// doors (with `targetYaw`/`targetPitch`), info hot spots become notes; everything
    /// else is reported. Remote image addresses are an error.
    public static func pannellum(
        _ data: Data, file: String, title: String? = nil
    ) throws(ExperienceError) -> ImportResult {
        var notes: [ExperienceIssue] = []
        var errors: [ExperienceIssue] = []
        func note(_ line: Int?, _ m: String) { notes.append(.warning(file, line, m)) }
        let root = try parse(data, file: file)
        guard let top = root.members else {
            throw ExperienceError([.error(file, root.line, "not a Pannellum configuration: expected an object")])
        }

        // A tour has "scenes"; a single-scene configuration has "panorama" (or "type") at the top.
        let scenes: [JMember]
        var defaults: [JMember] = []
        let single = root["scenes"] == nil
        if let s = root["scenes"]?.members {
            scenes = s
            defaults = root["default"]?.members ?? []
            for m in top where m.key != "default" && m.key != "scenes" {
                note(m.keyLine, "\(m.key) has no Prep equivalent and was left out")
            }
        } else if single, root["panorama"] != nil || root["type"] != nil {
            let id = root["title"]?.stringValue.map { ExperienceLoader.slugify($0) } ?? "scene"
            scenes = [JMember(key: id, keyLine: root.line, value: root)]
        } else {
            throw ExperienceError([.error(file, root["scenes"]?.line ?? root.line,
                                          "not a Pannellum configuration: no \"scenes\" object and no \"panorama\"")])
        }
        if scenes.isEmpty {
            throw ExperienceError([.error(file, root["scenes"]?.line ?? root.line, "the tour has no scenes")])
        }

        var firstScene = scenes[0].key
        var basePath = ""
        for m in defaults {
            if m.key == "firstScene", let s = m.value.stringValue { firstScene = s }
            else if m.key == "basePath", let s = m.value.stringValue { basePath = s }
            else { note(m.keyLine, "default.\(m.key) has no Prep equivalent and was left out") }
        }
        var idMap: [String: String] = [:]
        var used = Set<String>()
        for s in scenes { idMap[s.key] = uniqueID(s.key, &used) }
        for s in scenes where idMap[s.key] != s.key {
            note(
                s.keyLine,
                "scene id \"\(s.key)\" was renamed \"\(idMap[s.key]!)\" (ids use ASCII letters, digits, '-' and '_')")
        }
        let sceneTitles = Dictionary(
            scenes.map { ($0.key, $0.value["title"]?.stringValue ?? $0.key) }, uniquingKeysWith: { a, _ in a })
        if idMap[firstScene] == nil {
            note(
                defaults.first { $0.key == "firstScene" }?.keyLine,
                "default.firstScene \"\(firstScene)\" is not a scene of the tour; the first scene is used")
            firstScene = scenes[0].key
        }

        var panoramas: [Panorama] = []
        // Keys of a scene that are read; in a single-scene configuration the viewer settings sit beside them.
        let sceneKeys: Set<String> = ["title", "panorama", "hotSpots", "type", "basePath", "yaw", "pitch"]
        for s in scenes {
            let id = idMap[s.key]!
            let v = s.value
            let ptitle = limit(v["title"]?.stringValue ?? s.key, Rules.panoramaTitleLength.upperBound,
                               what: "title of scene \"\(s.key)\"", line: v["title"]?.line ?? s.keyLine, note: note)
            let base = v["basePath"]?.stringValue ?? basePath
            var image = v["panorama"]?.stringValue ?? ""
            if let t = v["type"]?.stringValue, t != "equirectangular" {
                note(
                    v["type"]?.line,
                    "scene \"\(s.key)\" is a \(t) panorama; Prep needs one equirectangular image, so image is set to "
                        + "\(id).jpg"
                )
                image = "\(id).jpg"
            } else if image.isEmpty {
                note(s.keyLine, "scene \"\(s.key)\" has no panorama image; image is set to \(id).jpg")
                image = "\(id).jpg"
            } else {
                if isRemote(image) || (!base.isEmpty && isRemote(base)) {
                    let full = isRemote(image) ? image : base + image
                    errors.append(
                        .error(
                            file, v["panorama"]?.line,
                            "scene \"\(s.key)\": the image \(full) is a remote address; download it beside the tour "
                                + "file and give its relative path (experiences are built to work offline)"
                        ))
                }
                if !base.isEmpty, !isRemote(image) { image = base.hasSuffix("/") ? base + image : base + "/" + image }
            }
            for m in v.members ?? [] where !sceneKeys.contains(m.key) {
                note(
                    m.keyLine,
                    single
                        ? "\(m.key) has no Prep equivalent and was left out"
                        : "scene \"\(s.key)\": \(m.key) has no Prep equivalent and was left out")
            }
            let startYaw = wrapYaw(optional(v["yaw"], "yaw", of: "scene \"\(s.key)\"", note: note))
            let startPitch = clampPitch(
                optional(v["pitch"], "pitch", of: "scene \"\(s.key)\"", note: note),
                what: "scene \"\(s.key)\" starting", line: v["pitch"]?.line, note: note)
            var triggers: [Trigger] = []
            for (k, h) in (v["hotSpots"]?.items ?? []).enumerated() {
                let type = h["type"]?.stringValue ?? "info"
                let text = h["text"]?.stringValue
                let spot = "hot spot \(k + 1) of scene \"\(s.key)\""
                let yaw = wrapYaw(required(h["yaw"], "yaw", of: spot, line: h.line, note: note))
                let pitch = clampPitch(
                    required(h["pitch"], "pitch", of: spot, line: h.line, note: note), what: "hot spot",
                    line: h["pitch"]?.line ?? h.line, note: note)
                let known: Set<String> =
                    type == "scene"
                    ? ["type", "sceneId", "text", "pitch", "yaw", "targetYaw", "targetPitch"]
                                                         : ["type", "text", "pitch", "yaw"]
                for m in h.members ?? [] where !known.contains(m.key) {
                    note(
                        m.keyLine,
                        "hot spot \(m.key) has no Prep equivalent and was left out"
                            + (m.key == "URL" ? " (the link was dropped)" : ""))
                }
                if type == "info" {
                    if let t = noteTrigger(
                        id: "t\(k + 1)", yaw: yaw, pitch: pitch, title: nil, text: text, line: h.line,
                        what: "info hot spot in scene \"\(s.key)\"", note: note)
                    {
                        triggers.append(t)
                    }
                    continue
                }
                guard type == "scene", let target = h["sceneId"]?.stringValue else {
                    note(
                        h.line,
                        "\(type) hot spot in scene \"\(s.key)\" has no Prep equivalent (Prep triggers are sound, "
                            + "video, door and note) and was left out"
                    )
                    continue
                }
                guard let tid = idMap[target] else {
                    note(
                        h["sceneId"]?.line ?? h.line,
                        "hot spot in scene \"\(s.key)\" leads to scene \"\(target)\", which is not in the tour; the "
                            + "door was left out"
                    )
                    continue
                }
                var targetYaw: Double?, targetPitch: Double?
                if let n = h["targetYaw"] {
                    if let y = number(n) {
                        targetYaw = wrapYaw(y)
                    } else {
                        note(
                            n.line,
                            "targetYaw \(n.stringValue.map { "\"\($0)\"" } ?? n.typeName) has no Prep equivalent; the "
                                + "door opens facing the target's starting view"
                        )
                    }
                }
                if let n = h["targetPitch"] {
                    if let p = number(n) {
                        targetPitch = clampPitch(p, what: "targetPitch:", line: n.line, note: note)
                    } else {
                        note(
                            n.line,
                            "targetPitch \(n.stringValue.map { "\"\($0)\"" } ?? n.typeName) has no Prep equivalent; "
                                + "the door opens facing the target's starting view"
                        )
                    }
                }
                let label = limit(text ?? "Go to \(sceneTitles[target] ?? target)", Rules.labelLength.upperBound,
                                  what: "hot spot text", line: h["text"]?.line ?? h.line, note: note)
                triggers.append(Trigger(id: "t\(k + 1)", kind: .door, yaw: yaw, pitch: pitch, label: label, target: tid,
                                        targetYaw: targetYaw, targetPitch: targetPitch, line: h.line))
            }
            panoramas.append(Panorama(id: id, title: ptitle, image: image, triggers: triggers,
                                      startYaw: startYaw, startPitch: startPitch, line: s.keyLine))
        }
        if !errors.isEmpty { throw ExperienceError(errors) }
        let base = PathText.deletingExtension(file).components(separatedBy: "/").last ?? "tour"
        let exp = Experience(file: file, slug: ExperienceLoader.slugify(base),
                             title: chooseTitle(title ?? sceneTitles[firstScene], line: root.line, note: note),
                             panoramas: panoramas, firstPanorama: idMap[firstScene])
        return ImportResult(experience: exp, notes: notes)
    }
}
