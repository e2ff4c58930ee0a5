// MARK: - Keystroke dynamics in the CMU benchmark layout (docs/recall-study-data.md)

/// Killourhy & Maxion's `DSL-StrongPasswordData.csv` layout for one string: columns
/// `subject, sessionIndex, rep`, then for each key in typing order `H.k`, and between
/// consecutive keys `DD.k1.k2` and `UD.k1.k2`, in seconds; then `source_file`.
public enum DynamicsTable {
    /// CMU-style token for a key label: letters and digits as they are, a few names as
    /// in the CMU data (`period`, `Shift`, `Return`), other characters `uXXXX`.
    public static func token(_ label: String) -> String {
        let names: [String: String] = [
            ".": "period", ",": "comma", " ": "space", "space": "space", "Shift": "Shift", "ShiftKey": "Shift",
            "Enter": "Return", "Return": "Return", "⌫": "Back", "Backspace": "Back", "Back": "Back",
        ]
        if let n = names[label] { return n }
        if !label.isEmpty,
            label.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
            )
        {
            return label
        }
        return label.unicodeScalars.map { "u" + String($0.value, radix: 16, uppercase: true).leftPadded(4) }.joined()
    }

    /// The tokens of a key sequence, a repeated token numbered from its second
    /// occurrence (`5`, `5#2`), so every column name is unique.
    public static func tokens(_ keys: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return keys.map { k in
            let t = token(k)
            seen[t, default: 0] += 1
            return seen[t]! == 1 ? t : "\(t)#\(seen[t]!)"
        }
    }

    /// The table for string `n`: rows are the correct Entry entries typed without a
    /// deletion whose key sequence is the string's most common one (ties: the first
    /// seen), so every row has the same columns. Returns the table and how many correct,
    /// deletion-free entries were left out for another key sequence.
    public static func table(string n: Int, _ ps: [StudyParticipant]) -> (table: Table, excluded: Int) {
        let all = ps.flatMap { p in p.detail.timings.filter { $0.string == n }.map { (p, $0) } }
        guard let keys = mostCommon(string: n, ps.map(\.contribution)) else {
            return (Table(header: header(keys: []), rows: []), 0)
        }
        let rows = all.filter { $0.1.keys == keys }.map {
            row($0.1, participant: $0.0.summary.participant, sourceFile: $0.0.sourceFile)
        }
        return (Table(header: header(keys: keys), rows: rows), all.count - rows.count)
    }

    /// String `n`'s most common key sequence over the participants in order (ties: the
    /// sequence seen first); nil when no participant has a timing of it. Depends only on
    /// the contributions and their order.
    public static func mostCommon(string n: Int, _ cs: [StudyContribution]) -> [String]? {
        var counts: [[String]: Int] = [:], firstSeen: [[String]] = []
        for c in cs {
            for s in c.sequences where s.string == n {
                if counts[s.keys] == nil { firstSeen.append(s.keys) }
                counts[s.keys, default: 0] += s.count
            }
        }
        let most = counts.values.max() ?? 0
        return firstSeen.first { counts[$0]! == most }
    }

    /// The header for key sequence `keys` (no keys: the four fixed columns only).
    public static func header(keys: [String]) -> [String] {
        let tk = tokens(keys)
        var header = ["subject", "sessionIndex", "rep"]
        for i in tk.indices {
            header.append("H.\(tk[i])")
            if i + 1 < tk.count { header += ["DD.\(tk[i]).\(tk[i + 1])", "UD.\(tk[i]).\(tk[i + 1])"] }
        }
        header.append("source_file")
        return header
    }

    /// One timing's row.
    public static func row(_ t: ParticipantDetail.Timing, participant: String, sourceFile: String) -> [TableCell] {
        var row: [TableCell] = [.text(participant), .int(1), .int(t.order)]
        for i in t.keys.indices {
            row.append(t.hold.isEmpty ? .empty : .number(Double(t.hold[i]) / 1000))
            if i + 1 < t.keys.count {
                row.append(.number(Double(t.downDown[i]) / 1000))
                row.append(t.upDown.isEmpty ? .empty : .number(Double(t.upDown[i]) / 1000))
            }
        }
        row.append(.text(sourceFile))
        return row
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
