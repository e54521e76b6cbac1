package io.github.delaytask.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import com.baomidou.mybatisplus.extension.plugins.MybatisPlusInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.OptimisticLockerInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.inner.PaginationInnerInterceptor;
import com.baomidou.mybatisplus.extension.plugins.pagination.Page;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.autoconfigure.hostapp.HostApplication;
import io.github.delaytask.autoconfigure.hostapp.HostMapper;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.store.mybatis.JdbcDistributedLocks;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DelayTaskAutoConfiguration}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTaskAutoConfigurationTests {

    private TestBackend backend;

    private ApplicationContextRunner contextRunner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, BootLine.DATA_SOURCE,
                    BootLine.TRANSACTION_MANAGER, BootLine.JACKSON,
                    BootLine.MYBATIS_PLUS, DelayTaskAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]));
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void defaultsProvideTheServiceAndEveryPart() {
        this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
            .hasSingleBean(DelayTaskService.class)
            .hasSingleBean(TaskStore.class)
            .hasSingleBean(TaskQueues.class)
            .hasSingleBean(Claims.class)
            .hasSingleBean(Outcomes.class)
            .hasSingleBean(DistributedLocks.class)
            .hasSingleBean(DelayTaskJobs.class)
            .hasSingleBean(DelayTaskListenerEndpointRegistry.class)
            .hasSingleBean(DelayTaskDataSourceScriptDatabaseInitializer.class));
    }

    @Test
    void listenersAndJobsSetNotToStartWithTheContextWaitForTheirStart() {
        this.contextRunner.run((context) -> {
            assertThat(context.getBean(DelayTaskListenerEndpointRegistry.class).isRunning()).isTrue();
            assertThat(context.getBean(DelayTaskJobs.class).isRunning()).isTrue();
        });
        this.contextRunner
            .withPropertyValues("delay-task.listener.auto-startup=false", "delay-task.jobs.auto-startup=false")
            .run((context) -> {
                DelayTaskListenerEndpointRegistry listeners = context.getBean(DelayTaskListenerEndpointRegistry.class);
                DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
                assertThat(listeners.isRunning()).as("listeners").isFalse();
                assertThat(jobs.isRunning()).as("jobs").isFalse();
                jobs.start();
                listeners.start();
                assertThat(listeners.isRunning()).as("listeners, started").isTrue();
                assertThat(jobs.isRunning()).as("jobs, started").isTrue();
            });
    }

    /**
     * The listeners' first claims find a Redis that started empty and ask the jobs' recovery to mark their queues
     * loaded: a recovery started after them missed those asks, and an idle queue stayed unmarked until its next
     * look, a flaky {@code IdleDispatcherTests} on a loaded machine.
     */
    @Test
    void theJobsStartBeforeTheListenersAndStopAfterThem() {
        this.contextRunner.run((context) -> assertThat(context.getBean(DelayTaskJobs.class).getPhase())
            .isLessThan(context.getBean(DelayTaskListenerEndpointRegistry.class).getPhase()));
    }

    /**
     * Every auto-configuration on the class path, in the order Boot itself sorts them: a name in
     * {@code @AutoConfiguration(afterName = ...)} that this Boot line does not have would put the starter before
     * Redis and the data source, and its {@code @ConditionalOnBean} would switch it off without a word.
     */
    @Test
    void inBootsOwnOrderOfEveryAutoConfigurationTheStarterComesUpFromPropertiesAlone() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApplication.class)
            .web(WebApplicationType.NONE)
            .properties(this.backend.properties().toArray(new String[0]))
            .run()) {
            assertThat(context.getBeansOfType(DelayTaskService.class)).hasSize(1);
            assertThat(context.getBeansOfType(DelayTaskListenerEndpointRegistry.class)).hasSize(1);
            assertThat(context.getBeansOfType(DelayTaskJobs.class)).hasSize(1);
            assertThat(context.getBeansOfType(DistributedLocks.class)).hasSize(1);
        }
    }

    @Test
    void withoutAKeyPrefixTheKeysStartWithTheIdOfTheTaskStore() {
        this.contextRunner.withPropertyValues("delay-task.redis.key-prefix=").run((context) -> {
            String storeId = context.getBean(TaskStore.class).storeId();
            assertThat(storeId).matches("[0-9a-f]{32}");
            assertThat(context.getBean(RedisKeys.class).prefix()).isEqualTo("delay-task:" + storeId);
            assertThat(context.getBean(RedisKeys.class).lock("reload")).isEqualTo("delay-task:" + storeId
                    + ":lock:reload");
        });
    }

    /**
     * Under the store's own keys no other application's ids can be: an id the store does not know is of a task it
     * finished and whose history the purge deleted, which Redis restored from an old snapshot still holds. It used to
     * be taken for another application's and handed out again every second, for ever, with an error about shared
     * keys.
     */
    @Test
    void withoutAKeyPrefixAnIdWhoseHistoryWasPurgedIsForgottenNotLeftToAnotherApplication() {
        this.contextRunner.withPropertyValues("delay-task.redis.key-prefix=", "delay-task.listener.enabled=false")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long id = service.addTask(DelayTask.builder(77).build());
                await().atMost(Duration.ofSeconds(10)).until(() -> service.poll(77, 0) != null);
                new JdbcTemplate(context.getBean(DataSource.class))
                    .update("DELETE FROM taskinfo_logs WHERE task_id = ?", id);
                TaskQueues queues = context.getBean(TaskQueues.class);
                QueueId queue = new QueueId(77, 0);
                queues.schedule(queue, id, 0);

                assertThat(service.poll(77, 0)).isNull();

                assertThat(context.getBean(QueueAdministration.class).sizes(queue)).containsExactly(0, 0, 0);
            });
    }

    @Test
    void aSchemaWithoutTheStoreIdFailsStartUpSayingWhatToDo() {
        String url = "jdbc:h2:mem:delaytask_no_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        this.contextRunner.withPropertyValues("spring.datasource.url=" + url, "delay-task.redis.key-prefix=",
                "spring.sql.init.mode=never")
            .run((context) -> {
                // the schema of an earlier version: every table but taskinfo_store
                new org.springframework.jdbc.core.JdbcTemplate(context.getBean(javax.sql.DataSource.class))
                    .execute("DROP TABLE taskinfo_store");
            });
        this.contextRunner.withPropertyValues("spring.datasource.url=" + url, "delay-task.redis.key-prefix=",
                "delay-task.jdbc.initialize-schema=never")
            .run((context) -> assertThat(context).getFailure()
                .hasStackTraceContaining("The delay-task schema has no store id (table taskinfo_store")
                .hasStackTraceContaining("set delay-task.redis.key-prefix"));
    }

    @Test
    void aSchemaWithoutTheFinishingTimeFailsStartUpSayingWhatToDo() {
        String url = "jdbc:h2:mem:delaytask_no_finished_at_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        this.contextRunner.withPropertyValues("spring.datasource.url=" + url).run((context) -> {
            // the log table of an earlier version
            org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
                    context.getBean(javax.sql.DataSource.class));
            jdbc.execute("DROP INDEX idx_taskinfo_logs_finished");
            jdbc.execute("ALTER TABLE taskinfo_logs DROP COLUMN finished_at");
        });
        this.contextRunner.withPropertyValues("spring.datasource.url=" + url, "delay-task.jdbc.initialize-schema=never")
            .run((context) -> assertThat(context).getFailure()
                .hasStackTraceContaining("The delay-task schema has no column taskinfo_logs.finished_at")
                .hasStackTraceContaining("Upgrading a schema created by an earlier version"));
        this.contextRunner.withPropertyValues("spring.datasource.url=" + url)
            .run((context) -> assertThat(context).as("the H2 script adds what is missing").hasNotFailed());
    }

    @Test
    void publishesNoExecutorOrSchedulerThatWouldMakeBootsOwnBackOff() {
        this.contextRunner.run((context) -> assertThat(context)
            .doesNotHaveBean(java.util.concurrent.Executor.class)
            .doesNotHaveBean(org.springframework.scheduling.TaskScheduler.class));
    }

    @Test
    void enabledFalseTurnsTheStarterOff() {
        this.contextRunner.withPropertyValues("delay-task.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(DelayTaskService.class)
                .doesNotHaveBean(DelayTaskJobs.class));
    }

    @Test
    void wakeUpsAreOnByDefaultAndWakeUpsFalseTurnsThemOffWhileTheListenersStillRun() {
        this.contextRunner.run((context) -> assertThat(context).hasSingleBean(io.github.delaytask.redis.WakeUps.class));
        this.contextRunner.withPropertyValues("delay-task.listener.wake-ups=false")
            .run((context) -> assertThat(context).hasSingleBean(DelayTaskListenerEndpointRegistry.class)
                .doesNotHaveBean(io.github.delaytask.redis.WakeUps.class));
    }

    @Test
    void listenerEnabledFalseKeepsTheServiceButStartsNoListeners() {
        this.contextRunner.withPropertyValues("delay-task.listener.enabled=false")
            .run((context) -> assertThat(context).hasSingleBean(DelayTaskService.class)
                .doesNotHaveBean(DelayTaskListenerEndpointRegistry.class));
    }

    @Test
    void runsOnTheDatabaseAloneWithoutRedisEvenWithoutTheLockAutoConfiguration() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.DATA_SOURCE,
                    BootLine.MYBATIS_PLUS, DelayTaskAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .run((context) -> {
                assertThat(context).hasNotFailed().hasSingleBean(DelayTaskService.class);
                assertThat(context.getBean(Claims.class).databaseOnly()).isTrue();
                // the purge job's lock
                assertThat(context).getBean(DistributedLocks.class).isInstanceOf(JdbcDistributedLocks.class);
            });
    }

    @Test
    void runsOnTheDatabaseAloneWhenRedisIsTurnedOff() {
        this.contextRunner.withPropertyValues("delay-task.redis.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RedisKeys.class).doesNotHaveBean(WakeUps.class);
            assertThat(context.getBean(Claims.class).databaseOnly()).isTrue();
            assertThat(context.getBean(Claims.class).dispatchedFromDatabase()).isEmpty();
        });
    }

    @Test
    void aValueTheBinderTakesAsFalseTurnsRedisOffToo() {
        this.contextRunner.withPropertyValues("delay-task.redis.enabled=off")
            .run((context) -> assertThat(context.getBean(Claims.class).databaseOnly()).isTrue());
    }

    @Test
    void locksChosenInRedisWhileRedisIsNotUsedFailStartUpNamingBothProperties() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(DelayTaskLockAutoConfiguration.class))
            .withPropertyValues("delay-task.redis.enabled=false", "delay-task.lock.store=redis")
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("delay-task.lock.store is redis")
                .hasMessageContaining("delay-task.redis.enabled is false"));
    }

    @Test
    void usesRedisWhenTheApplicationHasIt() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(RedisKeys.class);
            assertThat(context.getBean(Claims.class).databaseOnly()).isFalse();
        });
    }

    @Test
    void backsOffWhenMybatisPlusIsNotOnTheClasspath() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(OptimisticLockerInnerInterceptor.class))
            .run((context) -> assertThat(context).doesNotHaveBean(DelayTaskService.class));
    }

    @Test
    void userDefinedServiceReplacesOurs() {
        this.contextRunner.withUserConfiguration(UserServiceConfiguration.class)
            .run((context) -> assertThat(context).getBean(DelayTaskService.class)
                .isSameAs(context.getBean(UserServiceConfiguration.class).service));
    }

    @Test
    void propertiesAreBound() {
        this.contextRunner
            .withPropertyValues("delay-task.preload-window=10m", "delay-task.reload-interval=30s",
                    "delay-task.lease=2m", "delay-task.listener.concurrency=4", "delay-task.listener.poll-interval=20ms",
                    "delay-task.retry.max-attempts=5", "delay-task.max-parameters-size=1MB",
                    "delay-task.jdbc.initialize-schema=never", "delay-task.jdbc.validate-schema=false",
                    "delay-task.jdbc.group-adds=false",
                    "delay-task.lock.lock-at-least-for=5s", "delay-task.history.retention=90d",
                    "delay-task.history.dead-retention=365d", "delay-task.history.purge-interval=15m",
                    "delay-task.history.purge-enabled=false")
            .run((context) -> {
                DelayTaskProperties properties = context.getBean(DelayTaskProperties.class);
                assertThat(properties.getPreloadWindow()).isEqualTo(Duration.ofMinutes(10));
                assertThat(properties.getReloadInterval()).isEqualTo(Duration.ofSeconds(30));
                assertThat(properties.getLease()).isEqualTo(Duration.ofMinutes(2));
                assertThat(properties.getListener().getConcurrency()).isEqualTo(4);
                assertThat(properties.getListener().getPollInterval()).isEqualTo(Duration.ofMillis(20));
                assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(5);
                assertThat(properties.getMaxParametersSize().toBytes()).isEqualTo(1024 * 1024);
                assertThat(properties.getJdbc().getInitializeSchema().name()).isEqualTo("NEVER");
                assertThat(properties.getJdbc().isValidateSchema()).isFalse();
                assertThat(properties.getJdbc().isGroupAdds()).isFalse();
                assertThat(properties.getLock().getLockAtLeastFor()).isEqualTo(Duration.ofSeconds(5));
                assertThat(properties.getHistory().getRetention()).isEqualTo(Duration.ofDays(90));
                assertThat(properties.getHistory().getDeadRetention()).isEqualTo(Duration.ofDays(365));
                assertThat(properties.getHistory().getPurgeInterval()).isEqualTo(Duration.ofMinutes(15));
                assertThat(properties.getHistory().isPurgeEnabled()).isFalse();
            });
    }

    @Test
    void historyIsKeptThirtyDaysAndDeadTasksUntilRequeuedByDefault() {
        this.contextRunner.run((context) -> {
            DelayTaskProperties.History history = context.getBean(DelayTaskProperties.class).getHistory();
            assertThat(history.getRetention()).isEqualTo(Duration.ofDays(30));
            assertThat(history.getDeadRetention()).isNull();
            assertThat(history.getPurgeInterval()).isEqualTo(Duration.ofHours(1));
            assertThat(history.isPurgeEnabled()).isTrue();
        });
    }

    @Test
    void aRetentionOrPurgeIntervalThatIsNotPositiveFailsStartUpNamingTheProperty() {
        for (String property : new String[] { "delay-task.history.retention", "delay-task.history.dead-retention",
                "delay-task.history.purge-interval" }) {
            this.contextRunner.withPropertyValues(property + "=0s")
                .run((context) -> assertThat(context).hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(property + " must be positive"));
        }
        this.contextRunner.withPropertyValues("delay-task.history.retention=-1d")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.history.retention must be positive"));
    }

    @Test
    void preloadWindowNotLongerThanTheFeedIntervalAndItsMarginFailsStartUpSayingWhy() {
        this.contextRunner.withPropertyValues("delay-task.preload-window=1500ms", "delay-task.feed-interval=1s")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.preload-window")
                .hasMessageContaining("delay-task.feed-interval"));
        // a full reload rarer than the window is long: the feed brings tasks in
        this.contextRunner.withPropertyValues("delay-task.preload-window=1m", "delay-task.reload-interval=1h")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void anMdcKeyThatCannotBeCarriedFailsStartUpNamingTheProperty() {
        this.contextRunner.withPropertyValues("delay-task.context.mdc-keys=user,trace id")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.context.mdc-keys has 'trace id'"));
    }

    @Test
    void keyPrefixWithAHashTagFailsStartUpSayingWhy() {
        this.contextRunner.withPropertyValues("delay-task.redis.key-prefix={app}")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("must not contain '{' or '}'"));
    }

    @Test
    void theApplicationsMybatisConfigurationGetsNeitherAnInterceptorNorAMapperOfTheStarters() {
        this.contextRunner.run((context) -> {
            assertThat(context).doesNotHaveBean(MybatisPlusInterceptor.class);
            org.apache.ibatis.session.Configuration configuration = context.getBean(SqlSessionTemplate.class)
                .getConfiguration();
            assertThat(configuration.getInterceptors()).isEmpty();
            assertThat(configuration.getMapperRegistry().getMappers())
                .noneMatch((mapper) -> mapper.getName().startsWith("io.github.delaytask."));
        });
    }

    @Test
    void theApplicationsInterceptorKeepsItsOwnInnerInterceptorsOnlyAndItsMapperStillWorks() {
        this.contextRunner.withUserConfiguration(HostApplication.class).run((context) -> {
            MybatisPlusInterceptor interceptor = context.getBean(MybatisPlusInterceptor.class);
            assertThat(interceptor.getInterceptors()).singleElement().isInstanceOf(PaginationInnerInterceptor.class);
            assertThat(context.getBean(SqlSessionTemplate.class).getConfiguration().getInterceptors())
                .containsExactly(interceptor);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (int i = 0; i < 3; i++) {
                service.addTask(DelayTask.builder(5).delay(Duration.ofHours(1)).build());
            }
            Page<Long> page = new Page<>(1, 2);
            context.getBean(HostMapper.class).pageOfTaskIds(page);
            assertThat(page.getTotal()).isEqualTo(3);
            assertThat(page.getRecords()).hasSize(2);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserServiceConfiguration {

        // a stand-in the application wrote itself; the test only checks that it is the bean in use
        final DelayTaskService service = (DelayTaskService) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] { DelayTaskService.class }, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });

        @Bean
        DelayTaskService userDelayTaskService() {
            return this.service;
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class PlainApplication {

    }

}
