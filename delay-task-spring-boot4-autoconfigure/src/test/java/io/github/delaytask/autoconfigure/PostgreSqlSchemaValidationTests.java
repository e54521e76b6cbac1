package io.github.delaytask.autoconfigure;

import java.util.UUID;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up check of a schema the starter did not create, on the real Redis and PostgreSQL of 127.0.0.1; and a
 * search path whose first schema does not hold the tables.
 */
@Tag("real-services")
class PostgreSqlSchemaValidationTests extends AbstractSchemaValidationTests {

    @Override
    protected TestBackend createBackend() {
        return TestBackend.postgreSql();
    }

    @Test
    void tablesFoundFurtherAlongTheSearchPathAreCheckedWhereTheyAre() {
        String first = "dt_first_" + UUID.randomUUID().toString().substring(0, 8);
        String url = this.backend.jdbcUrl();
        String tables = url.substring(url.indexOf("currentSchema=") + "currentSchema=".length());
        try {
            this.backend.execute("CREATE SCHEMA " + first);
            this.runner.withPropertyValues("spring.datasource.url=" + url.replace("currentSchema=" + tables,
                    "currentSchema=" + first + "," + tables))
                .run((context) -> assertThat(context).hasNotFailed());
        }
        finally {
            this.backend.execute("DROP SCHEMA IF EXISTS " + first + " CASCADE");
        }
    }

}
