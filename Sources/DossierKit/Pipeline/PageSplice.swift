import Escaping
import Foundation

// MARK: - Pages written piece by piece (PageSplice)

extension BuildContext {
    /// Writes a page whose rendered `html` holds ``PageSplice/marker`` (once): the text
    /// before it, the splice's pieces (control characters made visible, as the renderer
    /// does to a whole page), the text after it. Returns the file and the page's links in
    /// page order, as ``LinkChecker/links(in:)`` finds them in the whole page (a piece
    /// never splits an attribute).
    func writeSpliced(_ html: String, _ splice: PageSplice, to path: String, owner: String) throws -> (ManifestFile, [String]) {
        let bytes = html.utf8, marker = PageSplice.marker.utf8
        // A project's own template may leave the part out: the page is then as rendered.
        guard let at = bytes.firstRange(of: marker) else {
            return (try tree!.write(html, to: path, owner: owner), LinkChecker.links(in: html))
        }
        guard bytes[at.upperBound...].firstRange(of: marker) == nil else {
            throw DossierError("page \(path): the splice marker occurs more than once in the rendered page")
        }
        let before = String(html[..<at.lowerBound]), after = String(html[at.upperBound...])
        let stream = try tree!.openStream(path, owner: owner)
        var links = LinkChecker.links(in: before)
        try stream.append(Data(before.utf8))
        try splice.pieces { piece in
            let shown = ControlCharacters.displayUTF8(piece)
            links += LinkChecker.links(in: shown)
            try stream.append(Data(shown.utf8))
        }
        links += LinkChecker.links(in: after)
        try stream.append(Data(after.utf8))
        return (try tree!.finishStream(stream), links)
    }
}
