package io.github.delaytask.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.DistributedLocks.LockHandle;
import io.github.delaytask.DistributedLocks;
import io.github.delaytask.autoconfigure.DelayTaskLockAutoConfiguration;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedLock @DistributedLock} on beans of a context with Redis and the lock's auto-configuration only:
 * no database. Another holder of a lock is played by the test, taking the lock with a token of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedLockAnnotationTests {

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startRedis() {
        this.backend = TestBackend.embedded();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.PROPERTY_PLACEHOLDER,
                    BootLine.REDIS, DelayTaskLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + this.backend.redisHost(),
                    "spring.data.redis.port=" + this.backend.redisPort(),
                    "delay-task.redis.key-prefix=" + this.backend.keyPrefix());
    }

    @AfterAll
    void stopRedis() {
        this.backend.close();
    }

    @BeforeEach
    void clean() {
        this.backend.deleteRedisKeys();
    }

    @Test
    void lockedMethodRunsWhenTheLockIsFreeAndReleasesItAfterwards() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            reports.daily();
            reports.daily();
            assertThat(reports.runs()).isEqualTo(2);
            assertThat(remaining(context, "daily")).isEmpty();
        });
    }

    @Test
    void callIsSkippedWhileAnotherHolderHasTheLock() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            LockHandle other = hold(context, "daily");
            reports.daily();
            assertThat(reports.runs()).isEqualTo(0);
            other.unlock();
            reports.daily();
            assertThat(reports.runs()).isEqualTo(1);
        });
    }

    @Test
    void skippedCallOfAMethodReturningOptionalReturnsEmpty() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            assertThat(reports.summary()).contains("summary");
            hold(context, "summary");
            assertThat(reports.summary()).isEmpty();
        });
    }

    @Test
    void lockIsKeptForLockAtLeastForAfterAFastRunSoTheNextCallIsSkipped() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            reports.kept();
            assertThat(remaining(context, "kept")).hasValueSatisfying(
                    (remaining) -> assertThat(remaining).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(5)));
            reports.kept();
            assertThat(reports.runs()).isEqualTo(1);
        });
    }

    @Test
    void exceptionIsRethrownAfterTheLockIsReleasedAndTheRunRecordedAsFailed() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            assertThatIllegalStateException().isThrownBy(reports::failing).withMessage("boom");
            assertThat(remaining(context, "failing")).isEmpty();
            LastRun run = context.getBean(LockedRunner.class).lastRun("failing").orElseThrow();
            assertThat(run.outcome()).isEqualTo(LastRun.Outcome.FAILED);
            assertThat(run.error()).isEqualTo("java.lang.IllegalStateException: boom");
            assertThat(run.pid()).isEqualTo(ProcessHandle.current().pid());
        });
    }

    @Test
    void nameWithSpelOverTheArgumentsLocksEachEntityOnItsOwn() {
        this.runner.withBean(Reports.class).run((context) -> {
            Reports reports = context.getBean(Reports.class);
            hold(context, "order-1");
            assertThat(reports.expire(1L)).isNull();
            assertThat(reports.expire(2L)).isEqualTo("expired 2");
            assertThat(context.getBean(LockedRunner.class).lastRun("order-2")).isEmpty();
        });
    }

    @Test
    void placeholdersInTheNameAndDurationsAreResolvedAtStartUp() {
        this.runner.withBean(Reports.class)
            .withPropertyValues("reports.lock-name=nightly", "reports.lock-at-most-for=3s")
            .run((context) -> {
                LockedJob job = job(context, "nightly");
                assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofSeconds(3));
                hold(context, "nightly");
                context.getBean(Reports.class).configured();
                assertThat(context.getBean(Reports.class).runs()).isEqualTo(0);
            });
    }

    @Test
    void durationsLeftEmptyComeFromTheDelayTaskLockProperties() {
        this.runner.withBean(Reports.class)
            .withPropertyValues("delay-task.lock.lock-at-most-for=42s", "delay-task.lock.lock-at-least-for=2s")
            .run((context) -> {
                LockedJob job = job(context, "summary");
                assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofSeconds(42));
                assertThat(job.lockAtLeastFor()).isEqualTo(Duration.ofSeconds(2));
                assertThat(job(context, "kept").lockAtLeastFor()).isEqualTo(Duration.ofSeconds(5));
            });
    }

    @Test
    void lockedMethodCalledFromAnotherUnderTheSameLockRunsAtOnce() {
        this.runner.withBean(Reports.class).withBean(Archive.class).run((context) -> {
            Archive archive = context.getBean(Archive.class);
            assertThat(archive.archiveDaily()).isEqualTo("archived");
            assertThat(context.getBean(Reports.class).runs()).isEqualTo(1);
        });
    }

    @Test
    void scheduledMethodRunsOnlyWhileNoOtherHolderHasTheLock() {
        this.runner.withUserConfiguration(Scheduling.class).run((context) -> {
            Ticker ticker = context.getBean(Ticker.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> ticker.runs() > 0);
            DistributedLocks locks = context.getBean(DistributedLocks.class);
            LockHandle other = await().atMost(Duration.ofSeconds(5))
                .until(() -> locks.tryLock("ticker", Duration.ofSeconds(30)).orElse(null), (lock) -> lock != null);
            int runs = ticker.runs();
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> ticker.runs() == runs);
            other.unlock();
            await().atMost(Duration.ofSeconds(5)).until(() -> ticker.runs() > runs);
        });
    }

    @Test
    void everyKindOfScheduledTriggerRunsThroughTheLock() {
        this.runner.withUserConfiguration(Scheduling.class).run((context) -> {
            LockedRunner runner = context.getBean(LockedRunner.class);
            await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(List.of("cron", "fixed-rate", "ticker"))
                    .allSatisfy((name) -> assertThat(runner.lastRun(name)).isPresent()));
        });
    }

    @Test
    void transactionRunsInsideTheLockOnAClassBasedProxy() {
        this.runner.withUserConfiguration(Transactions.class).run((context) -> {
            LedgerOperations ledger = context.getBean(LedgerOperations.class);
            assertThat(AopUtils.isCglibProxy(ledger)).isTrue();
            assertTransactionRanInsideTheLock(context, ledger);
        });
    }

    @Test
    void transactionRunsInsideTheLockOnAnInterfaceBasedProxy() {
        this.runner.withUserConfiguration(InterfaceTransactions.class)
            .withPropertyValues("spring.aop.proxy-target-class=false")
            .run((context) -> {
                LedgerOperations ledger = context.getBean(LedgerOperations.class);
                assertThat(AopUtils.isJdkDynamicProxy(ledger)).isTrue();
                assertTransactionRanInsideTheLock(context, ledger);
            });
    }

    @Test
    void transactionRunsInsideTheLockWithBootsAopAndTransactionAutoConfiguration() {
        this.runner
            .withConfiguration(AutoConfigurations.of(BootLine.AOP, BootLine.TRANSACTION))
            .withUserConfiguration(LedgerBeans.class)
            .run((context) -> {
                LedgerOperations ledger = context.getBean(LedgerOperations.class);
                assertThat(AopUtils.isCglibProxy(ledger)).isTrue();
                assertTransactionRanInsideTheLock(context, ledger);
            });
    }

    @Test
    void interfaceBasedProxyOfAMethodMissingFromTheInterfacesFailsStartUp() {
        this.runner.withBean(LedgerWithExtraMethod.class)
            .withPropertyValues("spring.aop.proxy-target-class=false")
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("@DistributedLock on 'distributedLockAnnotationTests.LedgerWithExtraMethod' "
                        + "method " + LedgerWithExtraMethod.class.getName() + ".reconcile")
                .hasMessageContaining("not found in any interface(s) of the exposed proxy type"));
    }

    @Test
    void privateMethodFailsStartUpNamingTheBeanAndTheMethod() {
        assertStartUpFails(PrivateMethod.class, "PrivateMethod.run would have no effect: a proxy cannot intercept a "
                + "private, final or static method");
    }

    @Test
    void finalMethodFailsStartUpNamingTheBeanAndTheMethod() {
        assertStartUpFails(FinalMethod.class, "FinalMethod.run would have no effect");
    }

    @Test
    void methodReturningAPrimitiveFailsStartUp() {
        assertStartUpFails(PrimitiveResult.class, "PrimitiveResult.count returns int, which a call skipped while "
                + "another instance holds the lock cannot return");
    }

    @Test
    void aLockNameTheStartersOwnJobsUseFailsStartUp() {
        assertStartUpFails(ReservedName.class, "ReservedName.purge uses the lock name 'purge', which the starter's own "
                + "jobs use (reload, refresh, purge, recovery, preload-feed, full-reload)");
    }

    @Test
    void durationThatIsNotADurationFailsStartUp() {
        assertStartUpFails(BadDuration.class,
                "BadDuration.run: lockAtMostFor 'ten seconds' is not a duration such as 30s, 500ms or PT30S");
    }

    @Test
    void lockAtLeastForLongerThanLockAtMostForFailsStartUp() {
        assertStartUpFails(AtLeastLongerThanAtMost.class,
                "lockAtLeastFor (PT1M) must not be longer than lockAtMostFor (PT30S)");
    }

    @Test
    void nameWithInvalidSpelFailsStartUp() {
        assertStartUpFails(BadSpel.class, "name 'order-#{#orderId' is not a valid SpEL template");
    }

    @Test
    void unresolvablePlaceholderFailsStartUp() {
        assertStartUpFails(UnresolvablePlaceholder.class, "Could not resolve placeholder 'reports.lock-name'");
    }

    private void assertStartUpFails(Class<?> beanClass, String message, String... properties) {
        this.runner.withBean(beanClass).withPropertyValues(properties).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context).getFailure().hasMessageContaining("@DistributedLock on").hasMessageContaining(message);
        });
    }

    private void assertTransactionRanInsideTheLock(AssertableApplicationContext context, LedgerOperations ledger) {
        assertThat(ledger.post()).isEqualTo("posted");
        RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
        assertThat(transactions.events).containsExactly("begin, locked", "commit, locked");
        assertThat(remaining(context, "ledger")).isEmpty();
        hold(context, "ledger");
        assertThat(ledger.post()).isNull();
        assertThat(transactions.events).hasSize(2);
    }

    private static LockHandle hold(AssertableApplicationContext context, String name) {
        return context.getBean(DistributedLocks.class).tryLock(name, Duration.ofSeconds(30)).orElseThrow();
    }

    private static Optional<Duration> remaining(AssertableApplicationContext context, String name) {
        return context.getBean(LockedRunner.class).lockRemaining(name);
    }

    private static LockedJob job(AssertableApplicationContext context, String name) {
        List<LockedJob> jobs = context.getBean(DistributedLockAnnotationBeanPostProcessor.class)
            .getLockedJobs()
            .named(name);
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    /** Fields are read through methods: a class-based proxy has fields of its own, never set. */
    static class Reports {

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return this.runs.get();
        }

        @DistributedLock(name = "daily", lockAtMostFor = "30s")
        public void daily() {
            this.runs.incrementAndGet();
        }

        @DistributedLock(name = "summary")
        public Optional<String> summary() {
            return Optional.of("summary");
        }

        @DistributedLock(name = "kept", lockAtMostFor = "30s", lockAtLeastFor = "5s")
        public void kept() {
            this.runs.incrementAndGet();
        }

        @DistributedLock(name = "failing")
        public void failing() {
            throw new IllegalStateException("boom");
        }

        @DistributedLock(name = "order-#{#orderId}")
        public String expire(Long orderId) {
            return "expired " + orderId;
        }

        @DistributedLock(name = "${reports.lock-name:configured}", lockAtMostFor = "${reports.lock-at-most-for:10s}")
        public void configured() {
            this.runs.incrementAndGet();
        }

    }

    static class Archive {

        private final Reports reports;

        Archive(Reports reports) {
            this.reports = reports;
        }

        @DistributedLock(name = "daily")
        public String archiveDaily() {
            this.reports.daily();
            return "archived";
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {

        @Bean
        Ticker ticker() {
            return new Ticker();
        }

    }

    static class Ticker {

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return this.runs.get();
        }

        @Scheduled(fixedDelay = 20)
        @DistributedLock(name = "ticker")
        public void tick() {
            this.runs.incrementAndGet();
        }

        @Scheduled(fixedRate = 20)
        @DistributedLock(name = "fixed-rate")
        public void fixedRate() {
        }

        @Scheduled(cron = "* * * * * *")
        @DistributedLock(name = "cron")
        public void cron() {
        }

    }

    interface LedgerOperations {

        String post();

    }

    static class Ledger implements LedgerOperations {

        @Override
        @Transactional
        @DistributedLock(name = "ledger")
        public String post() {
            assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
            return "posted";
        }

    }

    static class LedgerWithExtraMethod implements LedgerOperations {

        @Override
        public String post() {
            return "posted";
        }

        @DistributedLock(name = "reconcile")
        public void reconcile() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class LedgerBeans {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        RecordingTransactionManager transactionManager(ObjectProvider<LockedRunner> runner) {
            return new RecordingTransactionManager(runner);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = true)
    static class Transactions extends LedgerBeans {

    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = false)
    static class InterfaceTransactions extends LedgerBeans {

    }

    /** Notes, at the start and end of each transaction, whether the ledger's lock is held. */
    static class RecordingTransactionManager extends AbstractPlatformTransactionManager {

        final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();

        private final ObjectProvider<LockedRunner> runner;

        RecordingTransactionManager(ObjectProvider<LockedRunner> runner) {
            this.runner = runner;
        }

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            this.events.add("begin, " + lockState());
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            this.events.add("commit, " + lockState());
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            this.events.add("rollback, " + lockState());
        }

        private String lockState() {
            return this.runner.getObject().lockRemaining("ledger").isPresent() ? "locked" : "free";
        }

    }

    static class PrivateMethod {

        @DistributedLock(name = "private")
        private void run() {
        }

    }

    static class FinalMethod {

        @DistributedLock(name = "final")
        public final void run() {
        }

    }

    static class ReservedName {

        @DistributedLock(name = "purge")
        public void purge() {
        }

    }

    static class PrimitiveResult {

        @DistributedLock(name = "count")
        public int count() {
            return 1;
        }

    }

    static class BadDuration {

        @DistributedLock(name = "bad", lockAtMostFor = "ten seconds")
        public void run() {
        }

    }

    static class AtLeastLongerThanAtMost {

        @DistributedLock(name = "bad", lockAtMostFor = "30s", lockAtLeastFor = "1m")
        public void run() {
        }

    }

    static class UnresolvablePlaceholder {

        @DistributedLock(name = "${reports.lock-name}")
        public void run() {
        }

    }

    static class BadSpel {

        @DistributedLock(name = "order-#{#orderId")
        public void run(Long orderId) {
        }

    }

}
