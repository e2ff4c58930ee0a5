import Foundation
import PackagePlugin

/// Build-tool plugin: compiles folders of files into the target that uses it, through
/// the `dossier-embed` tool, so the built executable is self-contained.
///
/// Which folders a target embeds (paths relative to the package), and the name of the
/// generated enum:
/// - `DossierKit`: `Templates/` and `Site/` as `EmbeddedResources`
/// - `Strength`: its `Resources/` as `EmbeddedStrengthFiles`
/// - `dossier`: `Help/` (the commands' long help) as `EmbeddedHelp`
@main
struct EmbedFolders: BuildToolPlugin {
    static let plan: [String: (enumName: String, folders: [(label: String, path: String)])] = [
        "DossierKit": ("EmbeddedResources", [("Templates", "Templates"), ("Site", "Site")]),
        "Strength": ("EmbeddedStrengthFiles", [("", "Sources/Strength/Resources")]),
        "dossier": ("EmbeddedHelp", [("", "Help")]),
    ]

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let plan = Self.plan[target.name] else { return [] }
        let fm = FileManager.default
        var specs: [String] = []
        var inputs: [URL] = []
        for (label, path) in plan.folders {
            let folder = context.package.directoryURL.appending(path: path)
            specs.append("\(label)=\(folder.path)")
            if let e = fm.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                     options: [.skipsHiddenFiles]) {
                for case let url as URL in e
                where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    inputs.append(url)
                }
            }
        }
        let out = context.pluginWorkDirectoryURL.appending(path: "\(plan.enumName).swift")
        return [.buildCommand(
            displayName: "Embedding \(plan.folders.map { $0.path }.joined(separator: ", ")) into \(target.name)",
            executable: try context.tool(named: "dossier-embed").url,
            arguments: [out.path, plan.enumName] + specs,
            inputFiles: inputs.sorted { $0.path < $1.path },
            outputFiles: [out])]
    }
}
