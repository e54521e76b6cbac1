package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.github.delaytask.DeadTaskEvent;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.redis.RedisKeys;
import io.github.delaytask.redis.RedisTaskQueues;
import io.github.delaytask.store.StoredTask;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * How outcomes are recorded, against one backend: failures whose text a database refuses, attempts counted by runs,
 * versions that only grow, polls that hand a task over exactly when they record it, and input refused at the
 * boundary. Subclasses pick the backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
public abstract class AbstractTaskOutcomeTests {

    static final int NUL_MESSAGE = 41;

    static final int JSON = 42;

    static final int BLOCKING = 43;

    static final int SLOW = 44;

    static final int COUNTED = 45;

    static final int LONG = 46;

    static final int HANGING = 47;

    static final int NO_LISTENER = 49;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.retry.initial-delay=50ms", "delay-task.listener.poll-interval=50ms");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @BeforeEach
    void clean() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = jdbc(context);
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void aHandlerWhoseErrorMessageHoldsANulCharacterEndsDeadAfterExactlyMaxAttemptsRuns() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(NUL_MESSAGE).build());
            await().atMost(Duration.ofSeconds(15)).until(() -> status(context, id) == TaskStatus.DEAD);
            TaskDetails dead = context.getBean(DelayTaskService.class).findTask(id).orElseThrow();
            assertThat(context.getBean(Listeners.class).nulRuns).hasValue(3);
            assertThat(dead.attempts()).isEqualTo(3);
            assertThat(dead.lastError()).contains("bad \\0 byte").doesNotContain("\u0000");
        });
    }

    @Test
    void parametersThatAreNotJsonEndDeadAfterExactlyMaxAttemptsAndNeitherTheLogNorTheErrorQuotesThem(
            CapturedOutput output) {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long nul = service.addTask(DelayTask.builder(JSON).parameters(new byte[] { 0x7B, 0x00, 0x7D }).build());
            long secret = service.addTask(DelayTask.builder(JSON).parameters("secret42 and more").build());
            await().atMost(Duration.ofSeconds(15))
                .until(() -> status(context, nul) == TaskStatus.DEAD && status(context, secret) == TaskStatus.DEAD);
            assertThat(context.getBean(Listeners.class).jsonRuns).as("the handler never ran").hasValue(0);
            TaskDetails first = service.findTask(nul).orElseThrow();
            assertThat(first.attempts()).isEqualTo(3);
            assertThat(first.lastError()).contains("task " + nul + " (3 bytes)").doesNotContain("\u0000");
            TaskDetails second = service.findTask(secret).orElseThrow();
            assertThat(second.attempts()).isEqualTo(3);
            assertThat(second.lastError()).contains("(17 bytes)").doesNotContain("secret42");
            assertThat(output.getAll()).contains("task " + secret).doesNotContain("secret42");
        });
    }

    @Test
    void aTaskClaimedAgainBecauseItsHandlerDidNotStartInTimeCountsOnlyTheRunItHad() {
        // one thread, twenty tasks claimed at once and handlers of 100 ms: the last two would start after 90 % of
        // their 2 s lease, so they go back unstarted and are claimed again; each task runs once, and one run is one
        // attempt
        this.runner.withPropertyValues("delay-task.lease=2s", "delay-task.listener.concurrency=1",
                "delay-task.listener.prefetch=19").withBean(ClaimCounter.class).run((context) -> {
                    List<DelayTask> tasks = new java.util.ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        tasks.add(DelayTask.builder(SLOW).build());
                    }
                    List<Long> ids = context.getBean(DelayTaskService.class).addTasks(tasks);
                    await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                        .allMatch((id) -> status(context, id) == TaskStatus.EXECUTED));
                    Listeners listeners = context.getBean(Listeners.class);
                    assertThat(listeners.slowRuns).containsExactlyInAnyOrderElementsOf(ids);
                    assertThat(context.getBean(ClaimCounter.class).claimed).as("claims, with those of the tasks "
                            + "that went back unstarted").hasValueGreaterThan(ids.size());
                    for (long id : ids) {
                        assertThat(attempts(context, id)).as("attempts of %s", id).isEqualTo(1);
                    }
                });
    }

    @Test
    void anAcknowledgementOfARunThatOutlivedItsLeaseNeverFinishesTheTaskAfterItWasRequeued() {
        String[] oneAtATime = { "delay-task.lease=1s", "delay-task.listener.concurrency=1",
                "delay-task.listener.prefetch=0" };
        // the first instance cannot extend its lease, as one that stalled or was cut off
        this.runner.withPropertyValues(oneAtATime).withUserConfiguration(NoLeaseRenewals.class).run((first) -> {
            Listeners a = first.getBean(Listeners.class);
            long id = first.getBean(DelayTaskService.class).addTask(DelayTask.builder(BLOCKING).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> a.blockingStarted.getCount() == 0);
            // the first run outlives its 1 s lease; a second instance takes the task over and fails it for good
            this.runner.withPropertyValues(oneAtATime)
                .withPropertyValues("test.blocking.fail=true", "delay-task.retry.max-attempts=1")
                .run((second) -> await().atMost(Duration.ofSeconds(10))
                    .until(() -> status(second, id) == TaskStatus.DEAD));
            // a third instance requeues it and runs it again, while the first run is still going
            this.runner.withPropertyValues(oneAtATime).run((third) -> {
                Listeners c = third.getBean(Listeners.class);
                assertThat(third.getBean(DelayTaskService.class).requeueTask(id)).isTrue();
                await().atMost(Duration.ofSeconds(10)).until(() -> c.blockingStarted.getCount() == 0);
                a.release.countDown();
                // closing the first instance flushes its acknowledgement of the first run
                first.close();
                assertThat(status(third, id)).as("while the requeued run goes on").isEqualTo(TaskStatus.SCHEDULED);
                assertThat(jdbc(third).queryForObject("SELECT COUNT(*) FROM taskinfo WHERE task_id = ?", Long.class,
                        id)).isEqualTo(1);
                c.release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> status(third, id) == TaskStatus.EXECUTED);
            });
        });
    }

    @Test
    void aHandlerThatRunsForThreeLeasesRunsOnceWhileAnotherInstanceListensToo() {
        String[] shortLease = { "delay-task.lease=2s", "test.long.millis=6000" };
        this.runner.withPropertyValues(shortLease).run((first) -> this.runner.withPropertyValues(shortLease)
            .run((second) -> {
                long id = first.getBean(DelayTaskService.class).addTask(DelayTask.builder(LONG).build());
                await().atMost(Duration.ofSeconds(20)).until(() -> status(first, id) == TaskStatus.EXECUTED);
                List<Long> runs = new java.util.ArrayList<>(first.getBean(Listeners.class).longRuns);
                runs.addAll(second.getBean(Listeners.class).longRuns);
                assertThat(runs).as("runs on either instance").containsExactly(id);
                assertThat(attempts(first, id)).isEqualTo(1);
            }));
    }

    @Test
    void aHandlerThatNeverReturnsEndsDeadAfterMaxAttemptsTimeoutsWhileOtherListenersKeepRunning() {
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            try {
                long hanging = service.addTask(DelayTask.builder(HANGING).build());
                await().atMost(Duration.ofSeconds(15)).until(() -> status(context, hanging) == TaskStatus.DEAD);
                TaskDetails dead = service.findTask(hanging).orElseThrow();
                assertThat(dead.attempts()).isEqualTo(2);
                assertThat(dead.lastError()).contains("TimeoutException")
                    .contains("ran longer than its timeout of PT0.3S and was interrupted")
                    .contains("hanging");
                assertThat(listeners.hangingRuns).as("runs, each still holding its thread").hasValue(2);
                long counted = service.addTask(DelayTask.builder(COUNTED).build());
                await().atMost(Duration.ofSeconds(10)).until(() -> status(context, counted) == TaskStatus.EXECUTED);
            }
            finally {
                listeners.releaseHanging.countDown();
            }
        });
    }

    @Test
    void aTaskLockedByALongBusinessTransactionIsSkippedSoThatTheOthersOfItsClaimRunMeanwhile() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            List<DelayTask> tasks = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                tasks.add(DelayTask.builder(COUNTED).delay(Duration.ofMillis(500)).build());
            }
            List<Long> ids = service.addTasks(tasks);
            CountDownLatch cancelled = new CountDownLatch(1);
            CountDownLatch commit = new CountDownLatch(1);
            TransactionTemplate transaction = new TransactionTemplate(
                    context.getBean(PlatformTransactionManager.class));
            CompletableFuture<Boolean> business = CompletableFuture.supplyAsync(() -> transaction.execute((status) -> {
                boolean done = service.cancelTask(ids.get(0));
                cancelled.countDown();
                try {
                    // the rest of a long business transaction, holding the cancelled task's row
                    return done && commit.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            }));
            assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(5))
                .until(() -> listeners.countedRuns.containsAll(ids.subList(1, ids.size())));
            // and their acknowledgement waits for no row but its own: on a table this small, MySQL and MariaDB
            // read an IN list's rows by scanning the table, which waits for the cancelled task's row
            await().atMost(Duration.ofSeconds(5))
                .until(() -> ids.subList(1, ids.size())
                    .stream()
                    .allMatch((id) -> status(context, id) == TaskStatus.EXECUTED));
            commit.countDown();
            assertThat(business.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(status(context, ids.get(0))).isEqualTo(TaskStatus.CANCELLED);
            assertThat(listeners.countedRuns).doesNotContain(ids.get(0));
        });
    }

    @Test
    void aBatchHoldingTwoClaimsOfOneTaskFinishesItByTheLaterClaim() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            TaskStore store = context.getBean(TaskStore.class);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(NO_LISTENER).build());
            long now = store.currentTimeMillis();
            StoredTask firstClaim = store.claimDue(List.of(id), now + 1000, now + 2000).get(0);
            // the lease ran out while the handler ran, and the same instance claimed the task again
            StoredTask secondClaim = store.claimDue(List.of(id), now + 3000, now + 4000).get(0);

            List<StoredTask> finished = store.finishAllExecuted(List.of(firstClaim, secondClaim)).finished();

            assertThat(finished).extracting(StoredTask::version).containsExactly(secondClaim.version());
            assertThat(status(context, id)).isEqualTo(TaskStatus.EXECUTED);
            assertThat(jdbc(context).queryForObject("SELECT COUNT(*) FROM taskinfo", Long.class)).isZero();
        });
    }

    @Test
    void pollHandsOverTheTaskItRecordedEvenWhenRedisCannotForgetIt() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false")
            .withUserConfiguration(ForgetfulQueuesConfiguration.class)
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long id = service.addTask(DelayTask.builder(NO_LISTENER).parameters("p").build());
                DelayTask polled = service.poll(NO_LISTENER, 0);
                assertThat(polled).isNotNull();
                assertThat(polled.getTaskId()).isEqualTo(id);
                assertThat(status(context, id)).isEqualTo(TaskStatus.EXECUTED);
                assertThat(service.poll(NO_LISTENER, 0)).isNull();
            });
    }

    @Test
    void pollWithAHandlerRecordsTheTaskOnlyOnceTheHandlerReturnedAndRetriesItWhenTheHandlerThrows() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false", "delay-task.retry.initial-delay=0")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long id = service.addTask(DelayTask.builder(NO_LISTENER).parameters("p").build());
                assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.poll(NO_LISTENER, 0,
                        (task) -> {
                            assertThat(status(context, task.getTaskId())).isEqualTo(TaskStatus.SCHEDULED);
                            throw new IllegalStateException("downstream is down");
                        }));
                assertThat(service.findTask(id).orElseThrow()).satisfies((task) -> {
                    assertThat(task.status()).isEqualTo(TaskStatus.SCHEDULED);
                    assertThat(task.attempts()).isEqualTo(1);
                    assertThat(task.lastError()).contains("downstream is down");
                });
                List<Long> handled = new CopyOnWriteArrayList<>();
                await().atMost(Duration.ofSeconds(5))
                    .until(() -> service.poll(NO_LISTENER, 0, (task) -> handled.add(task.getTaskId())));
                assertThat(handled).containsExactly(id);
                assertThat(status(context, id)).isEqualTo(TaskStatus.EXECUTED);
                assertThat(service.poll(NO_LISTENER, 0, (task) -> handled.add(task.getTaskId()))).isFalse();
            });
    }

    @Test
    void inputOutOfRangeIsRefusedAtTheBoundaryAndNothingIsWritten() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addTask(DelayTask.builder(NO_LISTENER)
                    .delay(Duration.ofMillis(Long.MAX_VALUE - 10))
                    .build()))
                .withMessageContaining("Delay");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofDays(10_000_000))
                    .build()));
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addTask(DelayTask.builder(NO_LISTENER)
                    .executeAt(Instant.ofEpochMilli(DelayTask.MAX_EXECUTE_TIME + 1))
                    .build()))
                .withMessageContaining("Execute time");
            assertThatIllegalArgumentException()
                .isThrownBy(() -> service.addTasks(List.of(DelayTask.builder(NO_LISTENER).build(),
                        DelayTask.builder(NO_LISTENER).delay(Duration.ofMillis(Long.MAX_VALUE)).build())));
            assertThatIllegalArgumentException().isThrownBy(() -> new RetryLaterException(Duration.ofDays(40_000)))
                .withMessageContaining("Delay");
            assertThatIllegalArgumentException().isThrownBy(() -> service.findDeadTasks(Integer.MAX_VALUE, 1000))
                .withMessageContaining("Page");
            assertThatIllegalArgumentException().isThrownBy(() -> service.poll(-1, 0))
                .withMessageContaining("Task type -1");
            assertThatIllegalArgumentException().isThrownBy(() -> service.poll(1, DelayTask.MAX_PRIORITY + 1))
                .withMessageContaining("Priority");
            assertThatIllegalArgumentException().isThrownBy(() -> service.poll(-1, 0, (task) -> {
            })).withMessageContaining("Task type -1");
            assertThat(jdbc(context).queryForObject("SELECT COUNT(*) FROM taskinfo_logs", Long.class)).isZero();
        });
    }

    @Test
    void aLeaseShorterThanASecondOrParametersOfNoBytesFailStartUpNamingTheProperty() {
        this.runner.withPropertyValues("delay-task.lease=0").run((context) -> assertThat(context).getFailure()
            .rootCause()
            .hasMessageContaining("delay-task.lease")
            .hasMessageContaining("at least PT1S"));
        this.runner.withPropertyValues("delay-task.lease=200ms")
            .run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("delay-task.lease"));
        this.runner.withPropertyValues("delay-task.max-parameters-size=0B")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.max-parameters-size"));
        this.runner.withPropertyValues("delay-task.max-parameters-size=1GB")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("delay-task.max-parameters-size"));
    }

    @Test
    void theStoreCountsLiveTasksPerQueueWithTheFirstDueAndListsDeadTasksNewestFirst() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            TaskStore store = context.getBean(TaskStore.class);
            Instant first = Instant.parse("2099-01-01T00:00:00Z");
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(first.plusSeconds(60)).build());
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(first).build());
            service.addTask(DelayTask.builder(NO_LISTENER).priority(2).executeAt(first.plusSeconds(5)).build());
            List<Long> dead = new java.util.ArrayList<>(service.addTasks(List.of(
                    DelayTask.builder(NO_LISTENER).priority(3).build(),
                    DelayTask.builder(NO_LISTENER).priority(3).build(),
                    DelayTask.builder(NO_LISTENER).priority(3).build())));
            // dead by hand: these statements are what a last failed attempt leaves, and the query under test reads
            jdbc(context).update("DELETE FROM taskinfo WHERE priority = 3");
            jdbc(context).update("UPDATE taskinfo_logs SET status = ? WHERE priority = 3", TaskStatus.DEAD.code());
            assertThat(store.countLiveByQueue()).containsOnly(
                    org.assertj.core.api.Assertions.entry(new QueueId(NO_LISTENER, 0),
                            new TaskStore.LiveTasks(2, first.toEpochMilli())),
                    org.assertj.core.api.Assertions.entry(new QueueId(NO_LISTENER, 2),
                            new TaskStore.LiveTasks(1, first.plusSeconds(5).toEpochMilli())));
            assertThat(store.countDeadByQueue()).containsOnly(
                    org.assertj.core.api.Assertions.entry(new QueueId(NO_LISTENER, 3), 3L));
            dead.sort(java.util.Comparator.reverseOrder());
            assertThat(store.findDeadNewestFirst(0, 2)).extracting(TaskDetails::taskId)
                .containsExactly(dead.get(0), dead.get(1));
            assertThat(store.findDeadNewestFirst(2, 2)).extracting(TaskDetails::taskId).containsExactly(dead.get(2));
        });
    }

    @Test
    void aTaskRecordedDeadIsPublishedOnceAsAnEventWithItsTaskAndErrorEvenWhenAnotherListenerOfTheEventThrows() {
        this.runner.withUserConfiguration(DeadTasks.class, ThrowingDeadTaskListener.class).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long dead = service.addTask(DelayTask.builder(NUL_MESSAGE).bizKey("order-17").parameters("17").build());
            long fine = service.addTask(DelayTask.builder(COUNTED).build());
            await().atMost(Duration.ofSeconds(15)).until(() -> status(context, dead) == TaskStatus.DEAD);
            DeadTasks deadTasks = context.getBean(DeadTasks.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> !deadTasks.events.isEmpty());
            assertThat(deadTasks.events).singleElement().satisfies((event) -> {
                assertThat(event.task().taskId()).isEqualTo(dead);
                assertThat(event.task().taskType()).isEqualTo(NUL_MESSAGE);
                assertThat(event.task().status()).isEqualTo(TaskStatus.DEAD);
                assertThat(event.task().bizKey()).isEqualTo("order-17");
                assertThat(event.task().parameters()).asString().isEqualTo("17");
                assertThat(event.task().attempts()).isEqualTo(3);
                assertThat(event.task().lastError()).contains("bad \\0 byte");
                assertThat(event.cause()).isInstanceOf(IllegalStateException.class);
            });
            await().atMost(Duration.ofSeconds(15)).until(() -> status(context, fine) == TaskStatus.EXECUTED);
            assertThat(context.getBean(Listeners.class).countedRuns).containsExactly(fine);
            assertThat(context.getBean(ThrowingDeadTaskListener.class).heard).hasValue(1);
        });
    }

    private static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class));
    }

    private static TaskStatus status(AssertableApplicationContext context, long id) {
        Integer code = jdbc(context).queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?",
                Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    private static long attempts(AssertableApplicationContext context, long id) {
        Long attempts = jdbc(context).queryForObject("SELECT attempts FROM taskinfo_logs WHERE task_id = ?",
                Long.class, id);
        return (attempts != null) ? attempts : 0;
    }

    record Order(long id, String status) {
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final AtomicInteger nulRuns = new AtomicInteger();

        final AtomicInteger jsonRuns = new AtomicInteger();

        final List<Long> slowRuns = new CopyOnWriteArrayList<>();

        final CountDownLatch blockingStarted = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @Value("${test.blocking.fail:false}")
        boolean blockingFails;

        @DelayTaskListener(taskType = NUL_MESSAGE, maxAttempts = 3)
        void nul(DelayTask task) {
            this.nulRuns.incrementAndGet();
            throw new IllegalStateException("bad \u0000 byte");
        }

        @DelayTaskListener(taskType = JSON, maxAttempts = 3)
        void json(Order order) {
            this.jsonRuns.incrementAndGet();
        }

        final List<Long> countedRuns = new CopyOnWriteArrayList<>();

        @DelayTaskListener(taskType = COUNTED)
        void counted(DelayTask task) {
            this.countedRuns.add(task.getTaskId());
        }

        @DelayTaskListener(taskType = SLOW)
        void slow(DelayTask task) throws InterruptedException {
            this.slowRuns.add(task.getTaskId());
            // the work of a slow handler, not a wait for anything
            TimeUnit.MILLISECONDS.sleep(100);
        }

        final List<Long> longRuns = new CopyOnWriteArrayList<>();

        @Value("${test.long.millis:0}")
        long longMillis;

        @DelayTaskListener(taskType = LONG)
        void longRunning(DelayTask task) throws InterruptedException {
            this.longRuns.add(task.getTaskId());
            // the work of a handler that runs for several leases, not a wait for anything
            TimeUnit.MILLISECONDS.sleep(this.longMillis);
        }

        final AtomicInteger hangingRuns = new AtomicInteger();

        final CountDownLatch releaseHanging = new CountDownLatch(1);

        /** Ignores the interrupt of its timeout, as a call without a read timeout does, until the test ends. */
        @DelayTaskListener(taskType = HANGING, maxAttempts = 2, timeout = "${test.hanging.timeout:300ms}")
        void hanging(DelayTask task) {
            this.hangingRuns.incrementAndGet();
            while (this.releaseHanging.getCount() > 0) {
                try {
                    this.releaseHanging.await();
                }
                catch (InterruptedException ex) {
                    // ignored
                }
            }
        }

        @DelayTaskListener(taskType = BLOCKING)
        void blocking(DelayTask task) throws InterruptedException {
            if (this.blockingFails) {
                throw new IllegalStateException("fails for good");
            }
            this.blockingStarted.countDown();
            assertThat(this.release.await(30, TimeUnit.SECONDS)).isTrue();
        }

    }

    @Test
    void aDeadTaskRequeuedAtOnceByAListenerOfItsDeathKeepsItsNewRunInFlightThoughRedisForgetsTheDeadRunLate() {
        this.runner.withUserConfiguration(RequeueOnDeath.class, HeldForgetting.class)
            .withPropertyValues("delay-task.retry.max-attempts=1")
            .run((context) -> {
                Listeners listeners = context.getBean(Listeners.class);
                listeners.blockingFails = true;
                HeldForgetting forgetting = context.getBean(HeldForgetting.class);
                long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(BLOCKING).build());
                try {
                    // the first run died, its listener requeued it, and the new run holds it; Redis had not yet
                    // forgotten the dead run
                    await().atMost(Duration.ofSeconds(10)).until(() -> listeners.blockingStarted.getCount() == 0);
                    forgetting.mayForget.countDown();
                    await().atMost(Duration.ofSeconds(10)).until(() -> forgetting.forgotten.getCount() == 0);
                    String inFlight = context.getBean(RedisKeys.class).prefix() + ":{" + BLOCKING + ":0}:inflight";
                    assertThat(context.getBean(StringRedisTemplate.class).opsForZSet()
                        .score(inFlight, Long.toString(id))).as("the new run's lease in Redis").isNotNull();
                }
                finally {
                    listeners.release.countDown();
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> status(context, id) == TaskStatus.EXECUTED);
            });
    }

    /** Requeues a task once it is dead, at once, on the thread that tells of its death. */
    @Configuration(proxyBeanMethods = false)
    static class RequeueOnDeath {

        private final ApplicationContext context;

        RequeueOnDeath(ApplicationContext context) {
            this.context = context;
        }

        @EventListener
        void dead(DeadTaskEvent event) {
            this.context.getBean(Listeners.class).blockingFails = false;
            this.context.getBean(DelayTaskService.class).requeueTask(event.task().taskId());
        }

    }

    /** Holds up Redis's forgetting of dead runs until the test lets it go on, as a Redis slow to answer does. */
    @Configuration(proxyBeanMethods = false)
    static class HeldForgetting {

        final CountDownLatch mayForget = new CountDownLatch(1);

        final CountDownLatch forgotten = new CountDownLatch(1);

        @Bean
        TaskQueues queuesThatForgetLate(StringRedisTemplate redis, RedisKeys keys) {
            return new RedisTaskQueues(redis, keys) {

                @Override
                public void acknowledge(QueueId queue, long taskId) {
                    held(() -> super.acknowledge(queue, taskId));
                }

                @Override
                public void forgetRun(QueueId queue, long taskId, long before) {
                    held(() -> super.forgetRun(queue, taskId, before));
                }

            };
        }

        private void held(Runnable forget) {
            try {
                this.mayForget.await(30, TimeUnit.SECONDS);
                forget.run();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                this.forgotten.countDown();
            }
        }

    }

    /** The application's listener of dead tasks. */
    static class DeadTasks {

        final List<DeadTaskEvent> events = new CopyOnWriteArrayList<>();

        @EventListener
        @org.springframework.core.annotation.Order(Ordered.HIGHEST_PRECEDENCE)
        void dead(DeadTaskEvent event) {
            this.events.add(event);
        }

    }

    /** A listener of dead tasks that fails. */
    static class ThrowingDeadTaskListener {

        final AtomicInteger heard = new AtomicInteger();

        // after the other: Spring stops telling listeners at the first that throws
        @EventListener
        @org.springframework.core.annotation.Order(Ordered.LOWEST_PRECEDENCE)
        void dead(DeadTaskEvent event) {
            this.heard.incrementAndGet();
            throw new IllegalStateException("the alerting system is down");
        }

    }

    /** Fails every extension of a lease, in Redis and in the database, as for an instance that stalled or was cut off. */
    @Configuration(proxyBeanMethods = false)
    static class NoLeaseRenewals {

        @Bean
        TaskQueues queuesWithoutLeaseRenewals(StringRedisTemplate redis, RedisKeys keys) {
            return new RedisTaskQueues(redis, keys) {

                @Override
                public long extendLeases(java.util.Map<QueueId, ? extends java.util.Collection<Long>> taskIds,
                        Duration lease) {
                    throw new org.springframework.data.redis.RedisConnectionFailureException("cut off");
                }

            };
        }

        @Bean
        static BeanPostProcessor storeWithoutLeaseRenewals() {
            return new TaskStoreInterceptor() {

                @Override
                protected Object intercept(String method, Object[] args, Call store) throws Throwable {
                    if (method.equals("renewLeases")) {
                        throw new org.springframework.dao.DataAccessResourceFailureException("cut off");
                    }
                    return store.proceed();
                }

            };
        }

    }

    /** Counts the tasks the database handed to consumers. */
    static class ClaimCounter extends TaskStoreInterceptor {

        final AtomicInteger claimed = new AtomicInteger();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            Object result = store.proceed();
            if (method.equals("claimDue")) {
                this.claimed.addAndGet(((List<?>) result).size());
            }
            return result;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ForgetfulQueuesConfiguration {

        @Bean
        TaskQueues forgetfulQueues(StringRedisTemplate redis, RedisKeys keys) {
            return new RedisTaskQueues(redis, keys) {

                @Override
                public void acknowledgeAll(QueueId queue, java.util.Collection<Long> taskIds) {
                    throw new org.springframework.data.redis.RedisConnectionFailureException("Redis went away");
                }

            };
        }

    }

}
