package io.github.delaytask.autoconfigure;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.dao.DataAccessException;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;

/**
 * Creates the {@code taskinfo} and {@code taskinfo_logs} tables from the scripts in {@code sql/}, following
 * {@code delay-task.jdbc.initialize-schema} as Boot's Quartz support follows {@code spring.quartz.jdbc.*}.
 */
public class DelayTaskDataSourceScriptDatabaseInitializer extends DataSourceScriptDatabaseInitializer {

    private static final int ATTEMPTS = 3;

    public DelayTaskDataSourceScriptDatabaseInitializer(DataSource dataSource, DelayTaskProperties.Jdbc properties) {
        super(dataSource, settings(dataSource, properties));
    }

    /**
     * Runs the script, again after a short random pause if it failed: instances that start together on an empty
     * database race to create the same tables, and PostgreSQL fails a {@code CREATE ... IF NOT EXISTS} that loses
     * such a race; the next run finds the tables and does nothing.
     */
    @Override
    public boolean initializeDatabase() {
        for (int attempt = 1;; attempt++) {
            try {
                return super.initializeDatabase();
            }
            catch (DataAccessException ex) {
                if (attempt >= ATTEMPTS) {
                    throw ex;
                }
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(100, 500));
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw ex;
                }
            }
        }
    }

    static DatabaseInitializationSettings settings(DataSource dataSource, DelayTaskProperties.Jdbc properties) {
        DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
        // resolving @@platform@@ opens a connection: not worth it when nothing will run
        settings.setSchemaLocations((properties.getInitializeSchema() != DatabaseInitializationMode.NEVER)
                ? resolveSchemaLocations(dataSource, properties) : List.of());
        settings.setMode(properties.getInitializeSchema());
        settings.setContinueOnError(false);
        return settings;
    }

    private static List<String> resolveSchemaLocations(DataSource dataSource, DelayTaskProperties.Jdbc properties) {
        PlatformPlaceholderDatabaseDriverResolver resolver = new PlatformPlaceholderDatabaseDriverResolver()
            .withDriverPlatform(DatabaseDriver.MARIADB, "mysql");
        if (properties.getPlatform() != null && !properties.getPlatform().isEmpty()) {
            return resolver.resolveAll(properties.getPlatform(), properties.getSchema());
        }
        return resolver.resolveAll(dataSource, properties.getSchema());
    }

}
