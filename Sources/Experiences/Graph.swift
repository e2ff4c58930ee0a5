#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Graph analysis

/// The door graph of an experience: which panoramas the child can reach, where they get
/// stuck, and the shortest way to the end.
public struct GraphAnalysis: Sendable, Equatable, Codable {
    public struct Edge: Sendable, Equatable, Codable, Hashable {
        public var from: String
        public var to: String
        public var label: String
    }

    /// Panorama ids in file order.
    public var nodes: [String]
    /// Every door, in file order (doors to missing panoramas are left out).
    public var edges: [Edge]
    public var first: String
    /// The final panorama: `finalPanorama` if given, else the last in file order.
    public var final: String
    /// Reachable from the first panorama through doors, in breadth-first order.
    public var reachable: [String]
    /// Not reachable (file order).
    public var unreachable: [String]
    /// Reachable panoramas with no door out that are not the final panorama (file order).
    public var deadEnds: [String]
    /// Sound and video triggers per panorama id.
    public var clipsPerPanorama: [String: Int]
    public var totalClips: Int
    /// Clips the child must play to finish: those of the final panorama.
    public var finalClips: Int
    /// Fewest doors from first to final, as panorama ids (first…final); `nil` if unreachable.
    public var shortestPath: [String]?
    /// Whether some door leads back to a panorama already on the way (a loop).
    public var hasCycle: Bool

    public init(_ e: Experience) {
        nodes = e.panoramas.map(\.id)
        let ids = Set(nodes)
        edges = e.panoramas.flatMap { p in
            p.triggers.compactMap { t in
                guard t.kind == .door, let to = t.target, ids.contains(to) else { return nil }
                return Edge(from: p.id, to: to, label: t.label)
            }
        }
        first = e.firstPanorama
        final = e.finalPanoramaID
        var adj: [String: [String]] = [:]
        for edge in edges { adj[edge.from, default: []].append(edge.to) }

        // Breadth-first search from the first panorama; parents give the shortest path.
        var parent: [String: String] = [:]
        var order: [String] = []
        if ids.contains(first) {
            var seen: Set<String> = [first]
            var queue = [first]
            var head = 0
            while head < queue.count {
                let n = queue[head]; head += 1
                order.append(n)
                for m in adj[n] ?? [] where seen.insert(m).inserted {
                    parent[m] = n
                    queue.append(m)
                }
            }
        }
        reachable = order
        let reach = Set(order)
        unreachable = nodes.filter { !reach.contains($0) }
        let fin = final
        deadEnds = nodes.filter { reach.contains($0) && $0 != fin && (adj[$0] ?? []).isEmpty }
        var clips: [String: Int] = [:]
        for p in e.panoramas { clips[p.id] = p.clips.count }
        clipsPerPanorama = clips
        totalClips = clips.values.reduce(0, +)
        finalClips = clips[fin] ?? 0
        if reach.contains(fin) {
            var path = [fin]
            while let p = parent[path[0]] { path.insert(p, at: 0) }
            shortestPath = path
        } else { shortestPath = nil }

        // Cycle detection over the whole graph (iterative three-colour DFS).
        var color: [String: Int] = [:]
        var cycle = false
        for start in nodes where color[start] == nil && !cycle {
            var stack: [(String, Int)] = [(start, 0)]
            color[start] = 1
            while let (n, i) = stack.last, !cycle {
                let next = adj[n] ?? []
                if i < next.count {
                    stack[stack.count - 1].1 += 1
                    let m = next[i]
                    if color[m] == 1 { cycle = true } else if color[m] == nil { color[m] = 1; stack.append((m, 0)) }
                } else { color[n] = 2; stack.removeLast() }
            }
        }
        hasCycle = cycle
    }

    /// Warnings about the graph, located at the panorama's line.
    public func issues(for e: Experience) -> [ExperienceIssue] {
        var out: [ExperienceIssue] = []
        func line(_ id: String) -> Int? { e.panorama(id)?.line }
        for id in unreachable {
            out.append(
                .warning(e.file, line(id), "panorama \"\(id)\" cannot be reached from the first panorama \"\(first)\""))
        }
        for id in deadEnds {
            out.append(
                .warning(
                    e.file, line(id),
                    "panorama \"\(id)\" is a dead end: it has no door and is not the final panorama \"\(final)\""))
        }
        if shortestPath == nil, !nodes.isEmpty {
            out.append(
                .warning(
                    e.file, e.lines["finalPanorama"] ?? line(final),
                    "the final panorama \"\(final)\" cannot be reached, so the experience can never be finished"))
        }
        return out
    }
}
