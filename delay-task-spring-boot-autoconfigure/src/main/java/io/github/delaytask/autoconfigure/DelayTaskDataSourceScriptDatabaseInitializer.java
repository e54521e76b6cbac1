package io.github.delaytask.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;

/**
 * Creates the {@code taskinfo} and {@code taskinfo_logs} tables from the scripts in {@code sql/}, following
 * {@code delay-task.jdbc.initialize-schema} as Boot's Quartz support follows {@code spring.quartz.jdbc.*}.
 */
public class DelayTaskDataSourceScriptDatabaseInitializer extends DataSourceScriptDatabaseInitializer {

    public DelayTaskDataSourceScriptDatabaseInitializer(DataSource dataSource, DelayTaskProperties.Jdbc properties) {
        super(dataSource, settings(dataSource, properties));
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
