public import MultiAuthStore
import PostgresNIO

extension PostgresStoreBackend {
    /// Counts one request of API key `key` in the quota period starting at `period` (seconds
    /// since 1970), shared by every gateway whose store is this one: true when the request is
    /// within `limit` (and is now counted), false when the period's quota is used up. One
    /// statement decides and counts, so gateways on other hosts never count the same request
    /// twice or let one past the limit; `offset` requests count as used in a key's first
    /// period. The table (`multiauth_usage`) is made on first use.
    public func countUsage(key: String, period: Double, offset: Int, limit: Int) async throws(StoreError) -> Bool {
        let store = url.storeName, first = Int64(offset + 1), limit = Int64(limit)
        guard first <= limit else { return false }
        let counted: Int
        do throws(PostgresFailure) {
            counted = try await connections.withConnection("the usage count") { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: Self.usageSchemaStatement), logger: self.connections.logger).collect()
                return try await connection.query(
                    """
                    INSERT INTO multiauth_usage (store, key, period, used) VALUES (\(store), \(key), \(period), \(first))
                    ON CONFLICT (store, key) DO UPDATE SET
                        used = CASE WHEN multiauth_usage.period = EXCLUDED.period THEN multiauth_usage.used + 1 ELSE 1 END,
                        period = EXCLUDED.period
                    WHERE multiauth_usage.period <> EXCLUDED.period OR multiauth_usage.used < \(limit)
                    RETURNING used
                    """, logger: self.connections.logger
                ).collect().count
            }
        } catch {
            throw .writeFailed(path: location, reason: error.reason)
        }
        return counted == 1
    }

    /// The usage table, made once however many gateways start at the same moment (the same
    /// advisory lock as the store's schema step).
    static let usageSchemaStatement = """
        DO $$
        BEGIN
            IF to_regclass('multiauth_usage') IS NULL THEN
                PERFORM pg_advisory_xact_lock(hashtextextended('multiauth_usage:schema', 0));
                BEGIN
                    CREATE TABLE IF NOT EXISTS multiauth_usage (
                        store text NOT NULL, key text NOT NULL, period double precision NOT NULL, used bigint NOT NULL,
                        PRIMARY KEY (store, key));
                EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_object THEN
                    NULL;
                END;
            END IF;
        END
        $$
        """
}
