package io.github.delaytask.autoconfigure;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import io.github.delaytask.store.mybatis.TableNames;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
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

    private final TableNames tables;

    public DelayTaskDataSourceScriptDatabaseInitializer(DataSource dataSource, DelayTaskProperties.Jdbc properties) {
        super(dataSource, settings(dataSource, properties));
        TableNames tables = TableNames.withPrefix(properties.getTablePrefix());
        // a script of the application's own names the tables as the application wants them
        this.tables = properties.getSchema().equals(new DelayTaskProperties.Jdbc().getSchema()) ? tables
                : TableNames.NONE;
    }

    /** Runs the starter's scripts with the names of {@code delay-task.jdbc.table-prefix}. */
    @Override
    protected void runScripts(Scripts scripts) {
        if (this.tables.prefix().isEmpty()) {
            super.runScripts(scripts);
            return;
        }
        Charset encoding = (scripts.getEncoding() != null) ? scripts.getEncoding() : StandardCharsets.UTF_8;
        List<Resource> renamed = new ArrayList<>();
        for (Resource script : scripts) {
            try {
                renamed.add(new ByteArrayResource(
                        this.tables.sql(script.getContentAsString(encoding)).getBytes(encoding),
                        script.getDescription() + " for " + this.tables));
            }
            catch (IOException ex) {
                throw new IllegalStateException("Could not read the schema script " + script, ex);
            }
        }
        super.runScripts(new Scripts(renamed).continueOnError(scripts.isContinueOnError())
            .separator(scripts.getSeparator())
            .encoding(encoding));
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
