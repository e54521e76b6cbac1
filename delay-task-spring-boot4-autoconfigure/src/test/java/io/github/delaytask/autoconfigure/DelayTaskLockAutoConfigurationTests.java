package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.actuate.ScheduledLocksEndpoint;
import io.github.delaytask.actuate.ScheduledLocksEndpointWebExtension;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LastRun;
import io.github.delaytask.lock.LockRecords;
import io.github.delaytask.lock.LockedRunner;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.lock.RedisLockRecords;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.mybatis.JdbcDistributedLocks;
import io.github.delaytask.store.mybatis.JdbcLockRecords;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DelayTaskLockAutoConfiguration} and {@link DelayTaskLockEndpointAutoConfiguration}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTaskLockAutoConfigurationTests {

    private TestBackend backend;

    private ApplicationContextRunner contextRunner;

    @BeforeAll
    void startRedis() {
        this.backend = TestBackend.embedded();
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS,
                    DelayTaskLockAutoConfiguration.class, DelayTaskLockEndpointAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + this.backend.redisHost(),
                    "spring.data.redis.port=" + this.backend.redisPort(),
                    "delay-task.redis.key-prefix=" + this.backend.keyPrefix());
    }

    @AfterAll
    void stopRedis() {
        this.backend.close();
    }

    @Test
    void redisAloneProvidesTheLockWithoutADatabase() {
        this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(SqlSessionTemplate.class)
            .hasSingleBean(DistributedLockAnnotationBeanPostProcessor.class)
            .hasSingleBean(LockedRunner.class)
            .hasSingleBean(LockRecords.class)
            .hasSingleBean(DistributedLocks.class)
            .getBean(DistributedLocks.class)
            .isInstanceOf(RedisDistributedLocks.class));
    }

    @Test
    void starterJobsShareTheLockOfDistributedLockMethods() {
        this.contextRunner
            .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE,
                    BootLine.TRANSACTION_MANAGER, BootLine.JACKSON,
                    BootLine.MYBATIS_PLUS, DelayTaskAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("delay-task.listener.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed()
                    .hasSingleBean(DelayTaskJobs.class)
                    .hasSingleBean(DistributedLocks.class)
                    .hasSingleBean(LockedRunner.class);
                assertThat(context.getBean(DistributedLocks.class)).as("Redis, as the application has it")
                    .isInstanceOf(RedisDistributedLocks.class);
                assertThat(context.getBean(LockRecords.class)).isInstanceOf(RedisLockRecords.class);
            });
    }

    @Test
    void distributedLocksOfTheApplicationIsUsedInsteadAndNoRunIsRecorded() {
        RecordingLocks locks = new RecordingLocks();
        this.contextRunner.withBean(DistributedLocks.class, () -> locks)
            .withBean(Nightly.class)
            .run((context) -> {
                assertThat(context).hasSingleBean(DistributedLocks.class)
                    .doesNotHaveBean(RedisDistributedLocks.class)
                    .doesNotHaveBean(RedisLockRecords.class);
                context.getBean(Nightly.class).run();
                assertThat(locks.names).containsExactly("nightly");
                assertThat(context.getBean(LockedRunner.class).lastRun("nightly")).isEmpty();
            });
    }

    @Test
    void disablingDelayTaskDisablesTheLock() {
        this.contextRunner.withPropertyValues("delay-task.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(DistributedLockAnnotationBeanPostProcessor.class)
                .doesNotHaveBean(DistributedLocks.class)
                .doesNotHaveBean(LockedRunner.class));
    }

    @Test
    void distributedLockMethodWithoutRedisFailsStartUpRatherThanRunOnEveryInstance() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withBean(Nightly.class)
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining(
                        "'delayTaskLockAutoConfigurationTests.Nightly' method " + Nightly.class.getName() + ".run")
                .hasMessageContaining("needs a DistributedLocks bean"));
    }

    @Test
    void applicationWithoutSpringDataRedisAndWithoutLockedMethodsStarts() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
            .run((context) -> assertThat(context).hasNotFailed()
                .hasSingleBean(DistributedLockAnnotationBeanPostProcessor.class)
                .doesNotHaveBean(DistributedLocks.class));
    }

    @Test
    void theDatabaseKeepsTheLocksWhenChosenAndTheStarterJobsAndLockedMethodsShareThem() {
        this.contextRunner
            .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE,
                    BootLine.TRANSACTION_MANAGER, BootLine.JACKSON,
                    BootLine.MYBATIS_PLUS, DelayTaskAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("delay-task.listener.enabled=false", "delay-task.lock.store=database")
            .withBean(Nightly.class)
            .run((context) -> {
                assertThat(context).hasNotFailed()
                    .hasSingleBean(DelayTaskJobs.class)
                    .hasSingleBean(LockedRunner.class)
                    .doesNotHaveBean(RedisDistributedLocks.class)
                    .doesNotHaveBean(RedisLockRecords.class);
                assertThat(context.getBean(DistributedLocks.class)).isInstanceOf(JdbcDistributedLocks.class);
                assertThat(context.getBean(LockRecords.class)).isInstanceOf(JdbcLockRecords.class);
                context.getBean(Nightly.class).run();
                assertThat(context.getBean(LockedRunner.class).lastRun("nightly")).hasValueSatisfying(
                        (run) -> assertThat(run.outcome()).isEqualTo(LastRun.Outcome.SUCCEEDED));
                assertThat(context.getBean(DistributedLocks.class).tryLock("nightly", Duration.ofMinutes(1)))
                    .as("released after its run").isPresent();
            });
    }

    @Test
    void anApplicationWithoutRedisKeepsItsLocksInItsDatabase() {
        DriverManagerDataSource database = h2(true);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withBean(DataSource.class, () -> database)
            .withBean(Nightly.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DistributedLocks.class)).isInstanceOf(JdbcDistributedLocks.class);
                context.getBean(Nightly.class).run();
                assertThat(context.getBean(LockedRunner.class).lastRun("nightly")).isPresent();
                assertThat(new JdbcTemplate(database).queryForObject(
                        "SELECT run_outcome FROM taskinfo_lock WHERE name = 'nightly'", String.class))
                    .isEqualTo("SUCCEEDED");
            });
    }

    @Test
    void locksChosenInADatabaseWithoutTheirTableFailStartUpSayingWhichTable() {
        this.contextRunner.withBean(DataSource.class, () -> h2(false))
            .withPropertyValues("delay-task.lock.store=database")
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("delay-task.lock.store is database, but the delay-task schema lacks the table "
                        + "taskinfo_lock"));
    }

    @Test
    void withoutRedisADatabaseWithoutTheLockTableFailsStartUpOnlyWhenAMethodHasDistributedLock() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withBean(DataSource.class, () -> h2(false));
        runner.run((context) -> assertThat(context).hasNotFailed());
        runner.withBean(Nightly.class)
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("the application has no Redis, so the locks of @DistributedLock are kept in the "
                        + "database, but the delay-task schema lacks the table taskinfo_lock"));
    }

    @Test
    void redisKeepsTheLocksWhenChosenOrByDefaultEvenWithADatabase() {
        for (String store : List.of("redis", "auto")) {
            this.contextRunner.withBean(DataSource.class, () -> h2(true))
                .withPropertyValues("delay-task.lock.store=" + store)
                .run((context) -> assertThat(context.getBean(DistributedLocks.class)).as(store)
                    .isInstanceOf(RedisDistributedLocks.class));
        }
    }

    @Test
    void locksChosenInRedisAreNotKeptInTheDatabaseForWantOfRedis() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withBean(DataSource.class, () -> h2(true))
            .withPropertyValues("delay-task.lock.store=redis");
        runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistributedLocks.class));
        runner.withBean(Nightly.class)
            .run((context) -> assertThat(context).getFailure().hasMessageContaining("needs a DistributedLocks bean"));
    }

    @Test
    void locksChosenInTheDatabaseOfAnApplicationWithSeveralDataSourcesFailStartUpNamingTheProperty() {
        this.contextRunner.withBean("first", DataSource.class, () -> h2(true))
            .withBean("second", DataSource.class, () -> h2(true))
            .withPropertyValues("delay-task.lock.store=database")
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("no single DataSource: set delay-task.jdbc.data-source"));
        this.contextRunner.withBean("first", DataSource.class, () -> h2(true))
            .withBean("second", DataSource.class, () -> h2(true))
            .withPropertyValues("delay-task.lock.store=database", "delay-task.jdbc.data-source=second")
            .run((context) -> assertThat(context.getBean(DistributedLocks.class))
                .isInstanceOf(JdbcDistributedLocks.class));
    }

    /** An H2 database of the test's own, with the starter's schema or none. */
    private static DriverManagerDataSource h2(boolean schema) {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(
                "jdbc:h2:mem:locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
        if (schema) {
            new ResourceDatabasePopulator(new ClassPathResource("META-INF/delay-task/sql/schema-h2.sql"))
                .execute(dataSource);
        }
        return dataSource;
    }

    @Test
    void endpointIsAbsentUnlessExposed() {
        this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ScheduledLocksEndpoint.class));
    }

    @Test
    void endpointAndItsWebExtensionArePresentWhenExposedOverTheWeb() {
        this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks")
            .run((context) -> assertThat(context).hasSingleBean(ScheduledLocksEndpoint.class)
                .hasSingleBean(ScheduledLocksEndpointWebExtension.class));
    }

    @Test
    void endpointIsAbsentWhenItsAccessIsNone() {
        this.contextRunner
            .withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks",
                    "management.endpoint.scheduledlocks.access=NONE")
            .run((context) -> assertThat(context).doesNotHaveBean(ScheduledLocksEndpoint.class));
    }

    @Test
    void endpointIsAbsentWithoutActuatorWhileTheLockWorks() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
            .withPropertyValues("management.endpoints.web.exposure.include=scheduledlocks")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(ScheduledLocksEndpoint.class)
                .hasSingleBean(LockedRunner.class));
    }

    @Test
    void lockDefaultsThatContradictEachOtherFailStartUp() {
        this.contextRunner
            .withPropertyValues("delay-task.lock.lock-at-most-for=10s", "delay-task.lock.lock-at-least-for=1m")
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining(
                        "delay-task.lock.lock-at-least-for must not be longer than delay-task.lock.lock-at-most-for"));
    }

    static class Nightly {

        @DistributedLock(name = "nightly")
        public void run() {
        }

    }

    static class RecordingLocks implements DistributedLocks {

        final List<String> names = new CopyOnWriteArrayList<>();

        @Override
        public Optional<LockHandle> tryLock(String name, Duration lockAtMostFor) {
            this.names.add(name);
            return Optional.of(new LockHandle() {

                @Override
                public String name() {
                    return name;
                }

                @Override
                public boolean unlock(Duration lockAtLeastFor) {
                    return true;
                }

                @Override
                public boolean extend(Duration lockAtMostFor) {
                    return true;
                }

            });
        }

    }

}
