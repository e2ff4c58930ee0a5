#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping
import TextBasics

// MARK: - Writing the experience format

/// Writes an experience in the file format of `docs/experience-format.md`: two-space
/// indentation, keys in a fixed order, angles rounded to 0.01°, so output is stable.
public enum ExperienceWriter {
    public static func json(_ e: Experience) -> String {
        var s = "{\n"
        var top: [String] = []
        if let t = e.title { top.append("  \"title\": \(str(t))") }
        if !e.description.isEmpty { top.append("  \"description\": \(str(e.description))") }
        top.append("  \"kind\": \(str(e.kind.rawValue))")
        if let o = e.owner { top.append("  \"owner\": \(str(o))") }
        top.append("  \"firstPanorama\": \(str(e.firstPanorama))")
        if let f = e.explicitFinal { top.append("  \"finalPanorama\": \(str(f))") }
        var ps: [String] = []
        for p in e.panoramas {
            var q =
                "    {\n      \"id\": \(str(p.id)),\n      \"title\": \(str(p.title)),\n      \"image\": "
                    + "\(str(p.image)),\n"
            if p.startYaw != 0 || p.startPitch != 0 {
                q += "      \"startYaw\": \(num(p.startYaw)),\n      \"startPitch\": \(num(p.startPitch)),\n"
            }
            q += "      \"triggers\": ["
            if p.triggers.isEmpty { q += "]\n    }" } else {
                q += "\n" + p.triggers.map { t in
                        var f = [
                            "\"id\": \(str(t.id))", "\"kind\": \(str(t.kind.rawValue))", "\"yaw\": \(num(t.yaw))",
                            "\"pitch\": \(num(t.pitch))"
                        ]
                    if t.size != 1 { f.append("\"size\": \(num(t.size))") }
                    f.append("\"label\": \(str(t.label))")
                    if let m = t.media { f.append("\"media\": \(str(m))") }
                    if let g = t.target { f.append("\"target\": \(str(g))") }
                    if let y = t.targetYaw { f.append("\"targetYaw\": \(num(y))") }
                    if let y = t.targetPitch { f.append("\"targetPitch\": \(num(y))") }
                    if let x = t.text { f.append("\"text\": \(str(x))") }
                    return "        {" + f.joined(separator: ", ") + "}"
                }.joined(separator: ",\n") + "\n      ]\n    }"
            }
            ps.append(q)
        }
        top.append("  \"panoramas\": [\n" + ps.joined(separator: ",\n") + "\n  ]")
        s += top.joined(separator: ",\n") + "\n}\n"
        return s
    }

    /// A number rounded to 0.01, without trailing zeros (`-0` written as `0`).
    public static func num(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        if r == 0 { return "0" }
        var t = cFormat("%.2f", r)
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t
    }

    /// A JSON string literal (non-ASCII kept as UTF-8, control characters escaped).
    public static func str(_ s: String) -> String { JSONText.quote(s) }
}
