#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Runs `body` over `items` in a task group of at most `limit` tasks (default: the
/// number of active cores), returning results in input order.
public func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T], limit: Int = ProcessInfo.processInfo.activeProcessorCount,
    _ body: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    if items.isEmpty { return [] }
    let width = max(1, min(limit, items.count))
    return try await withThrowingTaskGroup(of: (Int, R).self) { group in
        var results = [R?](repeating: nil, count: items.count)
        var next = 0
        for _ in 0..<width {
            let i = next; next += 1
            group.addTask { (i, try await body(items[i])) }
        }
        while let (i, r) = try await group.next() {
            results[i] = r
            if next < items.count {
                let j = next; next += 1
                group.addTask { (j, try await body(items[j])) }
            }
        }
        // Each result moved out of its slot, not copied (a copy of a content page's result
        // and the slot's release were a dozen reference counts a page).
        var out: [R] = []
        out.reserveCapacity(results.count)
        for i in results.indices {
            var slot: R? = nil
            swap(&slot, &results[i])
            out.append(slot!)
        }
        return out
    }
}
