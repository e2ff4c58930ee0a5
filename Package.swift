// swift-tools-version: 6.0
// Dossier — a static-site and report generator for research, care and archival data.
//
// Layout (see CONTRIBUTING in README.md): one module per stage (CLI `dossier`, pipeline
// `DossierKit`, `Render`) and one module per domain core. Adding a domain = a folder
// under Sources/, an entry in `domains` below, a Section in
// Sources/DossierKit/Sections/, a command in Sources/dossier/Commands/, a test target.
//
// `DOSSIER_ONLY=recall,vault swift test` builds only those domains (and the stages),
// so work on one domain is not blocked by another's unfinished code.
import PackageDescription
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let crypto: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "_CryptoExtras", package: "swift-crypto"),
]

/// One domain core: its site key, module, what it depends on, and whether its tests
/// carry fixtures.
struct Domain {
    let key: String
    let module: String
    var dependencies: [Target.Dependency] = []
    var resources: [Resource]? = nil
    var testResources: [Resource]? = nil
    var testDependencies: [Target.Dependency] = []
    /// Compiler settings of the core (the numeric cores are optimised even in debug
    /// builds: their fits run for every player of every test build).
    var swiftSettings: [SwiftSetting]? = nil
}

let domains: [Domain] = [
    Domain(key: "recall", module: "RecallStudy",
           dependencies: ["Escaping", "CompactBinary", "Sealing", "StudyStore", "JSONLines", "TextBasics",
                          "SplitMix64"] + crypto,
           testResources: [.copy("Fixtures")], testDependencies: ["JSONLines"]),
    Domain(key: "experiences", module: "Experiences", dependencies: ["Escaping", "CVips", "JSONLines", "TextBasics"],
           testResources: [.copy("Fixtures")], testDependencies: ["JSONLines"]),
    Domain(key: "vault", module: "Vault",
           dependencies: ["Strength", "Escaping", "TextBasics", "CArgon2", "CGzip", "XMLScan", "ZipArchive",
                          "JSONLines"] + crypto,
           testResources: [.copy("Fixtures")], testDependencies: ["JSONLines"]),
    Domain(key: "sms", module: "SecureSMS", dependencies: ["Strength", "TextBasics", "ProcessLocks"] + crypto,
           testDependencies: ["SplitMix64"]),
    Domain(key: "game", module: "GameAnalytics",
           dependencies: ["StudyStore", "Escaping", "Sealing", "JSONLines", "TextBasics"] + crypto,
           testDependencies: ["SplitMix64"], swiftSettings: [.unsafeFlags(["-O"])]),
]

let only: Set<String>? = Context.environment["DOSSIER_ONLY"].map {
    Set($0.split(separator: ",").map { String($0).filter { $0 != " " } })
}
/// The recall domain is always built: both kits (the game's too) share its kit code, and
/// the table of page templates names its page models.
let alwaysBuilt: Set<String> = ["recall"]
let enabled = domains.filter { d in alwaysBuilt.contains(d.key) || (only?.contains(d.key) ?? true) }
let disabled = domains.filter { d in !enabled.contains { $0.key == d.key } }

/// The Swift files of a target's folder that import a left-out domain's module, as the
/// target's `exclude` names them (`Sections/VaultSection.swift`): they cannot compile
/// without it.
func filesOfDisabledDomains(_ target: String, _ folder: String = "") -> [String] {
    let dir = Context.packageDirectory + "/" + target + (folder.isEmpty ? "" : "/" + folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
    return names.filter { name in
        guard name.hasSuffix(".swift"),
              let text = try? String(contentsOfFile: dir + "/" + name, encoding: .utf8) else { return false }
        return disabled.contains { text.contains("\nimport \($0.module)\n") || text.hasPrefix("import \($0.module)\n") }
    }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
}

var targets: [Target] = [
    // MARK: System libraries
    .systemLibrary(name: "CCmarkGFM", path: "Sources/CCmarkGFM", pkgConfig: "libcmark-gfm",
                   providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
    .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"])]),
    // Argon2 and gzip for the vault's KDBX import (docs/vault-kdbx.md).
    .systemLibrary(name: "CArgon2", path: "Sources/CArgon2", pkgConfig: "libargon2",
                   providers: [.apt(["libargon2-dev"])]),
    // libyaml: the YAML event parser under dossier.yml and front matter (YAMLComposer).
    .systemLibrary(name: "CLibYAML", path: "Sources/CLibYAML", pkgConfig: "yaml-0.1",
                   providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CGzip", path: "Sources/CGzip", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    // dlopen once per process, shared by the loaders of libvips, libcurl and libpq.
    .target(name: "CLibraryLoad", linkerSettings: [.linkedLibrary("dl")]),
    // libvips: experience panoramas resized at build time (Sources/Experiences/PanoramaPrep.swift),
    // loaded at run time on first use (never linked; see the target).
    .target(name: "CVips", dependencies: ["CLibraryLoad"], linkerSettings: [.linkedLibrary("dl")]),

    // MARK: Stages
    .target(name: "Escaping"),
    // The seeded generator of the simulator and the property tests.
    .target(name: "SplitMix64"),
    // The one JSON scanner every JSON and JSON Lines reader is built on (docs/json-lines.md).
    .target(name: "JSONLines"),
    // String helpers with no ICU behind them (trim, replace, printf-style numbers, hex),
    // in place of Foundation's NSString-bridged methods: docs/benchmarks.md, "5. Start-up".
    .target(name: "TextBasics"),
    // One command at a time on a file: flock(2) on a lock file beside it (CommandLock).
    .target(name: "ProcessLocks"),
    // The binary form of Dossier's own records (build state, participant summaries).
    .target(name: "CompactBinary"),
    // A per-thread bump allocator handed to libcmark-gfm (see Sources/CMarkArena).
    .target(name: "CMarkArena"),
    // The zxcvbn-style password strength estimator, shared by the vault and the SMS keystore.
    // Optimised even in debug builds: its word index (100,000 words sorted) is built by every
    // command that judges a password, 3 s of each `vault init` unoptimised.
    .target(name: "Strength", exclude: ["Resources"], swiftSettings: [.unsafeFlags(["-O"])],
            plugins: ["EmbedFolders"]),
    // Compiles Templates/, Site/, Help/ and Strength's Resources/ into the binary (one-file install).
    .executableTarget(name: "dossier-embed"),
    .plugin(name: "EmbedFolders", capability: .buildTool(), dependencies: ["dossier-embed"]),
    .target(name: "Render", dependencies: [
        "CCmarkGFM", "CMarkArena", "Escaping", "TextBasics", "JSONLines",
    ]),
    .target(
        name: "DossierKit",
        dependencies: ["Render", "Escaping", "WebDAV", "CompactBinary", "Privacy", "StudyStore", "TextBasics",
                       "CLibYAML", "ZipArchive", "ProcessLocks"]
            + crypto + enabled.map { .target(name: $0.module) },
        exclude: filesOfDisabledDomains("Sources/DossierKit", "Sections"),
        swiftSettings: enabled.map { .define("DOMAIN_\($0.key.uppercased())") },
        plugins: ["EmbedFolders"]
    ),
    .executableTarget(
        name: "dossier",
        dependencies: ["DossierKit", "StudyStore", "TextBasics",
                       .product(name: "ArgumentParser", package: "swift-argument-parser")]
            + enabled.map { .target(name: $0.module) },
        exclude: filesOfDisabledDomains("Sources/dossier", "Commands"),
        swiftSettings: enabled.map { .define("DOMAIN_\($0.key.uppercased())") },
        plugins: ["EmbedFolders"]   // Help/: the commands' long help (HelpText.swift)
    ),
    // Zip files read and written over zlib, refusing hostile ones (docs/archive.md).
    .target(name: "ZipArchive", dependencies: ["CGzip"]),
    // libcurl, loaded at run time for WebDAV's HTTP transport (never linked; see the target).
    .target(name: "CCurlRuntime", dependencies: ["CLibraryLoad"], linkerSettings: [.linkedLibrary("dl")]),
    .target(name: "WebDAV", dependencies: ["CCurlRuntime", "XMLScan", "TextBasics"]),
    // libpq, loaded at run time for the PostgreSQL study store (never linked; see the target).
    .target(name: "CPostgresRuntime", dependencies: ["CLibraryLoad"], linkerSettings: [.linkedLibrary("dl")]),
    // The study store: one connection type over SQLite (embedded) and PostgreSQL (shared),
    // versioned schemas, snapshots (docs/store.md).
    .target(name: "StudyStore", dependencies: ["CSQLite", "CPostgresRuntime", "TextBasics"]),
    // A strict streaming XML 1.0 reader (no DTDs), so FoundationXML (libxml2 + ICU) is
    // not linked: docs/xml.md.
    .target(name: "XMLScan"),
    // Differential privacy: exact discrete samplers, clamped statistics, a budget
    // accountant and the release ledger; no site knowledge (docs/game-privacy.md).
    .target(name: "Privacy", dependencies: ["TextBasics"] + crypto, swiftSettings: [.unsafeFlags(["-O"])]),
    // The sealed envelope (RMU1) and signed first record both kits' uploads use
    // (docs/recall-upload.md, docs/game-telemetry.md).
    .target(name: "Sealing", dependencies: ["JSONLines"] + crypto),

    // MARK: Tests of the stages
    // swift-mustache: the engine Dossier's own Mustache renderer replaced; the tests check
    // that both render the same templates to the same bytes.
    // Untyped (dictionary) template models, for the tests' reference twins only.
    .target(name: "UntypedModels", dependencies: ["Render"], path: "Tests/UntypedModels"),
    .testTarget(name: "RenderTests", dependencies: ["Render", "CMarkArena", "Escaping", "UntypedModels", "SplitMix64",
                                                    "TextBasics",
                                                    .product(name: "Mustache", package: "swift-mustache")]),
    .testTarget(name: "DossierKitTests", dependencies: ["DossierKit", "UntypedModels", "SplitMix64"],
                exclude: filesOfDisabledDomains("Tests/DossierKitTests"), resources: [.copy("Fixtures")]),
    .testTarget(name: "WebDAVTests", dependencies: ["WebDAV"]),
    .testTarget(name: "XMLScanTests", dependencies: ["XMLScan"]),
    .testTarget(name: "TextBasicsTests", dependencies: ["TextBasics"]),
    .testTarget(name: "PrivacyTests", dependencies: ["Privacy", "SplitMix64"]),
    .testTarget(name: "SealingTests", dependencies: ["Sealing"]),
    .testTarget(name: "StudyStoreTests", dependencies: ["StudyStore"]),
    .testTarget(name: "JSONLinesTests", dependencies: ["JSONLines"]),
    .testTarget(name: "ZipArchiveTests", dependencies: ["ZipArchive"]),
    .testTarget(name: "StrengthTests", dependencies: ["Strength", "SplitMix64"]),
]

// MARK: Domain cores (pure: no rendering, no knowledge of the site) and their tests
for d in enabled {
    targets.append(.target(name: d.module, dependencies: d.dependencies, resources: d.resources,
                           swiftSettings: d.swiftSettings))
    targets.append(.testTarget(name: "\(d.module)Tests", dependencies: [.target(name: d.module)] + d.testDependencies,
                               resources: d.testResources))
}

let package = Package(
    name: "Dossier",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dossier", targets: ["dossier"]),
        .library(name: "DossierKit", targets: ["DossierKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: targets
)
