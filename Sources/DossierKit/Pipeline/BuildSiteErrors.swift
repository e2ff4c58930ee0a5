#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors of a build named where the reader can find the file: a site file that could not
/// be written in the staging folder (`.<output>.staging-<pid>/…`, removed before the message
/// is read) is named by its place in the site (docs/limits.md, "File-system errors").
enum BuildSiteErrors {
    static func named(_ diagnostics: [Diagnostic], staging: URL?, output: String) -> [Diagnostic] {
        guard let staging else { return diagnostics }
        let inside = staging.path + "/"
        return diagnostics.map { d in
            guard let file = d.file, file.hasPrefix(inside) else { return d }
            var named = d
            named.file = output + "/" + file.dropFirst(inside.count)
            return named
        }
    }
}
