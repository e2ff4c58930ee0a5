#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping
import TextBasics

// MARK: - The graph drawn as SVG

/// Draws an experience's door graph as a standalone SVG: one box per panorama (its
/// thumbnail, title and clip count), arrows for doors. Columns are the number of doors
/// from the first panorama; unreachable panoramas stand in a last, dashed column.
public enum GraphSVG {
    static let boxW = 168.0, boxH = 128.0, imgH = 84.0, gapX = 84.0, gapY = 36.0, pad = 24.0

    /// `thumbnail` gives the `href` of a panorama's image (relative to the page), or `nil`.
    public static func render(_ e: Experience, _ g: GraphAnalysis, thumbnail: (Panorama) -> String?) -> String {
        // Depth of each node by breadth-first order.
        var depth: [String: Int] = [:]
        if let f = g.reachable.first { depth[f] = 0 }
        var adj: [String: [String]] = [:]
        for edge in g.edges { adj[edge.from, default: []].append(edge.to) }
        for n in g.reachable { for m in adj[n] ?? [] where depth[m] == nil { depth[m] = (depth[n] ?? 0) + 1 } }
        let maxDepth = depth.values.max() ?? 0
        let unreachableCol = maxDepth + 1
        var columns: [Int: [String]] = [:]
        for n in g.nodes { columns[depth[n] ?? unreachableCol, default: []].append(n) }
        var pos: [String: (Double, Double)] = [:]
        for (col, ids) in columns { for (row, id) in ids.enumerated() {
            pos[id] = (pad + Double(col) * (boxW + gapX), pad + 20 + Double(row) * (boxH + gapY))
        } }
        let cols = (columns.keys.max() ?? 0) + 1
        let rows = columns.values.map(\.count).max() ?? 1
        let width = pad * 2 + Double(cols) * boxW + Double(cols - 1) * gapX
        let height = pad * 2 + 20 + Double(rows) * boxH + Double(rows - 1) * gapY
        let title = e.title ?? e.slug

        var s =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"experience-graph\" viewBox=\"0 0 \(n(width)) "
                + "\(n(height))\" width=\"\(n(width))\" height=\"\(n(height))\" role=\"img\" "
                + "aria-labelledby=\"graph-title graph-desc\">\n"
        s += "<title id=\"graph-title\">Panoramas and doors of \(x(title))</title>\n"
        let pathText =
            g.shortestPath.map { $0.joined(separator: " → ") } ?? "none: the final panorama cannot be reached"
        s +=
            "<desc id=\"graph-desc\">\(g.nodes.count) panoramas, \(g.edges.count) doors. Start: \(x(g.first)). Final: "
                + "\(x(g.final)). Shortest path: \(x(pathText)).</desc>\n"
        s +=
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
                + "markerWidth=\"11\" markerHeight=\"11\" orient=\"auto-start-reverse\"><path class=\"door-head\" "
                + "d=\"M0,0 L10,5 L0,10 z\" fill=\"#4a5a6a\"/></marker></defs>\n"
        if columns[unreachableCol] != nil {
            let ux = pad + Double(unreachableCol) * (boxW + gapX)
            s +=
                "<text x=\"\(n(ux))\" y=\"\(n(pad + 8))\" class=\"graph-note\" font-size=\"13\" "
                    + "fill=\"#8a4b00\">Cannot be reached</text>\n"
        }
        // Doors.
        let onPath = Set(zip(g.shortestPath ?? [], (g.shortestPath ?? []).dropFirst()).map { "\($0)>\($1)" })
        var drawn = Set<String>()
        for edge in g.edges where drawn.insert("\(edge.from)>\(edge.to)").inserted {
            guard let a = pos[edge.from], let b = pos[edge.to] else { continue }
            let strong = onPath.contains("\(edge.from)>\(edge.to)")
            let stroke = strong ? "#1f6f43" : "#4a5a6a"
            let w = strong ? 3 : 1.5
            var d: String
            if edge.from == edge.to {
                d =
                    "M\(n(a.0 + boxW - 30)),\(n(a.1)) C\(n(a.0 + boxW - 30)),\(n(a.1 - 30)) "
                        + "\(n(a.0 + boxW + 20)),\(n(a.1 - 30)) \(n(a.0 + boxW)),\(n(a.1 + 10))"
            } else if b.0 > a.0 {
                d = "M\(n(a.0 + boxW)),\(n(a.1 + boxH / 2)) L\(n(b.0)),\(n(b.1 + boxH / 2))"
            } else {
                // Backwards or same column: curve below the boxes.
                let y0 = a.1 + boxH, y1 = b.1 + boxH
                let cy = max(y0, y1) + gapY * 0.8
                d =
                    "M\(n(a.0 + boxW / 2 + 12)),\(n(y0)) C\(n(a.0 + boxW / 2 + 12)),\(n(cy)) "
                        + "\(n(b.0 + boxW / 2 - 12)),\(n(cy)) \(n(b.0 + boxW / 2 - 12)),\(n(y1))"
            }
            s +=
                "<path class=\"\(strong ? "door door-path" : "door")\" d=\"\(d)\" fill=\"none\" stroke=\"\(stroke)\" "
                    + "stroke-width=\"\(w)\" marker-end=\"url(#arrow)\"><title>Door \(x(edge.label)): \(x(edge.from)) "
                    + "→ \(x(edge.to))</title></path>\n"
        }
        // Panoramas.
        let unreachable = Set(g.unreachable), dead = Set(g.deadEnds)
        for p in e.panoramas {
            guard let (px, py) = pos[p.id] else { continue }
            let border = unreachable.contains(p.id) ? "#8a4b00" : (p.id == g.final ? "#1f6f43" : "#4a5a6a")
            let dash = unreachable.contains(p.id) ? " stroke-dasharray=\"6 4\"" : ""
            let bw = p.id == g.final ? 3 : 1.5
            s += "<g class=\"graph-node\" data-panorama=\"\(x(p.id))\"><title>\(x(p.title))</title>\n"
            s +=
                "<rect x=\"\(n(px))\" y=\"\(n(py))\" width=\"\(n(boxW))\" height=\"\(n(boxH))\" rx=\"8\" "
                    + "fill=\"#ffffff\" stroke=\"\(border)\" stroke-width=\"\(bw)\"\(dash)/>\n"
            if let href = thumbnail(p) {
                s +=
                    "<image href=\"\(x(href))\" x=\"\(n(px + 4))\" y=\"\(n(py + 4))\" width=\"\(n(boxW - 8))\" "
                        + "height=\"\(n(imgH - 4))\" preserveAspectRatio=\"xMidYMid slice\"/>\n"
            }
            let clips = g.clipsPerPanorama[p.id] ?? 0
            var tags: [String] = []
            if p.id == g.first { tags.append("start") }
            if p.id == g.final { tags.append("final") }
            if dead.contains(p.id) { tags.append("dead end") }
            s +=
                "<text x=\"\(n(px + 8))\" y=\"\(n(py + imgH + 18))\" font-size=\"14\" font-weight=\"600\" "
                    + "fill=\"#1d2731\">\(x(clip(p.title, 20)))</text>\n"
            let sub =
                "\(clips) clip\(clips == 1 ? "" : "s")" + (tags.isEmpty ? "" : " · " + tags.joined(separator: ", "))
            s +=
                "<text x=\"\(n(px + 8))\" y=\"\(n(py + imgH + 36))\" font-size=\"12\" "
                    + "fill=\"#4a5a6a\">\(x(sub))</text>\n"
            s += "</g>\n"
        }
        s += "</svg>\n"
        return s
    }

    static func clip(_ s: String, _ max: Int) -> String { s.count <= max ? s : String(s.prefix(max - 1)) + "…" }
    static func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : cFormat("%.1f", v) }

    /// XML text and attribute escaping.
    public static func x(_ s: String) -> String { XMLText.escape(s) }
}
