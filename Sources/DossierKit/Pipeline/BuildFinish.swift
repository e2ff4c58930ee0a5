import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import StudyStore
import WebDAV

/// Build step 9: the sitemap, the site manifest and the build state.
extension BuildContext {
    // MARK: 9. Write

    func finish() throws {
        var all = siteFiles()
        // sitemap.xml: every HTML page, sorted.
        let xml = Sitemap.xml(paths: all.map(\.path), baseURL: project.baseURL, notFound: Self.notFoundPath)
        let sitemap = try xml.withUnsafeBytes { try tree!.write(bytes: $0, to: "sitemap.xml", owner: "sitemap") }
        // The sorted list once more with the sitemap in its place (not sorted again:
        // 10,000 paths at 2,000 participants).
        all.insert(sitemap, at: all.firstIndex { !$0.path.utf8.lexicographicallyPrecedes(sitemap.path.utf8) }
                   ?? all.count)
        report.files = all.count
        if options.checkOnly {   // its units are in the scratch folder, which Builder.build removes
            tree!.discard()
            return
        }
        // (The bytes the project was parsed from, not the file as it is now.)
        recordInput(project.manifestURL, sha256: project.manifestSHA256, size: project.manifestSize)
        let manifest = SiteManifest(files: all, inputs: inputs.values.sorted {
            $0.path.utf8.lexicographicallyPrecedes($1.path.utf8)
        })
        newState.site = all
        let keepState = stateUnchanged()
        if tree!.patchTarget != nil {
            log.detail("\(tree!.writtenCount) changed file\(tree!.writtenCount == 1 ? "" : "s") written")
            // Should the patch be interrupted, the next build must not trust this state
            // (a patch that changes nothing keeps it: it describes the site before and after).
            if !keepState { try? FileManager.default.removeItem(at: statePath) }
        }
        // A first build: the manifest (Dossier's mark on the folder, see OutputFolder)
        // exists before the folder does, so a kill between the two never leaves an
        // output folder the next build would refuse as not its own.
        let fresh = !FileManager.default.fileExists(atPath: output.path)
        let manifestURL = options.output == nil ? project.outputManifestURL
            : output.deletingLastPathComponent().appendingPathComponent(output.lastPathComponent + ".manifest.json")
        if fresh { try writeManifest(manifest, to: manifestURL) }
        // Files about to change under a manifest that describes the old ones: marked
        // in progress until the new manifest is in place (docs/output-manifest.md).
        let marker = SiteManifest.incompleteMarker(for: manifestURL)
        let changing = !fresh && !(tree!.patchTarget != nil && tree!.writtenCount == 0)
        if changing { try Data().write(to: marker) }
        liveTouched = changing || fresh
        try tree!.commit(to: output)
        PausePoint.reached("site-committed")   // (tests start a second build here: debug builds only)
        try FaultPoint.hit("build: the site manifest")
        // Not fsynced: like every output file it is derived and rewritten by each build;
        // the rename still means a reader sees the old manifest or the new one, never half.
        // A manifest equal byte for byte to the one on disk is left as it is: no new
        // file, no rename. Only a patch that wrote no file can leave it equal often
        // enough to be worth comparing (its inputs may still have changed).
        if !fresh,
            !(tree!.patchTarget != nil && tree!.writtenCount == 0 && manifestOnDisk(equals: manifest, at: manifestURL))
        {
            try writeManifest(manifest, to: manifestURL)
        }
        if changing || FileManager.default.fileExists(atPath: marker.path) { unlink(marker.path) }
        report.manifest = manifestURL
        if keepState {
            log.detail("nothing changed: the build state is kept as it is")
        } else {
            try FileManager.default.createDirectory(at: project.stateFolder, withIntermediateDirectories: true)
            try newState.save(statePath)
        }
        sweepBlobs()
    }

    /// Whether the new state would be byte for byte the previous one, so saving it can be
    /// skipped (its encoding and write were a fifth of a no-change build at 2,000
    /// participants): a patch in which every unit was reused (so every unit is the
    /// previous one, under the same key, when the counts agree), every input's SHA-256
    /// came from its stamp (so every stamp is the previous one, under the same path,
    /// when the counts agree) and the site's file list is the previous one.
    func stateUnchanged() -> Bool {
        guard let prev = previous, tree!.patchTarget != nil, report.unitsBuilt == 0, inputsHashed == 0,
              newState.units.count == prev.units.count, newState.inputs.count == prev.inputs.count,
              newState.dossier == prev.dossier, newState.output == prev.output,
              FileManager.default.fileExists(atPath: statePath.path) else { return false }
        return newState.site == prev.site
    }

    /// Every file of the site so far, sorted by path in UTF-8 byte order (docs/output-manifest.md;
    /// not Swift's `<`, which orders canonically equivalent spellings together): each unit's
    /// and the loose ones (room for the sitemap, inserted in place, not into a copy).
    func siteFiles() -> [ManifestFile] {
        var all: [ManifestFile] = []
        all.reserveCapacity(newState.units.values.reduce(looseFiles.count + 1) { $0 + $1.files.count })
        for u in newState.units.values { all += u.files }
        all += looseFiles
        all.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return all
    }

    /// The stored blob of the unit whose hash is `hash`. (A blob is a file: the hint
    /// spares `appendingPathComponent`'s `stat`, 12 µs a call, 2,000 calls a build.)
    func blobURL(_ hash: String) -> URL { blobFolder.appending(path: hash, directoryHint: .notDirectory) }

    /// Removes blobs no unit of the saved state names (units rebuilt or gone, temp files
    /// of killed builds). Runs after the state is saved: a kill before leaves extra
    /// files, never a state naming a missing blob (and a missing one rebuilds its unit).
    func sweepBlobs() {
        let kept = Set(newState.units.values.compactMap { $0.blobSize == nil ? nil : $0.hash })
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: blobFolder.path) else { return }
        for name in names where !kept.contains(name) {
            unlink(blobFolder.path + "/" + name)
        }
    }
}
