#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// How the link check reports dangling and unsafe links: grouped by the file that wrote
/// them, at most ``perFile`` lines per file and ``maxFiles`` files, each cut with a count,
/// and one closing line with the totals, so a site with 20,000 broken links gets a
/// report a person reads (docs/manifest.md, "Links").
enum LinkReport {
    static let perFile = 10
    static let maxFiles = 30

    /// `diagnostics` (one per bad link, in page order) grouped by `file`, in the order
    /// each file first appears; empty stays empty.
    static func grouped(_ diagnostics: [Diagnostic], perFile: Int = perFile, maxFiles: Int = maxFiles) -> [Diagnostic] {
        guard !diagnostics.isEmpty else { return [] }
        var order: [String] = []
        var byFile: [String: [Diagnostic]] = [:]
        for d in diagnostics {
            let key = d.file ?? ""
            if byFile[key] == nil { order.append(key) }
            byFile[key, default: []].append(d)
        }
        var out: [Diagnostic] = []
        for key in order.prefix(maxFiles) {
            let list = byFile[key]!
            out += list.prefix(perFile)
            if list.count > perFile {
                let more = "… and \(list.count - perFile) more bad links in this file (\(list.count) in all)"
                out.append(Diagnostic(.error, file: key.isEmpty ? nil : key, line: nil, more))
            }
        }
        if order.count > maxFiles {
            let rest = order.dropFirst(maxFiles)
            let n = rest.reduce(0) { $0 + byFile[$1]!.count }
            out.append(Diagnostic("… and \(n) more bad links in \(rest.count) more files"))
        }
        let linkWord = diagnostics.count == 1 ? "link" : "links"
        let fileWord = order.count == 1 ? "file" : "files"
        out.append(Diagnostic("\(diagnostics.count) bad \(linkWord) in \(order.count) \(fileWord): "
            + "link to a file of the site (a folder needs its index.html), then build again"))
        return out
    }
}
