package io.github.delaytask.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.TaskContextPropagator;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.ConsumedQueues;
import io.github.delaytask.core.DeadTaskEvents;
import io.github.delaytask.core.DefaultDelayTaskService;
import io.github.delaytask.core.DueSignals;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.Pauses;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.QueuePauses;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.ServerClock;
import io.github.delaytask.core.Schedules;
import io.github.delaytask.core.ServiceSettings;
import io.github.delaytask.core.TaskContexts;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.health.DelayTaskHealth;
import io.github.delaytask.listener.DelayTaskListenerAnnotationBeanPostProcessor;
import io.github.delaytask.listener.DelayTaskListenerEndpointRegistry;
import io.github.delaytask.listener.ListenerSettings;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LockRecords;
import io.github.delaytask.lock.RedisDistributedLocks;
import io.github.delaytask.observation.DelayTaskAddObservationConvention;
import io.github.delaytask.observation.DelayTaskListenerObservationConvention;
import io.github.delaytask.observation.TaskObservations;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.redis.RecoveryMarkers;
import io.github.delaytask.redis.RedisTime;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;
import io.github.delaytask.redis.SharedSettings;
import io.github.delaytask.redis.WakeUps;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.scheduling.HistorySettings;
import io.github.delaytask.scheduling.JobSettings;
import io.github.delaytask.scheduling.ScheduleKeeper;
import io.github.delaytask.store.ScheduleStore;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.store.mybatis.JdbcDistributedLocks;
import io.github.delaytask.store.mybatis.JdbcLockRecords;
import io.github.delaytask.store.mybatis.JdbcQueuePauses;
import io.github.delaytask.store.mybatis.JdbcScheduleStore;
import io.github.delaytask.store.mybatis.MybatisSetup;
import io.github.delaytask.store.mybatis.MybatisTaskStore;
import io.github.delaytask.store.mybatis.TableNames;
import io.github.delaytask.store.mybatis.TaskInfoLogMapper;
import io.github.delaytask.store.mybatis.TaskInfoMapper;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.micrometer.observation.ObservationRegistry;
import org.mybatis.spring.SqlSessionTemplate;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.system.JavaVersion;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * The configurations {@link DelayTaskAutoConfiguration}, {@link DelayTaskLockAutoConfiguration} and the health
 * contributor's auto-configuration of each Boot line import, one per part of the starter, each bean defined once.
 */
final class DelayTaskConfigurations {

    /** The idle poll interval, never shorter than the poll interval, which looks at idle queues at least as often. */
    static Duration idlePollInterval(DelayTaskProperties.Listener listener) {
        Duration idle = listener.getIdlePollInterval();
        return (idle.compareTo(listener.getPollInterval()) < 0) ? listener.getPollInterval() : idle;
    }

    /** The name of this instance's clock: of lock records and local waits, and the base of the due-time clock. */
    static final String CLOCK = "delayTaskClock";

    /**
     * The name of the clock of due times: delays, back-offs, leases and lateness, on the Redis server's clock, or
     * without Redis the database's. The name is kept from the days of Redis only, for applications that replace it.
     */
    static final String DUE_CLOCK = "delayTaskRedisClock";

    /** How often the due-time clock measures again how far this instance's clock is from the server's. */
    static final Duration SERVER_CLOCK_RESYNC = Duration.ofSeconds(30);

    private DelayTaskConfigurations() {
    }

    /** The starter's clock, which {@link #CLOCK a bean of that name} replaces. */
    static Clock clock(BeanFactory beanFactory) {
        return beanFactory.getBean(CLOCK, Clock.class);
    }

    /** The clock of due times, which {@link RedisClockConfiguration} or {@link DatabaseClockConfiguration} defines. */
    static Clock dueClock(BeanFactory beanFactory) {
        return beanFactory.getBean(DUE_CLOCK, Clock.class);
    }

    /**
     * Every {@link TaskEvents} bean, told in order: the meters of {@link DelayTaskMetricsAutoConfiguration} (or the
     * application's own events instead), and the recent activity of the {@code delaytasks} endpoint.
     */
    static TaskEvents events(ObjectProvider<TaskEvents> events) {
        return TaskEvents.of(events.orderedStream().toList());
    }

    /**
     * The starter's clock: not a candidate for autowiring, so that the application's beans that want a
     * {@link Clock} do not get it by accident, and an application's own {@code Clock} bean does not change the
     * starter's unless it is named {@value #CLOCK}.
     */
    @Configuration(proxyBeanMethods = false)
    static class ClockConfiguration {

        @Bean(name = CLOCK, autowireCandidate = false)
        @ConditionalOnMissingBean(name = CLOCK)
        Clock delayTaskClock() {
            return Clock.systemUTC();
        }

    }

    /**
     * The clock of due times: Redis decides when a task is due, so delays and back-offs computed on an instance whose
     * clock is off would make tasks early or late. Not a candidate for autowiring, as {@link ClockConfiguration}'s.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisUse.InUse.class)
    @Import(ClockConfiguration.class)
    static class RedisClockConfiguration {

        @Bean(name = DUE_CLOCK, autowireCandidate = false)
        @ConditionalOnMissingBean(name = DUE_CLOCK)
        ServerClock delayTaskRedisClock(StringRedisTemplate redisTemplate, BeanFactory beanFactory) {
            return new ServerClock(RedisTime.of(redisTemplate), "the Redis server", clock(beanFactory),
                    SERVER_CLOCK_RESYNC);
        }

    }

    /**
     * The clock of due times without Redis: the database's, which its claims compare execute times with. Not a
     * candidate for autowiring, as {@link ClockConfiguration}'s.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisUse.NotInUse.class)
    @Import(ClockConfiguration.class)
    static class DatabaseClockConfiguration {

        @Bean(name = DUE_CLOCK, autowireCandidate = false)
        @ConditionalOnMissingBean(name = DUE_CLOCK)
        ServerClock delayTaskRedisClock(ObjectProvider<TaskStore> store, BeanFactory beanFactory) {
            Clock local = clock(beanFactory);
            // read once started, by then the store is there; with the task auto-configuration left out there is
            // none, and this instance's clock serves
            return new ServerClock(() -> {
                TaskStore found = store.getIfAvailable();
                return (found != null) ? found.currentTimeMillis() : local.millis();
            }, "the database", local, SERVER_CLOCK_RESYNC);
        }

    }

    /** The Redis keys and the distributed lock, which the lock auto-configuration and the jobs share. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisUse.InUse.class)
    static class KeysConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RedisKeys delayTaskRedisKeys(DelayTaskProperties properties, ObjectProvider<TaskStore> store) {
            return DelayTaskRedisKeys.of(properties, store);
        }

        @Bean
        @ConditionalOnMissingBean(DistributedLocks.class)
        @Conditional(LockStoreCondition.OnRedis.class)
        RedisDistributedLocks delayTaskLocks(StringRedisTemplate redisTemplate, RedisKeys keys,
                BeanFactory beanFactory) {
            return new RedisDistributedLocks(redisTemplate, keys, clock(beanFactory));
        }

    }

    /** The observations of adds and handler runs, when turned on and the application has a registry. */
    @Configuration(proxyBeanMethods = false)
    static class ObservationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TaskObservations delayTaskObservations(DelayTaskProperties properties,
                ObjectProvider<ObservationRegistry> registry,
                ObjectProvider<DelayTaskAddObservationConvention> addConvention,
                ObjectProvider<DelayTaskListenerObservationConvention> listenerConvention) {
            ObservationRegistry observationRegistry = registry.getIfUnique();
            if (!properties.getObservation().isEnabled() || observationRegistry == null) {
                return TaskObservations.NONE;
            }
            return new TaskObservations(observationRegistry, addConvention.getIfUnique(),
                    listenerConvention.getIfUnique());
        }

    }

    /** What of an adding thread's context its task carries to its handler: MDC keys, and propagator beans. */
    @Configuration(proxyBeanMethods = false)
    static class ContextConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TaskContexts delayTaskContexts(DelayTaskProperties properties,
                ObjectProvider<TaskContextPropagator> propagators) {
            List<TaskContextPropagator> all = new ArrayList<>(propagators.orderedStream().toList());
            List<String> mdcKeys = properties.getContext().getMdcKeys();
            if (!mdcKeys.isEmpty() && !ClassUtils.isPresent("org.slf4j.MDC", null)) {
                throw new IllegalStateException("delay-task.context.mdc-keys is " + mdcKeys + ", but SLF4J's MDC "
                        + "is not on the class path");
            }
            for (String key : new LinkedHashSet<>(mdcKeys)) {
                Assert.isTrue(key.matches("[A-Za-z0-9._-]{1,60}"), () -> "delay-task.context.mdc-keys has '" + key
                        + "': a key carried with a task is 1 to 60 letters, digits, '.', '_' or '-'");
                all.add(TaskContextPropagator.mdc(key));
            }
            return all.isEmpty() ? TaskContexts.NONE : new TaskContexts(all);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class StoreConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TaskStore delayTaskStore(SqlSessionTemplate sqlSessionTemplate,
                ObjectProvider<PlatformTransactionManager> transactionManager, TaskObservations observations,
                TaskContexts contexts, DelayTaskProperties properties, BeanFactory beanFactory) {
            org.apache.ibatis.session.Configuration application = sqlSessionTemplate.getConfiguration();
            DataSource dataSource = StoreDataSource.choose(beanFactory, properties.getJdbc().getDataSource(),
                    () -> application.getEnvironment().getDataSource());
            IdentifierGenerator ids = MybatisSetup.identifierGenerator(application);
            TableNames tables = TableNames.withPrefix(properties.getJdbc().getTablePrefix());
            SqlSessionTemplate sessions = MybatisSetup.sqlSessions(dataSource, ids, tables);
            TransactionTemplate transactions = StoreDataSource.transactions(dataSource,
                    transactionManager.getIfUnique());
            DelayTaskProperties.Jdbc jdbc = properties.getJdbc();
            return new MybatisTaskStore(sessions.getMapper(TaskInfoMapper.class),
                    sessions.getMapper(TaskInfoLogMapper.class), transactions, new JdbcTemplate(dataSource), ids,
                    observations.enabled() || contexts.any(), jdbc::isValidateSchema,
                    properties.getRedis().getKeyPrefix() == null, tables);
        }

        @Bean
        @ConditionalOnMissingBean
        @Conditional(OneDataSourceCondition.class)
        DelayTaskDataSourceScriptDatabaseInitializer delayTaskDataSourceScriptDatabaseInitializer(
                ObjectProvider<DataSource> dataSources, DelayTaskProperties properties, BeanFactory beanFactory) {
            // not the SqlSessionTemplate's DataSource: Boot makes JDBC users wait for initializers, which would be
            // a cycle
            DataSource dataSource = StoreDataSource.choose(beanFactory, properties.getJdbc().getDataSource(),
                    dataSources::getIfUnique);
            return new DelayTaskDataSourceScriptDatabaseInitializer(dataSource, properties.getJdbc());
        }

    }

    /** The application has one {@link DataSource}, or delay-task.jdbc.data-source names one. */
    static final class OneDataSourceCondition extends AnyNestedCondition {

        OneDataSourceCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class Single {

        }

        @ConditionalOnProperty("delay-task.jdbc.data-source")
        static final class Named {

        }

    }

    /** The queues in Redis, and what claims, pauses and wakes up through them. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisUse.InUse.class)
    static class RedisQueuesConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TaskQueues delayTaskQueues(StringRedisTemplate redisTemplate, RedisKeys keys, DelayTaskProperties properties) {
            RedisTaskQueues queues = new RedisTaskQueues(redisTemplate, keys);
            // without the database's dispatch, nothing else can claim the queue: a claim waits for Redis
            queues.setClaimTimeout(properties.getDatabaseDispatch().isEnabled() ? claimTimeout(properties) : null);
            return queues;
        }

        /**
         * The claim timeout, at most half the lease: tasks claimed from the database after a round that waited it must
         * still start within their lease.
         */
        private static Duration claimTimeout(DelayTaskProperties properties) {
            Duration claimTimeout = properties.getDatabaseDispatch().getClaimTimeout();
            Duration half = properties.getLease().dividedBy(2);
            return (claimTimeout.compareTo(half) > 0) ? half : claimTimeout;
        }

        @Bean
        @ConditionalOnMissingBean
        QueueAdministration delayTaskQueueAdministration(StringRedisTemplate redisTemplate, RedisKeys keys) {
            return new QueueAdministration(redisTemplate, keys);
        }

        @Bean
        @ConditionalOnMissingBean
        RecoveryMarkers delayTaskRecoveryMarkers(StringRedisTemplate redisTemplate, RedisKeys keys) {
            return new RecoveryMarkers(redisTemplate, keys);
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBooleanProperty(name = "delay-task.listener.wake-ups", matchIfMissing = true)
        WakeUps delayTaskWakeUps(StringRedisTemplate redisTemplate, RedisKeys keys, DelayTaskProperties properties,
                BeanFactory beanFactory) {
            // a task due later than this is found by every dispatcher's look at an idle queue before it is due
            return new WakeUps(redisTemplate, keys, idlePollInterval(properties.getListener()),
                    dueClock(beanFactory));
        }

        @Bean
        @ConditionalOnMissingBean
        Claims delayTaskClaims(TaskStore store, TaskQueues queues, DueSignals signals, Pauses pauses,
                ConsumedQueues consumed, DelayTaskProperties properties, BeanFactory beanFactory,
                ObjectProvider<TaskEvents> events) {
            DelayTaskProperties.DatabaseDispatch databaseDispatch = properties.getDatabaseDispatch();
            Assert.isTrue(!databaseDispatch.isEnabled() || databaseDispatch.getPollInterval().toMillis() > 0,
                    "delay-task.database-dispatch.poll-interval must be at least 1ms");
            Assert.isTrue(!databaseDispatch.isEnabled() || databaseDispatch.getClaimTimeout().toMillis() > 0,
                    "delay-task.database-dispatch.claim-timeout must be at least 1ms");
            return new Claims(store, queues, properties.getLease(), dueClock(beanFactory), events(events), signals,
                    pauses, consumed,
                    databaseDispatch.isEnabled() ? databaseDispatch.getPollInterval() : Duration.ZERO,
                    databaseDispatch.isEnabled() ? claimTimeout(properties) : Duration.ofMillis(Long.MAX_VALUE));
        }

    }

    /**
     * Without Redis: queues that hold nothing, and claims that find every due task in the database, at the poll
     * interval of {@code delay-task.database-dispatch}.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisUse.NotInUse.class)
    static class DatabaseQueuesConfiguration {

        private static final Log logger = LogFactory.getLog(DatabaseQueuesConfiguration.class);

        @Bean
        @ConditionalOnMissingBean
        TaskQueues delayTaskQueues() {
            return TaskQueues.none();
        }

        /** The pauses in the task store's database, with its data source and transactions. */
        @Bean
        @ConditionalOnMissingBean
        JdbcQueuePauses delayTaskQueuePauses(SqlSessionTemplate sqlSessionTemplate,
                ObjectProvider<PlatformTransactionManager> transactionManager, DelayTaskProperties properties,
                BeanFactory beanFactory) {
            DataSource dataSource = StoreDataSource.choose(beanFactory, properties.getJdbc().getDataSource(),
                    () -> sqlSessionTemplate.getConfiguration().getEnvironment().getDataSource());
            JdbcQueuePauses pauses = new JdbcQueuePauses(new JdbcTemplate(dataSource),
                    StoreDataSource.transactions(dataSource, transactionManager.getIfUnique()),
                    TableNames.withPrefix(properties.getJdbc().getTablePrefix()));
            warnOfMissingTable(pauses);
            return pauses;
        }

        /**
         * A schema without the table of pauses: only pausing a queue needs it, so it warns rather than fails, and a
         * database down at start-up is the store's to report.
         */
        private static void warnOfMissingTable(JdbcQueuePauses pauses) {
            try {
                pauses.missingSchema()
                    .forEach((missing) -> logger.warn("The delay-task schema lacks the " + missing
                            + "; pausing a queue fails until it is added"));
            }
            catch (DataAccessException ex) {
                logger.debug("Could not check the delay-task table of pauses", ex);
            }
        }

        @Bean
        @ConditionalOnMissingBean
        Claims delayTaskClaims(TaskStore store, TaskQueues queues, DueSignals signals, Pauses pauses,
                ConsumedQueues consumed, DelayTaskProperties properties, BeanFactory beanFactory,
                ObjectProvider<TaskEvents> events, Environment environment) {
            Duration pollInterval = properties.getDatabaseDispatch().getPollInterval();
            Assert.isTrue(pollInterval.toMillis() > 0,
                    "delay-task.database-dispatch.poll-interval must be at least 1ms");
            // a mode chosen for want of a bean deserves a line: a profile that leaves Redis out chooses it too
            logger.info("delay-task runs without Redis, as " + RedisUse.whyNot(environment) + ": the database "
                    + "dispatches every queue, looking at idle ones every " + pollInterval.toMillis() + " ms");
            return Claims.databaseOnly(store, queues, properties.getLease(), dueClock(beanFactory), events(events),
                    signals, pauses, consumed, pollInterval);
        }

    }

    /** The task service and what it shares with the listeners, with Redis or without. */
    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ConsumedQueues delayTaskConsumedQueues() {
            return new ConsumedQueues();
        }

        @Bean
        @ConditionalOnMissingBean
        DueSignals delayTaskDueSignals(ConsumedQueues consumed, ObjectProvider<WakeUps> wakeUps,
                BeanFactory beanFactory) {
            // without Redis there are no wake-ups: an instance's own tasks wake its dispatchers, the others' are
            // found by the next look
            return new DueSignals(dueClock(beanFactory), consumed, wakeUps.getIfAvailable());
        }

        /** Pauses kept in Redis, or without it in the database. */
        @Bean
        @ConditionalOnMissingBean
        Pauses delayTaskPauses(QueuePauses queuePauses, DueSignals signals, BeanFactory beanFactory) {
            return new Pauses(queuePauses, signals, dueClock(beanFactory));
        }

        @Bean
        @ConditionalOnMissingBean
        Outcomes delayTaskOutcomes(TaskStore store, TaskQueues queues, DueSignals signals,
                DelayTaskProperties properties, BeanFactory beanFactory, ObjectProvider<TaskEvents> events,
                ApplicationEventPublisher publisher) {
            // the outcomes record deaths, which the application hears of as DeadTaskEvents
            TaskEvents outcomeEvents = TaskEvents.of(List.of(events(events), new DeadTaskEvents(publisher, store)));
            return new Outcomes(store, queues, properties.getLease(), dueClock(beanFactory), outcomeEvents, signals);
        }

        /** The retry policy of listeners that set none of their own, which delay-task-test runs by too. */
        @Bean
        @ConditionalOnMissingBean
        RetryPolicy delayTaskRetryPolicy(DelayTaskProperties properties) {
            DelayTaskProperties.Retry retry = properties.getRetry();
            return new RetryPolicy(retry.getMaxAttempts(), retry.getInitialDelay(), retry.getMultiplier(),
                    retry.getMaxDelay());
        }

        @Bean
        @ConditionalOnMissingBean
        DelayTaskService delayTaskService(TaskStore store, TaskQueues queues, Claims claims, Outcomes outcomes,
                Pauses pauses, DueSignals signals, DelayTaskProperties properties, PayloadCodec codec,
                RetryPolicy retryPolicy, BeanFactory beanFactory, ObjectProvider<TaskEvents> events,
                TaskObservations observations, TaskContexts contexts) {
            ServiceSettings settings = new ServiceSettings(properties.getPreloadWindow(),
                    properties.getMaxParametersSize().toBytes(), properties.getJdbc().isGroupAdds(),
                    properties.getRedis().getHandOffTimeout(), retryPolicy);
            return new DefaultDelayTaskService(store, queues, claims, outcomes, pauses, signals, codec,
                    dueClock(beanFactory), settings, events(events), observations, contexts);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ListenerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static DelayTaskListenerAnnotationBeanPostProcessor delayTaskListenerAnnotationBeanPostProcessor() {
            return new DelayTaskListenerAnnotationBeanPostProcessor();
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBooleanProperty(name = "delay-task.listener.enabled", matchIfMissing = true)
        DelayTaskListenerEndpointRegistry delayTaskListenerEndpointRegistry(
                DelayTaskListenerAnnotationBeanPostProcessor processor, Claims claims, Outcomes outcomes,
                Pauses pauses, DueSignals signals, ConsumedQueues consumed, PayloadCodec codec,
                RetryPolicy retryPolicy, DelayTaskProperties properties, Environment environment,
                ObjectProvider<TaskEvents> events, TaskObservations observations, TaskContexts contexts,
                ObjectProvider<WakeUps> wakeUps) {
            DelayTaskProperties.Listener listener = properties.getListener();
            // without wake-ups a task added elsewhere is found only by a look at its queue; without Redis, by the
            // database's look, whose interval bounds its load
            Duration idleLook = (wakeUps.getIfAvailable() != null) ? idlePollInterval(listener)
                    : claims.databaseOnly() ? longer(listener.getPollInterval(),
                            properties.getDatabaseDispatch().getPollInterval()) : listener.getPollInterval();
            // no more parameters in one claim than 64 MB, however large the parameters allowed
            int batchSize = ListenerSettings.claimBatch(listener.getBatchSize(),
                    properties.getMaxParametersSize().toBytes());
            ListenerSettings settings = new ListenerSettings(listener.getConcurrency(), listener.getPrefetch(),
                    batchSize, listener.getPollInterval(), properties.getShutdownTimeout(),
                    properties.getLease(), retryPolicy, virtualThreads(environment), idleLook, listener.getTimeout());
            DelayTaskListenerEndpointRegistry registry = new DelayTaskListenerEndpointRegistry(processor, claims,
                    outcomes, pauses, signals, consumed, codec, settings, events(events), observations, contexts);
            registry.setAutoStartup(listener.isAutoStartup());
            return registry;
        }

        private static Duration longer(Duration one, Duration other) {
            return (one.compareTo(other) >= 0) ? one : other;
        }

        /** Boot's own test of {@code spring.threads.virtual.enabled}, which works on Java 21 and later only. */
        private static boolean virtualThreads(Environment environment) {
            return environment.getProperty("spring.threads.virtual.enabled", boolean.class, false)
                    && JavaVersion.getJavaVersion().isEqualOrNewerThan(JavaVersion.TWENTY_ONE);
        }

    }

    /** What the health contributor of each Boot line reports. */
    @Configuration(proxyBeanMethods = false)
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @Conditional(RedisUse.InUse.class)
        DelayTaskHealth delayTaskHealth(StringRedisTemplate redisTemplate, TaskStore store,
                ObjectProvider<DelayTaskListenerEndpointRegistry> listeners, ObjectProvider<DelayTaskJobs> jobs,
                DelayTaskProperties properties, BeanFactory beanFactory, ObjectProvider<Claims> claims) {
            Claims dispatch = claims.getIfUnique();
            Supplier<Set<QueueId>> fromDatabase = (dispatch != null) ? dispatch::dispatchedFromDatabase : Set::of;
            return new DelayTaskHealth(redisTemplate, store, listeners.getIfUnique(), jobs.getIfUnique(),
                    properties.getHealth().getUnreachableAfter(), clock(beanFactory),
                    properties.getDatabaseDispatch().isEnabled() ? fromDatabase : null);
        }

        @Bean(name = "delayTaskHealth")
        @ConditionalOnMissingBean
        @Conditional(RedisUse.NotInUse.class)
        DelayTaskHealth delayTaskHealthWithoutRedis(TaskStore store,
                ObjectProvider<DelayTaskListenerEndpointRegistry> listeners, ObjectProvider<DelayTaskJobs> jobs,
                DelayTaskProperties properties, BeanFactory beanFactory) {
            return DelayTaskHealth.withoutRedis(store, listeners.getIfUnique(), jobs.getIfUnique(),
                    properties.getHealth().getUnreachableAfter(), clock(beanFactory));
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class JobsConfiguration {

        /** The settings every instance must share, checked before the others start. */
        @Bean
        @ConditionalOnMissingBean
        @Conditional(RedisUse.InUse.class)
        SharedSettings delayTaskSharedSettings(StringRedisTemplate redisTemplate, RedisKeys keys,
                DelayTaskProperties properties) {
            DelayTaskProperties.Listener listener = properties.getListener();
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("delay-task.preload-window", properties.getPreloadWindow().toString());
            settings.put("delay-task.listener.idle-poll-interval", idlePollInterval(listener).toString());
            settings.put("delay-task.listener.wake-ups", Boolean.toString(listener.isWakeUps()));
            return new SharedSettings(redisTemplate, keys, settings, properties.isRefuseConflictingSettings());
        }

        @Bean
        @ConditionalOnMissingBean
        @Conditional(RedisUse.InUse.class)
        DelayTaskJobs delayTaskJobs(TaskStore store, TaskQueues queues, QueueAdministration administration,
                RecoveryMarkers markers, Claims claims, DueSignals signals, ConsumedQueues consumed,
                DistributedLocks locks, DelayTaskProperties properties, BeanFactory beanFactory) {
            DelayTaskProperties.History history = properties.getHistory();
            DelayTaskJobs jobs = new DelayTaskJobs(store, queues, administration, markers, claims, signals, consumed,
                    locks, jobSettings(properties),
                    new HistorySettings(history.getRetention(), history.getDeadRetention(),
                            history.getPurgeInterval(), history.isPurgeEnabled()),
                    dueClock(beanFactory), clock(beanFactory));
            jobs.setAutoStartup(properties.getJobs().isAutoStartup());
            return jobs;
        }

        /** Without Redis only the purge runs: the database's claims find every due task themselves. */
        @Bean(name = "delayTaskJobs")
        @ConditionalOnMissingBean
        @Conditional(RedisUse.NotInUse.class)
        DelayTaskJobs delayTaskJobsWithoutRedis(TaskStore store, TaskQueues queues, Claims claims, DueSignals signals,
                ConsumedQueues consumed, ObjectProvider<DistributedLocks> lock, DelayTaskProperties properties,
                BeanFactory beanFactory, Environment environment) {
            DistributedLocks locks = lock.getIfAvailable();
            if (locks == null) {
                throw new IllegalStateException("delay-task.lock.store is redis, but delay-task runs without Redis, as "
                        + RedisUse.whyNot(environment) + ": set delay-task.lock.store to database or auto");
            }
            DelayTaskProperties.History history = properties.getHistory();
            DelayTaskJobs jobs = DelayTaskJobs.withoutRedis(store, queues, claims, signals, consumed, locks,
                    jobSettings(properties),
                    new HistorySettings(history.getRetention(), history.getDeadRetention(),
                            history.getPurgeInterval(), history.isPurgeEnabled()),
                    clock(beanFactory));
            jobs.setAutoStartup(properties.getJobs().isAutoStartup());
            return jobs;
        }

        private static JobSettings jobSettings(DelayTaskProperties properties) {
            return new JobSettings(properties.getPreloadWindow(), properties.getReloadInterval(),
                    properties.getRefreshInterval(), properties.getFeedInterval());
        }

    }

    /**
     * The locks of {@code @DistributedLock} and of the jobs in the task store's database: imported where the lock
     * auto-configuration chooses the database, never a member of a configuration class, which would be processed
     * whatever that class's conditions say.
     */
    @Configuration(proxyBeanMethods = false)
    static class DatabaseLockConfiguration {

        @Bean
        @ConditionalOnMissingBean(DistributedLocks.class)
        JdbcDistributedLocks delayTaskLocks(ObjectProvider<DataSource> dataSource,
                ObjectProvider<SqlSessionTemplate> sessions,
                ObjectProvider<PlatformTransactionManager> transactionManager, DelayTaskProperties properties,
                BeanFactory beanFactory) {
            DataSource chosen = lockDataSource(beanFactory, properties, dataSource, sessions);
            return new JdbcDistributedLocks(new JdbcTemplate(chosen),
                    StoreDataSource.transactions(chosen, transactionManager.getIfUnique()),
                    TableNames.withPrefix(properties.getJdbc().getTablePrefix()));
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(JdbcDistributedLocks.class)
        LockRecords delayTaskLockRecords(ObjectProvider<DataSource> dataSource,
                ObjectProvider<SqlSessionTemplate> sessions,
                ObjectProvider<PlatformTransactionManager> transactionManager, DelayTaskProperties properties,
                BeanFactory beanFactory) {
            DataSource chosen = lockDataSource(beanFactory, properties, dataSource, sessions);
            return new JdbcLockRecords(new JdbcTemplate(chosen),
                    StoreDataSource.transactions(chosen, transactionManager.getIfUnique()),
                    TableNames.withPrefix(properties.getJdbc().getTablePrefix()));
        }

        @Bean
        @ConditionalOnBean(JdbcDistributedLocks.class)
        LockTableCheck delayTaskLockTableCheck(JdbcDistributedLocks locks, DelayTaskProperties properties,
                ObjectProvider<DistributedLockAnnotationBeanPostProcessor> processor) {
            return new LockTableCheck(locks, properties.getLock().getStore() == DelayTaskProperties.Store.DATABASE,
                    () -> {
                        DistributedLockAnnotationBeanPostProcessor found = processor.getIfAvailable();
                        return found != null && !found.getLockedJobs().all().isEmpty();
                    });
        }

        /**
         * The task store's data source, where the schema script makes the table: the one named, the only one, or that
         * of MyBatis, as the store takes it.
         */
        private static DataSource lockDataSource(BeanFactory beanFactory, DelayTaskProperties properties,
                ObjectProvider<DataSource> dataSources, ObjectProvider<SqlSessionTemplate> sessions) {
            return StoreDataSource.choose(beanFactory, properties.getJdbc().getDataSource(), () -> {
                DataSource unique = dataSources.getIfUnique();
                SqlSessionTemplate mybatis = (unique == null) ? sessions.getIfUnique() : null;
                if (mybatis != null) {
                    return mybatis.getConfiguration().getEnvironment().getDataSource();
                }
                if (unique == null) {
                    throw new IllegalStateException("delay-task keeps its locks in the database "
                            + "(delay-task.lock.store), but the application has no single DataSource: set "
                            + "delay-task.jdbc.data-source to the one that holds the starter's tables");
                }
                return unique;
            });
        }

    }

    /**
     * Without Redis, the jobs' lock in the database, should the lock auto-configuration be left out: with Redis the
     * jobs take theirs from {@link KeysConfiguration}.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional({ RedisUse.NotInUse.class, LockStoreCondition.NotRedis.class })
    @Import(DatabaseLockConfiguration.class)
    static class DatabaseJobsLockConfiguration {

    }

    @Configuration(proxyBeanMethods = false)
    static class SchedulesConfiguration {

        private static final Log logger = LogFactory.getLog(SchedulesConfiguration.class);

        @Bean
        @ConditionalOnMissingBean
        ScheduleStore delayTaskScheduleStore(SqlSessionTemplate sqlSessionTemplate,
                ObjectProvider<PlatformTransactionManager> transactionManager, DelayTaskProperties properties,
                BeanFactory beanFactory) {
            // the task store's data source and transactions, so that a schedule's next time and its tasks commit
            // together
            DataSource dataSource = StoreDataSource.choose(beanFactory, properties.getJdbc().getDataSource(),
                    () -> sqlSessionTemplate.getConfiguration().getEnvironment().getDataSource());
            return new JdbcScheduleStore(new JdbcTemplate(dataSource),
                    StoreDataSource.transactions(dataSource, transactionManager.getIfUnique()),
                    TableNames.withPrefix(properties.getJdbc().getTablePrefix()));
        }

        @Bean
        @ConditionalOnMissingBean
        Schedules delayTaskSchedules(ScheduleStore store, DelayTaskService service, DelayTaskProperties properties,
                ObjectProvider<TaskSchedule> declared, BeanFactory beanFactory) {
            List<String> names = declared.orderedStream().map(TaskSchedule::getName).toList();
            if (!properties.getSchedules().isEnabled() && !names.isEmpty()) {
                logger.warn("delay-task.schedules.enabled is false: this instance neither stores the declared "
                        + "schedules " + names + " nor adds their tasks; instances with it on do");
            }
            Duration interval = properties.getSchedules().getCheckInterval();
            Assert.isTrue(interval.compareTo(Duration.ofSeconds(1)) >= 0,
                    () -> "delay-task.schedules.check-interval is " + interval + ": at least 1s");
            Schedules schedules = new Schedules(store, Schedules.Tasks.of(service), dueClock(beanFactory),
                    interval.multipliedBy(2), properties.getMaxParametersSize().toBytes());
            if (service instanceof DefaultDelayTaskService tasks) {
                tasks.setSchedules(schedules);
            }
            return schedules;
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBooleanProperty(name = "delay-task.schedules.enabled", matchIfMissing = true)
        ScheduleKeeper delayTaskScheduleKeeper(Schedules schedules, ScheduleStore store,
                ObjectProvider<TaskSchedule> declared, DelayTaskProperties properties) {
            List<TaskSchedule> declarations = declared.orderedStream().toList();
            return new ScheduleKeeper(schedules, store, declarations, properties.getSchedules().getCheckInterval());
        }

    }

}
