import ArgumentParser
import DossierKit
import Render

/// `dossier markdown FILE`: renders one Markdown file to HTML on standard output exactly
/// as content pages are rendered (GFM extensions, safe mode, heading anchors), with no
/// front matter handling, layout or site. Hidden: it exists so the benchmarks can time
/// Dossier's Markdown renderer against the `cmark-gfm` command on the same file.
struct MarkdownCommand: ParsableCommand {
    static let configuration = HelpText.command("markdown", hidden: true)

    @Argument(help: "The Markdown file to render.", completion: .file())
    var file: String
    @Flag(help: "Keep raw HTML (as `markdown: {unsafe: true}` in dossier.yml).")
    var unsafe = false
    @Flag(help: "Curly quotes and dashes (as `markdown: {smart: true}`).")
    var smart = false
    @OptionGroup var quiet: QuietFlag

    func run() throws { try Self.render(file: file, unsafe: unsafe, smart: smart) }

    /// `dossier markdown FILE` with no options is also answered before the command line is
    /// parsed (see `Dossier.main`): argument parsing looks up protocol conformances in the
    /// whole binary, which was most of this command's start-up.
    static func render(file: String, unsafe: Bool = false, smart: Bool = false) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DossierError(file: file, "cannot read file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // The file is fed to the parser in pieces and the HTML written out in pieces
        // through one buffer, as the `cmark-gfm` command does.
        let out = BufferedOutput(fd: 1)
        do {
            _ = try Markdown.render(
                fileDescriptor: fd, options: MarkdownOptions(unsafeHTML: unsafe, smartPunctuation: smart)
            ) {
                out.write($0)
            }
        } catch {
            throw DossierError(file: file, "cannot read file: \(error)")
        }
        try out.flush()
    }
}

/// Writes to a file descriptor through a 64 KiB buffer; large pieces go straight through.
/// The first failed write (a full disk, a closed pipe) is kept, later writes are dropped,
/// and ``flush()`` throws it: output that did not arrive is an error, not a success.
final class BufferedOutput {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var failure: Int32 = 0
    init(fd: Int32) { self.fd = fd; buffer.reserveCapacity(1 << 16) }
    func write(_ bytes: UnsafeRawBufferPointer) {
        if buffer.count + bytes.count > (1 << 16) { drain() }
        if bytes.count >= (1 << 16) { raw(bytes); return }
        buffer.append(contentsOf: bytes)
    }
    /// Writes what is buffered; throws the first write error met since the start.
    func flush() throws {
        drain()
        if failure != 0 {
            throw DossierError(file: "standard output", "cannot write: \(String(cString: strerror(failure)))")
        }
    }
    private func drain() {
        buffer.withUnsafeBytes { raw($0) }
        buffer.removeAll(keepingCapacity: true)
    }
    private func raw(_ bytes: UnsafeRawBufferPointer) {
        var off = 0
        while failure == 0, off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = n < 0 ? errno : EIO; return }
            off += n
        }
    }
}
