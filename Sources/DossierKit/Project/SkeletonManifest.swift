#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// The `dossier.yml` that `dossier new` writes (docs/manifest.md, "A new project"): the
// site's keys, then every section as a commented example, with the sections asked for by
// `--with` written out instead.

extension Skeleton {
    /// What `dossier new --with KIND` starts a project for.
    public enum Kind: String, CaseIterable, Sendable {
        case experiences, recallKit = "recall-kit", vault, game, sms

        /// The `dossier.yml` key of its section.
        public var sectionKey: String { self == .recallKit ? "recall" : rawValue }
    }

    /// One section's block: a comment saying what it is, then its keys.
    struct Block {
        var about: [String]
        var keys: [String]
    }

    static let blocks: [(String, Block)] = [
        ("recall", Block(about: [
            "A memorization study (docs/recall-section.md): per-participant reports and a study",
            "summary. `kit: true` adds the test itself, recall/kit/index.html, one offline page to",
            "open on the participants' phone or laptop; export its logs into `logs:` and rebuild",
            "(docs/recall-kit.md). `dossier recall simulate` writes example logs.",
        ], keys: [
            "recall:",
            "  strings: data/recall/strings.txt   # the 10 target strings, one a line",
            "  logs: data/recall/logs             # the session logs (folder, glob or list)",
            "  kit: true",
        ])),
        ("experiences", Block(about: [
            "360° experiences for a child (docs/experience-format.md): every *.json in the folder",
            "is one experience; the site gets a viewer, a play mode and an editor",
            "(experiences/editor/index.html) whose saved zip goes into this folder.",
        ], keys: [
            "experiences:",
            "  input: data/experiences",
        ])),
        ("vault", Block(about: [
            "A password vault's health report, which never shows a secret (docs/vault-report.md).",
            "Make the vault with `dossier vault init data/vault/my.dvault` (docs/vault-cli.md); its",
            "password comes from DOSSIER_VAULT_PASSWORD or the terminal. An export from another",
            "manager (`import: my.kdbx`, a CSV, …) can stand in for the vault (docs/vault-import.md).",
        ], keys: [
            "vault:",
            "  vault: data/vault/my.dvault",
            "  password_env: DOSSIER_VAULT_PASSWORD",
        ])),
        ("sms", Block(about: [
            "SecureSMS keystores: a redacted inventory of contacts' key state (docs/securesms-report.md).",
            "Make one with `dossier sms init --account me --keystore data/sms/my.keystore` (docs/securesms-cli.md).",
        ], keys: [
            "sms:",
            "  keystores: data/sms/*.keystore",
            "  password_env: DOSSIER_SMS_PASSWORD",
        ])),
        ("game", Block(about: [
            "Game telemetry → reaction-time measures and cohort norms (docs/game-measures.md).",
                    "`dossier game simulate --players 520 --seed 1 --output data/game/cohort.jsonl` writes a cohort "
                        + "large enough for the model."
        ], keys: [
            "game:",
            "  telemetry: data/game/cohort.jsonl",
            "  simulated: true   # say \"The cohort is simulated\" (only when it is)",
        ])),
        ("archive", Block(about: [
            "What `dossier archive` writes into the bag's bag-info.txt (docs/archive.md).",
        ], keys: [
            "archive:",
            "  source_organization: My lab",
            "  contact_email: me@example.org",
        ])),
    ]

    static func manifest(title quoted: String, with: [Kind]) -> String {
        let chosen = Set(with.map(\.sectionKey))
        var lines = [
            "# Dossier project manifest (docs/manifest.md). Build with: dossier build <this folder>",
            "title: \(quoted)",
            "description: Reports built with Dossier.",
            "# base_url: https://example.org/my-study/   # absolute URLs in sitemap.xml",
            "# output: _site",
        ]
        for (key, block) in blocks {
            lines.append("")
            lines += block.about.map { "# " + $0 }
            lines += block.keys.map { chosen.contains(key) ? $0 : "# " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
