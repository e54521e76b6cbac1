package io.github.delaytask.store.mybatis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Function;

import javax.sql.DataSource;

import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.github.delaytask.store.TaskStore;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A database or schema of its own for one test of the store's contract, made with the schema script users run, and
 * the starter's store on it as the auto-configuration builds it.
 */
final class ContractDatabase {

    private final String serverUrl;

    private final String url;

    private final String username;

    private final String drop;

    private final String platform;

    private ContractDatabase(String serverUrl, String url, String username, String create, String drop,
            String platform) {
        this.serverUrl = serverUrl;
        this.url = url;
        this.username = username;
        this.drop = drop;
        if (create != null) {
            execute(serverUrl, create);
        }
        this.platform = platform;
        runSchemaScript(TableNames.NONE);
    }

    /** Run the schema script users run, under the table names given. */
    void runSchemaScript(TableNames tables) {
        try (Connection connection = DriverManager.getConnection(this.url, this.username, "")) {
            String script = new ClassPathResource("META-INF/delay-task/sql/schema-" + this.platform + ".sql")
                .getContentAsString(StandardCharsets.UTF_8);
            ScriptUtils.executeSqlScript(connection, new ByteArrayResource(tables.sql(script).getBytes(
                    StandardCharsets.UTF_8)));
        }
        catch (SQLException | IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String name() {
        return "contract_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    static ContractDatabase h2() {
        String url = "jdbc:h2:mem:" + name() + ";DB_CLOSE_DELAY=-1";
        return new ContractDatabase(url, url, "sa", null, "SHUTDOWN", "h2");
    }

    static ContractDatabase mariaDb() {
        String name = name();
        return new ContractDatabase("jdbc:mariadb://127.0.0.1:3306/test", "jdbc:mariadb://127.0.0.1:3306/" + name,
                "root", "CREATE DATABASE " + name, "DROP DATABASE IF EXISTS " + name, "mysql");
    }

    static ContractDatabase postgreSql() {
        String name = name();
        String server = "jdbc:postgresql://127.0.0.1:5432/test";
        return new ContractDatabase(server, server + "?currentSchema=" + name, "postgres", "CREATE SCHEMA " + name,
                "DROP SCHEMA IF EXISTS " + name + " CASCADE", "postgresql");
    }

    TaskStore store() {
        return store(DataSourceTransactionManager::new);
    }

    /** The store, with a transaction manager of the test's on the database's data source. */
    TaskStore store(Function<DataSource, PlatformTransactionManager> transactionManager) {
        DataSource dataSource = dataSource();
        IdentifierGenerator ids = DefaultIdentifierGenerator.getInstance();
        SqlSessionTemplate sessions = MybatisSetup.sqlSessions(dataSource, ids, TableNames.NONE);
        return new MybatisTaskStore(sessions.getMapper(TaskInfoMapper.class),
                sessions.getMapper(TaskInfoLogMapper.class),
                new TransactionTemplate(transactionManager.apply(dataSource)), new JdbcTemplate(dataSource), ids,
                false, () -> false, true, TableNames.NONE);
    }

    /** A data source on the database, of connections made on demand. */
    DataSource dataSource() {
        return new DriverManagerDataSource(this.url, this.username, "");
    }

    void drop() {
        execute(this.serverUrl, this.drop);
    }

    private void execute(String server, String sql) {
        try (Connection connection = DriverManager.getConnection(server, this.username, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
