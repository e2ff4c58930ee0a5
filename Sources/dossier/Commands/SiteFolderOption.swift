import ArgumentParser

/// `--site FOLDER`, shared by the commands that read a built site (archive, publish): a
/// site folder given instead of the project's output, its manifest beside it
/// (`<folder>.manifest.json`, as `dossier build` writes one).
struct SiteFolderOption: ParsableArguments {
    @Option(help: ArgumentHelp("Use this site folder instead of the project's output (its manifest is "
                                + "<folder>.manifest.json beside it)."))
    var site: String?

    /// The folder given with --site and its manifest; nil without --site.
    var given: (folder: URL, manifest: URL)? {
        guard let site else { return nil }
        let folder = URL(fileURLWithPath: site).standardizedFileURL
        let manifest = folder.lastPathComponent + ".manifest.json"
        return (folder, folder.deletingLastPathComponent().appendingPathComponent(manifest))
    }
}
