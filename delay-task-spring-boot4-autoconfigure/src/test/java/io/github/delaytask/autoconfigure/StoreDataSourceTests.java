package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application with two {@link DataSource} beans, the primary one its own, pointing the starter at the other with
 * {@code delay-task.jdbc.data-source}: the starter's tables and tasks live there, and a transaction of the
 * application's on its primary data source does not hold the starter's writes; and which transaction manager runs
 * the starter's own transactions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreDataSourceTests {

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, BootLine.TRANSACTION_MANAGER,
                    BootLine.TRANSACTION, BootLine.JACKSON, BootLine.MYBATIS_PLUS, DelayTaskAutoConfiguration.class))
            .withBean("tasksDataSource", DataSource.class,
                    () -> new DriverManagerDataSource(this.backend.jdbcUrl(), this.backend.jdbcUsername(), ""))
            .withUserConfiguration(ApplicationDataSource.class)
            .withPropertyValues("spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + this.backend.redisPort(),
                    "delay-task.redis.key-prefix=" + this.backend.keyPrefix(),
                    "delay-task.jdbc.initialize-schema=always", "delay-task.listener.enabled=false");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    void theNamedDataSourceHoldsTheTablesAndTheTasksAndTheApplicationsTransactionDoesNotHoldTheAdd() {
        this.runner.withPropertyValues("delay-task.jdbc.data-source=tasksDataSource").run((context) -> {
            assertThat(context).hasNotFailed();
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TransactionTemplate applicationTransaction = new TransactionTemplate(
                    context.getBean(PlatformTransactionManager.class));
            long[] id = new long[1];
            applicationTransaction.executeWithoutResult((status) -> {
                id[0] = service.addTask(DelayTask.builder(3).delay(Duration.ofHours(1)).build());
                status.setRollbackOnly();
            });
            JdbcTemplate tasks = new JdbcTemplate(context.getBean("tasksDataSource", DataSource.class));
            assertThat(tasks.queryForObject("SELECT COUNT(*) FROM taskinfo WHERE task_id = ?", Long.class, id[0]))
                .as("the task, after the application's transaction rolled back").isOne();
            assertThat(service.findTask(id[0])).get().extracting(TaskDetails::status).isEqualTo(TaskStatus.SCHEDULED);
            JdbcTemplate application = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(application.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES "
                    + "WHERE LOWER(TABLE_NAME) = 'taskinfo'", Long.class)).as("taskinfo in the application's database")
                .isZero();
        });
    }

    @Test
    void aNameOfNoDataSourceFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues("delay-task.jdbc.data-source=reportsDataSource")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("delay-task.jdbc.data-source is 'reportsDataSource'"));
    }

    @Test
    void theApplicationsTransactionManagerRunsTheStartersTransactionsUnlessItManagesAnotherDataSource() {
        DataSource tasks = new DriverManagerDataSource("jdbc:h2:mem:unused");
        DataSource other = new DriverManagerDataSource("jdbc:h2:mem:unused");
        DataSourceTransactionManager ofTasks = new DataSourceTransactionManager(tasks);
        assertThat(StoreDataSource.transactionManager(tasks, ofTasks)).as("one of the starter's data source")
            .isSameAs(ofTasks);
        JpaLikeTransactionManager jpa = new JpaLikeTransactionManager(tasks);
        assertThat(StoreDataSource.transactionManager(tasks, jpa)).as("JPA's, binding connections of it")
            .isSameAs(jpa);
        JpaLikeTransactionManager jta = new JpaLikeTransactionManager(null);
        assertThat(StoreDataSource.transactionManager(tasks, jta)).as("one that names no data source (JTA)")
            .isSameAs(jta);
        assertThat(StoreDataSource.transactionManager(tasks, new DataSourceTransactionManager(other)))
            .as("one of another data source")
            .isInstanceOfSatisfying(DataSourceTransactionManager.class,
                    (own) -> assertThat(own.getDataSource()).isSameAs(tasks));
        assertThat(StoreDataSource.transactionManager(tasks, new JpaLikeTransactionManager(other)))
            .as("JPA's, binding connections of another data source")
            .isInstanceOfSatisfying(DataSourceTransactionManager.class,
                    (own) -> assertThat(own.getDataSource()).isSameAs(tasks));
        assertThat(StoreDataSource.transactionManager(tasks, null)).as("none")
            .isInstanceOfSatisfying(DataSourceTransactionManager.class,
                    (own) -> assertThat(own.getDataSource()).isSameAs(tasks));
    }

    /** A transaction manager that says which data source it binds connections of, as JPA's and Hibernate's do. */
    static class JpaLikeTransactionManager extends AbstractPlatformTransactionManager {

        private final DataSource dataSource;

        JpaLikeTransactionManager(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        public DataSource getDataSource() {
            return this.dataSource;
        }

        @Override
        protected Object doGetTransaction() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            throw new UnsupportedOperationException();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationDataSource {

        @Bean
        @Primary
        DataSource dataSource() {
            return new DriverManagerDataSource(
                    "jdbc:h2:mem:application_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1",
                    "sa", "");
        }

    }

}
