#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
import Dispatch
#else
import Foundation
#endif

/// Runs `body` over `items` on every core and returns the results in input order: the
/// synchronous sibling of ``concurrentMap(_:limit:_:)`` for CPU- and file-bound work
/// inside a build step (hashing inputs, reading content pages).
func parallelMap<T, R>(_ items: [T], _ body: (T) -> R) -> [R] {
    if items.count < 2 { return items.map(body) }
    let box = ResultsBox<R>(count: items.count)
    withoutActuallyEscaping(body) { body in
        let work = UncheckedSendable(body)
        let input = UncheckedSendable(items)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            box.set(i, work.value(input.value[i]))
        }
    }
    return box.values()
}

/// Slots written by distinct iterations (no two write the same index), read after all
/// finished. A raw buffer: no exclusivity check between concurrent writers.
private final class ResultsBox<R>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<R?>
    private let count: Int
    /// Set by ``values()``, which moves every result out of its slot.
    private var taken = false
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }
    deinit {
        if !taken { slots.deinitialize(count: count) }
        slots.deallocate()
    }
    func set(_ i: Int, _ r: R) { slots[i] = r }
    /// The results, moved out of their slots (not copied: a copy of a content page and the
    /// slot's release were a dozen reference counts a page); call once.
    func values() -> [R] {
        precondition(!taken)
        taken = true
        return [R](unsafeUninitializedCapacity: count) { out, made in
            for i in 0..<count { (out.baseAddress! + i).initialize(to: (slots + i).move()!) }
            made = count
        }
    }
}

private struct UncheckedSendable<V>: @unchecked Sendable {
    let value: V
    init(_ value: V) { self.value = value }
}
