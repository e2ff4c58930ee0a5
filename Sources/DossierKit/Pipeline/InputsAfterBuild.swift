#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import StudyStore

/// A unit's inputs as the plan stamped them, checked once the unit was built
/// (docs/incremental.md, "A file written while its unit is built").
///
/// The plan hashes each input (or takes its digest from the last build's stamp), and the
/// unit reads the file again later, while it is built: a vault export, a desktop log, an
/// experience's media. A write in between would build the unit from one version and
/// record it under the key and manifest digest of the other. So after the unit is built,
/// each input it read as a plain file must still have the plan's stamp (size, mtime and
/// ctime in ns, inode, device): the same stamp at both ends means no write in between.
/// Left out: a unit's own input read once (``SectionUnit/readsOwnInput``: its key is made
/// from the bytes it parsed), secret inputs (their bytes are recorded nowhere) and
/// ``SectionUnit/snapshotInputs`` (a database read in one snapshot while others write it),
/// and the files the section read before the plan (`readEarly`: ``Section/inputsReadEarly``
/// and ``Section/inputStampsReadEarly``, which the plan already checked and the unit does
/// not read again — a keystore another project's build opens meanwhile does not matter).
extension BuildContext {
    func checkInputsUnchangedSincePlan(_ pu: PlannedUnit, readEarly: Set<String>) throws {
        let u = pu.unit
        for (k, path) in u.inputPaths.enumerated() {
            if k == 0 && pu.laterHash != nil { continue }
            if u.secretPaths.contains(path) || u.snapshotInputs.contains(path) || readEarly.contains(path) { continue }
            lock.lock(); let planned = newState.inputs[path]; lock.unlock()
            // (No stamp: the file changed while the plan read it.)
            guard let planned, let now = BuildState.InputStamp.current(path), planned.sameFile(now) else {
                throw changedWhileRead(path)
            }
        }
    }

    /// The refusal of a build that read an input the plan had seen otherwise: nothing of
    /// it is committed, and the live site stays as it was.
    func changedWhileRead(_ path: String) -> DossierError {
        DossierError(file: project.display(URL(filePath: path, directoryHint: .notDirectory)),
                     "changed while the build was reading it (is it still being written?); "
                     + "nothing was written: build again once it is complete")
    }
}

extension BuildState.InputStamp {
    /// Whether `now` is the same file, unwritten since `self` was taken: size, mtime and
    /// ctime (ns), inode and device all equal. (A write after a stat gets a later ctime:
    /// Linux gives a file's change time in fine grains once it was looked at.)
    func sameFile(_ now: BuildState.InputStamp) -> Bool {
        size == now.size && mtime == now.mtime && ctime == now.ctime && inode == now.inode && device == now.device
    }
}
