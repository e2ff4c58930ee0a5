import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import StudyStore

/// Build step 5: building or reusing each section's units and writing their files.
extension BuildContext {
    // MARK: 5. Sections

    func buildSection(_ index: Int) async throws {
        let section = sections[index]
        let key = type(of: section).key
        let units = planned[index]
        let context = SectionContext(project: project, templates: templates, checkOnly: options.checkOnly)
        let done = ProgressCounter()
        let total = units.count
        let canonical = project.sectionConfigs[index].node.canonical
        // (Checked by the plan; units do not read them again: InputsAfterBuild.swift.)
        let readEarly = Set(section.inputsReadEarly.keys).union(section.inputStampsReadEarly.keys)
        let results: [(String, BuildState.Unit)] = try await concurrentMap(units) { [self] pu in
            let r: BuildState.Unit
            if pu.reused, let prev = previous?.units[pu.key] {
                try reuse(prev, owner: pu.key)
                r = prev
            } else if let rest = pu.laterHash {
                // Its own input read once, by the unit (OwnInputRead.swift).
                var own = context
                own.ownInput = OwnInputRead(path: pu.unit.inputPaths[0])
                PausePoint.reached("unit-build")   // (tests write an input here: debug builds only)
                let result = try await section.build(unit: pu.unit, context: own)
                try checkInputsUnchangedSincePlan(pu, readEarly: readEarly)
                let hash = try unitHashAfterOwnRead(pu, own: own.ownInput!, rest: rest, section: key,
                                                    canonical: canonical)
                r = try write(result, hash: hash, owner: pu.key)
            } else {
                PausePoint.reached("unit-build")   // (tests write an input here: debug builds only)
                let result = try await section.build(unit: pu.unit, context: context)
                try checkInputsUnchangedSincePlan(pu, readEarly: readEarly)
                r = try write(result, hash: hashAsBuilt(pu, result, section: key, canonical: canonical),
                              owner: pu.key)
            }
            log.progress(done.increment(), of: total, label: key)
            return (pu.key, r)
        }
        var records: [UnitRecord] = []
        records.reserveCapacity(units.count)
        for ((k, r), pu) in zip(results, units) {
            store(k, r, reused: pu.reused)
            if let rec = r.record {
                let folder = r.blobSize == nil ? nil : (pu.reused ? blobFolder : newBlobFolder)
                records.append(UnitRecord(id: pu.unit.id, stored: rec, folder: folder, name: r.hash))
            }
        }
        // The summary: rebuilt only when some unit or the configuration changed.
        var h = Hashing.Key()
        h.add(renderer.fingerprint); h.add(key); h.add(canonical)
        // (Each unit's hash as built: a unit that read its own input once has it only now.)
        for (k, r) in results { h.add(k); h.add(r.hash) }
        let sumKey = "\(key)/#summary"
        let sumHash = h.finalize()
        if let prev = reusable(sumKey, sumHash) {
            try reuse(prev, owner: sumKey)
            store(sumKey, prev, reused: true)
            blurbs[key] = prev.blurb
        } else {
            let result = try await section.summarize(records: records, context: context)
            let r = try write(result, hash: sumHash, owner: sumKey)
            store(sumKey, r, reused: false)
            blurbs[key] = result.blurb
        }
        guard tree!.contains("\(key)/index.html") else {
            throw DossierError("section \(key) produced no \(key)/index.html page")
        }
    }

    /// The key a built unit is stored under: the plan's, or, when its build found another
    /// salt (``UnitResult/saltAfterBuild``: the privacy key it made), the key the next plan
    /// computes from that salt and the same input digests.
    func hashAsBuilt(_ pu: PlannedUnit, _ result: UnitResult, section: String, canonical: String) -> String {
        guard let salt = result.saltAfterBuild, salt != pu.unit.salt, let digests = pu.digests else { return pu.hash }
        var unit = pu.unit
        unit.salt = salt
        return Self.unitHash(fingerprint: renderer.fingerprint, section: section, canonical: canonical, unit: unit,
                             digests: digests)
    }

    func reuse(_ prev: BuildState.Unit, owner: String) throws {
        for f in prev.files { try tree!.reuse(f, from: output, owner: owner) }
    }

    func write(_ result: UnitResult, hash: String, owner: String) throws -> BuildState.Unit {
        var files: [ManifestFile] = []
        files.reserveCapacity(result.pages.count + result.files.count)   // (kept in the state: no spare room)
        var links: [String: [String]] = [:]
        for page in result.pages {
            let html = try renderer.render(page)
            if let splice = page.splice {
                let (file, found) = try writeSpliced(html, splice, to: page.path, owner: owner)
                files.append(file)
                links[file.path] = interned(found)
                continue
            }
            let found = LinkChecker.links(in: html)
            let left = linksLeftAfterEarlyCheck(found, on: page.path)
            // (Keyed by the entry's path: the tree keeps it in storage of its own size.)
            let file = try tree!.write(html, to: page.path, owner: owner)
            files.append(file)
            links[file.path] = interned(found)
            if let left { lock.lock(); linksLeft[file.path] = left; lock.unlock() }
        }
        for f in result.files {
            let file = try tree!.write(
                CSVWriter.withBOM(f.data, f.path.hasSuffix(".csv") && project.csvBOM), to: f.path, owner: owner)
            files.append(file)
            if f.path.hasSuffix(".html") {
                links[file.path] = LinkChecker.links(in: String(decoding: f.data, as: UTF8.self))
            }
        }
        if let streams = result.streams {
            let sink = OutputStreams(tree: tree!, owner: owner, csvBOM: project.csvBOM)
            try streams(sink)
            files += sink.written
        }
        // The blob is named by the unit's hash: a unit with the same inputs writes the
        // same bytes, and the state that names it is saved only after it is in place.
        if let blob = result.blob {
            // Made on first use: a project whose units leave no blobs gets no folder. Made
            // once a build (``blobFolderPath``), then each blob written by its path.
            let folder = try blobFolderPath()
            try blob.withUnsafeBytes { try AtomicFile.writeUnsynced($0, name: hash, inFolder: folder) }
        }
        // Records wait for the summary and the state in a file, not in memory.
        let record = try result.record.map { try recordSpill().keep($0) }
        return BuildState.Unit(
            hash: hash, files: files, links: links, record: record, warnings: result.warnings,
            pages: result.pages.count, blurb: result.blurb, blobSize: result.blob.map { Int64($0.count) })
    }

    /// `newBlobFolder.path`, the folder made by the first call of a build (each unit with
    /// a blob asked `FileManager` to make it, and `AtomicFile` again: two `stat`s a unit).
    func blobFolderPath() throws -> String {
        lock.lock()
        let known = blobFolderMade
        lock.unlock()
        if let known { return known }
        try FileManager.default.createDirectory(at: newBlobFolder, withIntermediateDirectories: true)
        let path = newBlobFolder.path
        lock.lock(); blobFolderMade = path; lock.unlock()
        return path
    }

    /// Makes room for `pages` more entries in the claims and in the tables ``store(_:_:reused:)``
    /// fills (the pages' links, the fresh pages, the state's units), before the pages come.
    func reserveRoom(pages: Int) {
        tree?.reserveClaims(pages)
        lock.lock(); defer { lock.unlock() }
        links.reserveCapacity(links.count + pages)
        freshPages.reserveCapacity(freshPages.count + pages)
        newState.units.reserveCapacity(newState.units.count + pages)
    }

    func store(_ key: String, _ unit: BuildState.Unit, reused: Bool) {
        lock.lock(); defer { lock.unlock() }
        newState.units[key] = unit
        for (p, l) in unit.links {
            links[p] = l
            if !reused { freshPages.insert(p) }
        }
        if reused { report.pagesReused += unit.pages; report.unitsReused += 1 }
        else { report.pagesRendered += unit.pages; report.unitsBuilt += 1 }
        for w in unit.warnings {
            report.warnings.append(w)
            log.warning(w)
        }
    }
}
