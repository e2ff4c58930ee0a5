#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Gives the checkboxes of GFM task lists (`- [ ]`, `- [x]`) an accessible name.
///
/// cmark-gfm's tasklist extension writes `<input type="checkbox" disabled="" />` and
/// `<input type="checkbox" checked="" disabled="" />`, which a screen reader announces
/// as an unnamed checkbox (axe-core: critical). Each gets `aria-label="Done"` or
/// `aria-label="Not done"` (docs/manifest.md, "Markdown"); the item's text follows it.
enum TaskListLabels {
    static let unchecked = Array(#"<input type="checkbox" disabled="" />"#.utf8)
    static let checked = Array(#"<input type="checkbox" checked="" disabled="" />"#.utf8)
    static let uncheckedLabelled = Array(#"<input type="checkbox" disabled="" aria-label="Not done" />"#.utf8)
    static let checkedLabelled = Array(#"<input type="checkbox" checked="" disabled="" aria-label="Done" />"#.utf8)

    /// `html` with every task checkbox labelled, or nil when it has none (the common
    /// case: the HTML is then used as it is).
    static func labelled(_ html: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard ByteSearch.find(#"<input type="checkbox" "#, in: html, from: 0) != nil else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(html.count + 64)
        var i = 0
        while i < html.count {
            if html[i] == 0x3C {
                if matches(html, at: i, unchecked) {
                    out += uncheckedLabelled; i += unchecked.count; continue
                }
                if matches(html, at: i, checked) {
                    out += checkedLabelled; i += checked.count; continue
                }
            }
            out.append(html[i])
            i += 1
        }
        return out
    }

    static func matches(_ html: UnsafeBufferPointer<UInt8>, at i: Int, _ pattern: [UInt8]) -> Bool {
        guard i + pattern.count <= html.count else { return false }
        for k in 0..<pattern.count where html[i + k] != pattern[k] { return false }
        return true
    }
}
