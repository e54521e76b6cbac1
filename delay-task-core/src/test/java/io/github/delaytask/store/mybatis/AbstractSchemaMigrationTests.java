package io.github.delaytask.store.mybatis;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.UUID;

import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The versioned migrations in {@code sql/migration/<platform>}, applied by Flyway from the first version on, and the
 * Liquibase changelog in {@code sql/liquibase/<platform>} each make the schema that {@code sql/schema-<platform>.sql}
 * (what {@code initialize-schema} runs) makes: the same tables, columns with their types, nullability and defaults,
 * keys and indexes. Subclasses pick the database.
 */
abstract class AbstractSchemaMigrationTests {

    private static final List<String> TABLES = List.of("taskinfo", "taskinfo_logs", "taskinfo_store");

    /** The platform of the scripts: mysql, postgresql or h2. */
    abstract String platform();

    /** Creates a database (or schema) of the given name and returns its JDBC URL. */
    abstract String create(String name) throws SQLException;

    abstract void drop(String name) throws SQLException;

    abstract String username();

    /** How the database describes a table, for comparison; the default reads the JDBC metadata. */
    String describe(Connection connection, String table) throws SQLException {
        return describeByMetaData(connection, table);
    }

    @Test
    void theFlywayMigrationsFromTheFirstVersionOnMakeTheSchemaOfTheSchemaScriptBesideTheApplicationsTables() throws SQLException {
        // the README's configuration, in a database that holds the application's own tables already
        assertMakesTheScriptsSchema((url) -> {
            try (Connection connection = DriverManager.getConnection(url, username(), "");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE shop_order (id BIGINT NOT NULL PRIMARY KEY)");
            }
            Flyway.configure()
                .dataSource(url, username(), "")
                .locations("classpath:META-INF/delay-task/sql/migration/" + platform())
                .table("taskinfo_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        });
    }

    @Test
    void theLiquibaseChangelogMakesTheSchemaOfTheSchemaScript() throws SQLException {
        assertMakesTheScriptsSchema((url) -> {
            try (Connection connection = DriverManager.getConnection(url, username(), "")) {
                Database database = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
                try (Liquibase liquibase = new Liquibase("META-INF/delay-task/sql/liquibase/" + platform()
                        + "/db.changelog-delay-task.sql", new ClassLoaderResourceAccessor(), database)) {
                    liquibase.update(new Contexts(), new LabelExpression());
                }
            }
        });
    }

    private void assertMakesTheScriptsSchema(Migration migration) throws SQLException {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String migrated = "dt_migrated_" + suffix;
        String scripted = "dt_scripted_" + suffix;
        try {
            String migratedUrl = create(migrated);
            String scriptedUrl = create(scripted);
            try {
                migration.migrate(migratedUrl);
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
            try (Connection connection = DriverManager.getConnection(scriptedUrl, username(), "")) {
                ScriptUtils.executeSqlScript(connection,
                        new ClassPathResource("META-INF/delay-task/sql/schema-" + platform() + ".sql"));
            }
            try (Connection fromMigrations = DriverManager.getConnection(migratedUrl, username(), "");
                    Connection fromScript = DriverManager.getConnection(scriptedUrl, username(), "")) {
                for (String table : TABLES) {
                    assertThat(describe(fromMigrations, table)).as(table)
                        .isNotBlank()
                        .isEqualTo(describe(fromScript, table));
                }
                assertThat(count(fromMigrations, "SELECT COUNT(*) FROM taskinfo_store")).isOne();
            }
        }
        finally {
            drop(migrated);
            drop(scripted);
        }
    }

    /** Brings the database at the given URL to the newest version. */
    @FunctionalInterface
    private interface Migration {

        void migrate(String url) throws Exception;

    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Columns in order with type, size, nullability and default; the primary key; every other index. */
    static String describeByMetaData(Connection connection, String table) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        String name = metaData.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
        String catalog = connection.getCatalog();
        String schema = connection.getSchema();
        List<String> lines = new ArrayList<>();
        try (ResultSet rows = metaData.getColumns(catalog, schema, name, null)) {
            while (rows.next()) {
                lines.add("column " + rows.getInt("ORDINAL_POSITION") + " " + rows.getString("COLUMN_NAME") + " "
                        + rows.getString("TYPE_NAME") + "(" + rows.getInt("COLUMN_SIZE") + ") nullable="
                        + rows.getString("IS_NULLABLE") + " default=" + rows.getString("COLUMN_DEF"));
            }
        }
        TreeMap<Short, String> key = new TreeMap<>();
        try (ResultSet rows = metaData.getPrimaryKeys(catalog, schema, name)) {
            while (rows.next()) {
                key.put(rows.getShort("KEY_SEQ"), rows.getString("COLUMN_NAME"));
            }
        }
        lines.add("primary key " + key.values());
        TreeMap<String, TreeMap<Short, String>> indexes = new TreeMap<>();
        TreeMap<String, String> kinds = new TreeMap<>();
        try (ResultSet rows = metaData.getIndexInfo(catalog, schema, name, false, false)) {
            while (rows.next()) {
                String index = rows.getString("INDEX_NAME");
                if (index == null || index.toUpperCase(Locale.ROOT).startsWith("PRIMARY")
                        || index.toLowerCase(Locale.ROOT).endsWith("_pkey")) {
                    continue;
                }
                indexes.computeIfAbsent(index, (ignored) -> new TreeMap<>())
                    .put(rows.getShort("ORDINAL_POSITION"), rows.getString("COLUMN_NAME"));
                kinds.put(index, (rows.getBoolean("NON_UNIQUE") ? "index" : "unique index") + " where "
                        + rows.getString("FILTER_CONDITION"));
            }
        }
        indexes.forEach((index, columns) -> lines.add(kinds.get(index) + " " + index + " " + columns.values()));
        return (lines.size() > 1) ? String.join("\n", lines) : "";
    }

}
