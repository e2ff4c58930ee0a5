// Generated from Batcher's odd–even merge sort (`SortingNetwork.oddEvenMerge` in the tests); the
// network written out so its values stay in registers. `WalkTwinTests` checks each
// against the network's pairs applied in order, and every list of zeros and ones.

/// Sorts the first 8 of the 16 slots by the 19 compare-exchanges of Batcher's network.
@inline(__always) func sortByNetwork8(_ s: inout InlineArray<16, Int>) { sortByNetwork(&s, sixteen: false) }

/// Sorts the first 16 of the 16 slots by the 63 compare-exchanges of Batcher's network.
@inline(__always) func sortByNetwork16(_ s: inout InlineArray<16, Int>) { sortByNetwork(&s, sixteen: true) }

/// The first 8 slots by the 8-network; with `sixteen`, also the last 8, then the 25
/// compare-exchanges of the merge (the two halves' compare-exchanges touch different slots,
/// so one half after the other gives what the interleaved 16-network gives). Inlined with
/// a constant `sixteen`, so no branch is left.
@inline(__always) private func sortByNetwork(_ s: inout InlineArray<16, Int>, sixteen: Bool) {
    var v0 = s[0]
    var v1 = s[1]
    var v2 = s[2]
    var v3 = s[3]
    var v4 = s[4]
    var v5 = s[5]
    var v6 = s[6]
    var v7 = s[7]
    sortEight(&v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7)
    if sixteen {
        var v8 = s[8]
        var v9 = s[9]
        var v10 = s[10]
        var v11 = s[11]
        var v12 = s[12]
        var v13 = s[13]
        var v14 = s[14]
        var v15 = s[15]
        sortEight(&v8, &v9, &v10, &v11, &v12, &v13, &v14, &v15)
        (v0, v8) = (min(v0, v8), max(v0, v8))
        (v1, v9) = (min(v1, v9), max(v1, v9))
        (v2, v10) = (min(v2, v10), max(v2, v10))
        (v3, v11) = (min(v3, v11), max(v3, v11))
        (v4, v12) = (min(v4, v12), max(v4, v12))
        (v5, v13) = (min(v5, v13), max(v5, v13))
        (v6, v14) = (min(v6, v14), max(v6, v14))
        (v7, v15) = (min(v7, v15), max(v7, v15))
        (v4, v8) = (min(v4, v8), max(v4, v8))
        (v5, v9) = (min(v5, v9), max(v5, v9))
        (v6, v10) = (min(v6, v10), max(v6, v10))
        (v7, v11) = (min(v7, v11), max(v7, v11))
        (v2, v4) = (min(v2, v4), max(v2, v4))
        (v3, v5) = (min(v3, v5), max(v3, v5))
        (v6, v8) = (min(v6, v8), max(v6, v8))
        (v7, v9) = (min(v7, v9), max(v7, v9))
        (v10, v12) = (min(v10, v12), max(v10, v12))
        (v11, v13) = (min(v11, v13), max(v11, v13))
        (v1, v2) = (min(v1, v2), max(v1, v2))
        (v3, v4) = (min(v3, v4), max(v3, v4))
        (v5, v6) = (min(v5, v6), max(v5, v6))
        (v7, v8) = (min(v7, v8), max(v7, v8))
        (v9, v10) = (min(v9, v10), max(v9, v10))
        (v11, v12) = (min(v11, v12), max(v11, v12))
        (v13, v14) = (min(v13, v14), max(v13, v14))
        s[8] = v8
        s[9] = v9
        s[10] = v10
        s[11] = v11
        s[12] = v12
        s[13] = v13
        s[14] = v14
        s[15] = v15
    }
    s[0] = v0
    s[1] = v1
    s[2] = v2
    s[3] = v3
    s[4] = v4
    s[5] = v5
    s[6] = v6
    s[7] = v7
}

/// The 19 compare-exchanges of Batcher's 8-network on eight values (inlined: they stay in
/// registers), each a `min` and a `max` without a branch.
@inline(__always) private func sortEight(_ v0: inout Int, _ v1: inout Int, _ v2: inout Int, _ v3: inout Int,
                                         _ v4: inout Int, _ v5: inout Int, _ v6: inout Int, _ v7: inout Int) {
    (v0, v1) = (min(v0, v1), max(v0, v1))
    (v2, v3) = (min(v2, v3), max(v2, v3))
    (v4, v5) = (min(v4, v5), max(v4, v5))
    (v6, v7) = (min(v6, v7), max(v6, v7))
    (v0, v2) = (min(v0, v2), max(v0, v2))
    (v1, v3) = (min(v1, v3), max(v1, v3))
    (v4, v6) = (min(v4, v6), max(v4, v6))
    (v5, v7) = (min(v5, v7), max(v5, v7))
    (v1, v2) = (min(v1, v2), max(v1, v2))
    (v5, v6) = (min(v5, v6), max(v5, v6))
    (v0, v4) = (min(v0, v4), max(v0, v4))
    (v1, v5) = (min(v1, v5), max(v1, v5))
    (v2, v6) = (min(v2, v6), max(v2, v6))
    (v3, v7) = (min(v3, v7), max(v3, v7))
    (v2, v4) = (min(v2, v4), max(v2, v4))
    (v3, v5) = (min(v3, v5), max(v3, v5))
    (v1, v2) = (min(v1, v2), max(v1, v2))
    (v3, v4) = (min(v3, v4), max(v3, v4))
    (v5, v6) = (min(v5, v6), max(v5, v6))
}
