import Escaping

/// Ids from inputs (participant ids, player ids…) become folder names, CSV keys and
/// page titles: a control character in one is an error at its file and line
/// (docs/json-and-csv.md, "Control characters").
public enum Identifier {
    /// Throws `file:line: <what> '…' holds a control character (U+XXXX)` when `id`
    /// holds one.
    public static func check(_ id: String, what: String, file: String, line: Int?) throws {
        guard let (bad, _) = ControlCharacters.firstControl(in: id) else { return }
        let code = String(bad.value, radix: 16, uppercase: true)
        throw DossierError(
            file: file, line: line,
            "\(what) '\(ControlCharacters.visible(id))' holds a control character "
                + "(U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)); ids may not"
        )
    }
}
