package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What a schema lacks of the tables, columns and indexes this version uses, each with the statement that adds it: a
 * schema a DBA or a migration tool made is checked at start-up, rather than fail in a claim or make every claim scan
 * the table. Indexes are found by their columns, whatever their names.
 */
final class SchemaCheck {

    private static final Map<String, List<String>> COLUMNS = new LinkedHashMap<>();

    private static final List<Index> INDEXES = List.of(
            new Index("taskinfo", "idx_taskinfo_execute_time", false, List.of("execute_time", "task_id"),
                    "every claim and reload reads through it"),
            new Index("taskinfo", "uk_taskinfo_biz_key", true, List.of("biz_key"),
                    "it keeps a business key to one live task"),
            new Index("taskinfo_logs", "idx_taskinfo_logs_status", false, List.of("status", "task_id"),
                    "the dead tasks are listed and counted through it"),
            new Index("taskinfo_logs", "idx_taskinfo_logs_biz_key", false, List.of("biz_key"),
                    "tasks are found by business key through it"),
            new Index("taskinfo_logs", "idx_taskinfo_logs_finished", false,
                    List.of("status", "finished_at", "execute_time"), "the history purge reads through it; on "
                            + "MySQL and MariaDB by this name, which its statement names as a hint"));

    /** Indexes MySQL's statements name in a hint, which must have that name there. */
    private static final Set<String> HINTED_ON_MYSQL = Set.of("idx_taskinfo_logs_finished");

    static {
        COLUMNS.put("taskinfo", List.of("task_id", "task_type", "priority", "execute_time", "parameters", "version",
                "attempts", "lease_until", "biz_key"));
        COLUMNS.put("taskinfo_logs", List.of("task_id", "task_type", "priority", "execute_time", "parameters",
                "version", "status", "attempts", "last_error", "biz_key", "finished_at"));
        COLUMNS.put("taskinfo_store", List.of("id", "store_id"));
    }

    private SchemaCheck() {
    }

    /**
     * What the schema lacks, each with why it is needed and how to add it; empty when nothing.
     * @param columnsOf the columns of a table in lower case, or null when there is no such table
     * @param traced whether the context column of {@code taskinfo} is needed
     * @param storeTable whether {@code taskinfo_store} is needed (no Redis key prefix is set)
     * @param tables the names of the tables and indexes
     */
    static List<String> missing(Connection connection, Function<String, @Nullable Set<String>> columnsOf,
            boolean traced, boolean storeTable, TableNames tables) throws SQLException {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, List<String>> table : COLUMNS.entrySet()) {
            if (table.getKey().equals("taskinfo_store") && !storeTable) {
                continue;
            }
            String name = tables.sql(table.getKey());
            Set<String> columns = columnsOf.apply(name);
            if (columns == null) {
                missing.add("table " + name);
                continue;
            }
            List<String> expected = new ArrayList<>(table.getValue());
            if (traced && table.getKey().equals("taskinfo")) {
                expected.add("trace_context");
            }
            for (String column : expected) {
                if (!columns.contains(column)) {
                    missing.add("column " + name + "." + column);
                }
            }
        }
        DatabaseMetaData metaData = connection.getMetaData();
        String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
        boolean mySql = product.contains("mysql") || product.contains("mariadb");
        boolean postgreSql = product.contains("postgresql");
        for (Index plain : INDEXES) {
            Index index = plain.under(tables);
            if (missing.contains("table " + index.table())) {
                continue;
            }
            if (!has(metaData, connection, index, mySql && HINTED_ON_MYSQL.contains(plain.name()), mySql,
                    postgreSql)) {
                missing.add("an index on " + index.table() + " " + index.columnList() + (index.unique() ? ", unique" : "")
                        + " (" + index.purpose() + "): CREATE " + (index.unique() ? "UNIQUE " : "") + "INDEX "
                        + index.name() + " ON " + index.table() + " " + index.columnList());
            }
        }
        return missing;
    }

    /**
     * Whether an index of the table begins with the expected columns (and is unique, where it must be). On MySQL and
     * MariaDB, InnoDB appends the primary key to every other index, so an index of the leading columns alone serves
     * too, and an index the statements name in a hint must have that name.
     */
    private static boolean has(DatabaseMetaData metaData, Connection connection, Index expected, boolean hinted,
            boolean mySql, boolean postgreSql) throws SQLException {
        String table = metaData.storesUpperCaseIdentifiers() ? expected.table().toUpperCase(Locale.ROOT)
                : expected.table();
        // PostgreSQL finds a table through the whole search path: where it is, not the first schema of the path
        String schema = postgreSql ? schemaOf(connection, expected.table()) : connection.getSchema();
        // index name -> its columns by position, and whether it is unique
        Map<String, TreeMap<Integer, String>> columns = new LinkedHashMap<>();
        Map<String, Boolean> unique = new LinkedHashMap<>();
        try (ResultSet rows = metaData.getIndexInfo(connection.getCatalog(), schema, table, false, true)) {
            while (rows.next()) {
                String name = rows.getString("INDEX_NAME");
                String column = rows.getString("COLUMN_NAME");
                if (name == null || column == null) {
                    continue;
                }
                columns.computeIfAbsent(name, (key) -> new TreeMap<>())
                    .put((int) rows.getShort("ORDINAL_POSITION"), column.toLowerCase(Locale.ROOT));
                unique.put(name, !rows.getBoolean("NON_UNIQUE"));
            }
        }
        for (Map.Entry<String, TreeMap<Integer, String>> index : columns.entrySet()) {
            if (hinted && !expected.name().equals(index.getKey())) {
                continue;
            }
            List<String> names = new ArrayList<>(index.getValue().values());
            if (mySql && !index.getKey().equals("PRIMARY") && !names.contains("task_id")) {
                names.add("task_id");
            }
            if (names.size() >= expected.columns().size()
                    && names.subList(0, expected.columns().size()).equals(expected.columns())
                    && (!expected.unique() || unique.get(index.getKey()))) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable String schemaOf(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT n.nspname FROM pg_class c JOIN "
                + "pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(?)")) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : connection.getSchema();
            }
        }
    }

    /**
     * An index the starter's statements need.
     * @param name its name in the starter's scripts
     * @param purpose why it is needed, for the message
     */
    private record Index(String table, String name, boolean unique, List<String> columns, String purpose) {

        String columnList() {
            return "(" + String.join(", ", this.columns) + ")";
        }

        /** The index with the names of the given prefix. */
        Index under(TableNames tables) {
            return new Index(tables.sql(this.table), tables.sql(this.name), this.unique, this.columns, this.purpose);
        }

    }

}
