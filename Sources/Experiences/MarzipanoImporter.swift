#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import JSONLines

// MARK: - Marzipano Tool tours

extension TourImporter {
    /// Imports a Marzipano Tool `data.js` (`var APP_DATA = {...};`). Angles are radians and
    /// Marzipano's pitch is positive **downward** (its `coordinatesToScreen` casts the ray
    /// `(sin yaw·cos pitch, −sin pitch, −cos yaw·cos pitch)` with y up), so a Dossier pitch
    /// is `−pitch·180/π`; yaw is positive to the right in both. Link hot spots become doors,
    /// info hot spots notes, `initialViewParameters` the starting view; the rest is reported.
    public static func marzipano(
        _ data: Data, file: String, title: String? = nil
    ) throws(ExperienceError) -> ImportResult {
        var notes: [ExperienceIssue] = []
        func note(_ line: Int?, _ m: String) { notes.append(.warning(file, line, m)) }
        // Blank out everything outside the object literal, keeping line breaks, so lines stay true.
        var bytes = [UInt8](data)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")), let close = bytes.lastIndex(of: UInt8(ascii: "}")),
            open < close
        else {
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
            if let id = s["id"]?.stringValue {
                idMap[id] = uniqueID(id, &used); names[id] = s["name"]?.stringValue ?? id
            }
        }
        /// Marzipano (radians, pitch down) → Dossier (degrees, pitch up).
        func direction(_ node: JNode, what: String) -> (yaw: Double, pitch: Double) {
            // A hot spot must give its direction; a starting view may leave a part out (0).
            let starting = what.hasSuffix("starting")
            func value(_ k: String) -> Double {
                starting
                    ? optional(node[k], k, of: what, note: note)
                    : required(node[k], k, of: what, line: node.line, note: note)
            }
            let yaw = wrapYaw(degrees(value("yaw")))
            let pitch = clampPitch(
                -degrees(value("pitch")), what: what, line: node["pitch"]?.line ?? node.line, note: note)
            return (yaw, pitch == 0 ? 0 : pitch)
        }
        var panoramas: [Panorama] = []
        for (i, s) in scenes.enumerated() {
            guard let sid = s["id"]?.stringValue else {
                throw ExperienceError([.error(file, s.line, "scene \(i + 1) has no id")])
            }
            let id = idMap[sid]!
            if id != sid {
                note(
                    s["id"]?.line,
                    "scene id \"\(sid)\" was renamed \"\(id)\" (ids use ASCII letters, digits, '-' and '_')")
            }
            let ptitle = limit(
                names[sid] ?? sid, Rules.panoramaTitleLength.upperBound, what: "name of scene \"\(sid)\"",
                line: s["name"]?.line ?? s.line, note: note)
            note(
                s.line,
                "scene \"\(sid)\" is stored as tiled cube faces (tiles/\(sid)/); Prep needs one equirectangular image: "
                    + "put it at \(id).jpg"
            )
            for m in s.members ?? []
            where !["id", "name", "levels", "faceSize", "linkHotspots", "infoHotspots", "initialViewParameters"]
                .contains(m.key)
            {
                note(m.keyLine, "scene \"\(sid)\": \(m.key) has no Prep equivalent and was left out")
            }
            var start = (yaw: 0.0, pitch: 0.0)
            if let v = s["initialViewParameters"] {
                start = direction(v, what: "scene \"\(sid)\" starting")
                if v["fov"] != nil {
                    note(
                        v["fov"]?.line,
                        "scene \"\(sid)\": the starting field of view has no Prep equivalent (the viewer starts at "
                            + "100° across)"
                    )
                }
            }
            var triggers: [Trigger] = []
            for (j, h) in (s["linkHotspots"]?.items ?? []).enumerated() {
                let spot = "link hot spot \(j + 1) of scene \"\(sid)\""
                guard let target = h["target"]?.stringValue else {
                    note(h.line, "\(spot) has no target and was left out"); continue
                }
                guard let tid = idMap[target] else {
                    note(
                        h["target"]?.line ?? h.line,
                        "\(spot) leads to scene \"\(target)\", which is not in the tour; the door was left out")
                    continue
                }
                if let r = number(h["rotation"]), r != 0 {
                    note(h["rotation"]?.line, "\(spot): its rotation has no Prep equivalent and was left out")
                }
                let label = limit("Go to \(names[target] ?? target)", Rules.labelLength.upperBound,
                                  what: "\(spot): door label", line: h.line, note: note)
                let d = direction(h, what: spot)
                triggers.append(Trigger(id: "t\(triggers.count + 1)", kind: .door, yaw: d.yaw, pitch: d.pitch,
                                        label: label, target: tid, line: h.line))
            }
            for (j, h) in (s["infoHotspots"]?.items ?? []).enumerated() {
                let spot = "info hot spot \(j + 1) of scene \"\(sid)\""
                let d = direction(h, what: spot)
                if let t = noteTrigger(
                    id: "t\(triggers.count + 1)", yaw: d.yaw, pitch: d.pitch, title: h["title"]?.stringValue,
                    text: h["text"]?.stringValue, line: h.line, what: spot, note: note)
                {
                    triggers.append(t)
                }
            }
            panoramas.append(Panorama(id: id, title: ptitle, image: "\(id).jpg", triggers: triggers,
                                      startYaw: start.yaw, startPitch: start.pitch, line: s.line))
        }
        let exp = Experience(
            file: file, slug: "tour",
            title: chooseTitle(title ?? root["name"]?.stringValue, line: root["name"]?.line, note: note),
            panoramas: panoramas, firstPanorama: panoramas.first?.id)
        return ImportResult(experience: exp, notes: notes)
    }
}
