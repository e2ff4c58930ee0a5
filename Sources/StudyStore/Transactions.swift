// MARK: - Transactions that survive a concurrent writer (docs/store.md, "Transactions")

extension StoreConnection {
    /// Runs `body` in a transaction of `kind` and commits it; any error rolls it back. A
    /// write transaction that conflicts with another process's (PostgreSQL SERIALIZABLE,
    /// SQLSTATE 40001/40P01) is run again, up to `attempts` times. Inside an open
    /// transaction `body` simply runs.
    public func transaction<T>(_ kind: TransactionKind = .write, attempts: Int = 20,
                               _ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        var attempt = 0
        while true {
            attempt += 1
            try begin(kind)
            do {
                let value = try body()
                if kind == .write { PausePoint.reached("commit") }
                try commit()
                return value
            } catch let e as StoreError where e.kind == .retryable && attempt < attempts {
                rollback()
                continue
            } catch {
                rollback()
                throw error
            }
        }
    }
}
