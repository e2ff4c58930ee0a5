import Foundation

/// Finds Dossier's built-in `Templates/` and `Site/` folders: `$DOSSIER_RESOURCES`,
/// else the first ancestor of the executable that holds both (a source checkout), else
/// `<prefix>/share/dossier` beside an installed binary.
public enum Resources {
    public static func locate() throws -> URL {
        let fm = FileManager.default
        func ok(_ u: URL) -> Bool {
            fm.fileExists(atPath: u.appendingPathComponent("Templates/layout.mustache").path)
                && fm.fileExists(atPath: u.appendingPathComponent("Site").path)
        }
        if let env = ProcessInfo.processInfo.environment["DOSSIER_RESOURCES"] {
            let u = URL(fileURLWithPath: env)
            if ok(u) { return u }
            throw DossierError("DOSSIER_RESOURCES=\(env) does not hold Templates/layout.mustache and Site/")
        }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(), exe]
        for start in candidates {
            var dir = start.deletingLastPathComponent()
            for _ in 0..<8 {
                if ok(dir) { return dir }
                let share = dir.appendingPathComponent("share/dossier")
                if ok(share) { return share }
                dir = dir.deletingLastPathComponent()
            }
        }
        throw DossierError("cannot find Dossier's Templates/ and Site/ folders; set DOSSIER_RESOURCES to the folder that holds them")
    }
}
