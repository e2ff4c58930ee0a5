#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

/// Where a summary writes its streamed files (``UnitResult/streams``): each file is
/// opened, filled piece by piece and finished; the pipeline records what was written.
/// CSV files get the project's byte-order mark (`csv: bom:`) like every other CSV.
public final class OutputStreams: @unchecked Sendable {
    private let tree: OutputTree
    private let owner: String
    private let csvBOM: Bool
    private(set) var written: [ManifestFile] = []

    init(tree: OutputTree, owner: String, csvBOM: Bool) {
        self.tree = tree
        self.owner = owner
        self.csvBOM = csvBOM
    }

    /// Opens the file at `path` (site-relative). Several may be open at once (one pass
    /// over the units fills them all); finish each with ``finish(_:)``.
    public func open(_ path: String) throws -> OutputFileStream {
        let s = try tree.openStream(path, owner: owner)
        if csvBOM && path.hasSuffix(".csv") { try s.append(CSVWriter.bom) }
        return s
    }

    public func finish(_ s: OutputFileStream) throws {
        written.append(try tree.finishStream(s))
    }
}
