#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The marker a section leaves in a site that must never be published (per-player
/// data): `dossier publish` refuses a site holding it unless `--force-private` is given.
public enum PrivateSite {
    /// Path of the marker inside the site.
    public static let markerPath = "PRIVATE-SITE.txt"

    public static func markerText(section: String) -> String {
        "This site holds per-player data (\(section): private_site: true). It must not be published.\n"
    }

    /// Throws when `site` holds the marker and `force` is false.
    public static func checkPublishable(site: URL, force: Bool) throws {
        guard !force, FileManager.default.fileExists(atPath: site.appendingPathComponent(markerPath).path) else {
            return
        }
        throw DossierError(
            file: site.appendingPathComponent(markerPath).path,
            "this is a private site (per-player data, `private_site: true`); publishing refused — build it without "
                + "private_site, or pass --force-private"
        )
    }
}
