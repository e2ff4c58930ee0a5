import Foundation
import Testing
@testable import StudyStore

/// Where a study store is (docs/store.md, "The database: forms"): SQLite paths,
/// PostgreSQL URLs and `postgres:` conninfo, and a password refused wherever it is
/// written — without the refusal ever repeating it.
@Suite struct StoreLocationTests {
    @Test func pathsAndPostgresFormsAreTold() throws {
        #expect(try StoreLocation.parse("data/study.sqlite", place: "x") == .sqlite(path: "data/study.sqlite"))
        let url = "postgres://study@db.example.org:5433/study?sslmode=require"
        #expect(try StoreLocation.parse(url, place: "x") == .postgres(conninfo: url, shown: url))
        #expect(try StoreLocation.parse("postgresql://db/study", place: "x").engine == .postgres)
        let bare = try StoreLocation.parse("postgres:", place: "x")
        #expect(bare == .postgres(conninfo: "", shown: "postgres: (from the PG* environment variables)"))
        #expect(bare.text == "postgres:")
        #expect(try StoreLocation.parse("postgres:service=study", place: "x").text == "postgres:service=study")
    }

    @Test func aPasswordIsRefusedAndNeverRepeated() {
        let secret = "s3cr3t-Horse-77"
        for text in ["postgres://study:\(secret)@db/study", "postgresql://u:\(secret)@h:5432/d",
                     "postgres://u@h/d?sslmode=disable&password=\(secret)", "postgres:host=h password=\(secret)",
                     "postgres:password=\(secret) host=h"] {
            do {
                _ = try StoreLocation.parse(text, place: "game.database")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.kind == .passwordGiven)
                #expect(!error.message.contains(secret))
                #expect(error.message.contains("PGPASSWORD"))
                #expect(error.message.hasPrefix("game.database holds a database password"))
            }
        }
        // An @ in the path or a user without password is not a password.
        #expect((try? StoreLocation.parse("postgres://study@db/study", place: "x")) != nil)
    }

    @Test func scrubbingCutsEveryOccurrence() {
        #expect(StoreError.replacingAll("a pw b pwpw", "pw", "(password)") == "a (password) b (password)(password)")
        #expect(StoreError.replacingAll("none", "pw", "x") == "none")
    }
}
