// MARK: - Where a study store is: a SQLite file or a PostgreSQL database (docs/store.md)

/// A `database:` value of `dossier.yml` or a `--db`/`--database` argument.
///
/// - `postgres://…` or `postgresql://…`: a libpq connection URI (user, host, port,
///   database, parameters), without a password;
/// - `postgres:` alone: everything from the standard `PG*` variables (`PGHOST`,
///   `PGPORT`, `PGUSER`, `PGDATABASE`, `PGSERVICE`, …);
/// - `postgres:KEY=VALUE …`: a libpq key/value connection string (e.g.
///   `postgres:service=study`), again without a password;
/// - anything else: the path of a SQLite file.
///
/// The password always comes from `PGPASSWORD`, `~/.pgpass` (or `PGPASSFILE`) or a
/// service file (`PGSERVICE`, `pg_service.conf`), which libpq reads by itself.
public enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(conninfo: String, shown: String)

    /// Whether `text` names a PostgreSQL database (and not a SQLite path).
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres:") || text.hasPrefix("postgresql:")
    }

    /// Reads `text`; `place` says where it was given ("dossier.yml" key, "--db"), for the
    /// message refusing a password (which never repeats the text itself).
    public static func parse(_ text: String, place: String) throws(StoreError) -> StoreLocation {
        guard isPostgres(text) else { return .sqlite(path: text) }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            if uriHasPassword(text) { throw passwordRefused(place) }
            return .postgres(conninfo: text, shown: StoreError.scrubbed(text))
        }
        let rest = String(text.drop { $0 != ":" }.dropFirst())
        if conninfoHasPassword(rest) { throw passwordRefused(place) }
        let shown = rest.isEmpty ? "postgres: (from the PG* environment variables)" : "postgres:" + rest
        return .postgres(conninfo: rest, shown: StoreError.scrubbed(shown))
    }

    /// As messages name it.
    public var shown: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(_, let shown): return shown
        }
    }

    /// The location written back as ``parse(_:place:)`` reads it.
    public var text: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let conninfo, _):
            let uri = conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://")
            return uri ? conninfo : "postgres:" + conninfo
        }
    }

    public var engine: StoreEngine {
        switch self {
        case .sqlite: return .sqlite
        case .postgres: return .postgres
        }
    }

    static func passwordRefused(_ place: String) -> StoreError {
        StoreError(.passwordGiven, "\(place) holds a database password, which would be readable by anyone who reads "
            + "it: remove it and give the password through PGPASSWORD, a ~/.pgpass line (or PGPASSFILE) or a "
            + "service file (PGSERVICE)")
    }

    /// A `user:password@` part in the authority of a URI, or a `password=` parameter.
    static func uriHasPassword(_ uri: String) -> Bool {
        let afterScheme = uri.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        // "postgres:", "", "authority/rest…"
        if afterScheme.count >= 3 {
            let authority = afterScheme[2].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") { return true }
        }
        if let q = uri.firstIndex(of: "?") {
            let pairs = uri[uri.index(after: q)...].split(separator: "&")
            if pairs.contains(where: { $0.lowercased().hasPrefix("password=") }) { return true }
        }
        return false
    }

    /// A `password` key in a libpq key/value string.
    static func conninfoHasPassword(_ conninfo: String) -> Bool {
        for word in conninfo.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            let key = word.prefix { $0 != "=" }.lowercased()
            if key == "password" { return true }
        }
        return conninfo.lowercased().contains("password =") || conninfo.lowercased().contains("password=")
    }
}
