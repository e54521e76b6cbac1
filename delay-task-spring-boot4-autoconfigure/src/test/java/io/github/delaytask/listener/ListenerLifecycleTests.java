package io.github.delaytask.listener;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listeners' threads through failures of their own and through shutdown, on an embedded Redis and H2.
 */
class ListenerLifecycleTests {

    static final int RECORDED = 1;

    static final int OVERRUNNING = 2;

    static final int ENDS_WHEN_INTERRUPTED = 3;

    static final int COUNTED = 4;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.listener.poll-interval=50ms");
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void anErrorThrownWhileRecordingDoesNotStopTheInstanceFromRecordingLaterTasks() {
        this.runner.withBean(FailFirstAcknowledgement.class).withPropertyValues("delay-task.lease=1s").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(RECORDED).build());
            await().atMost(Duration.ofSeconds(5)).untilTrue(context.getBean(FailFirstAcknowledgement.class).failed);
            long second = service.addTask(DelayTask.builder(RECORDED).build());
            // the first comes back after its lease, as its outcome was never recorded; the second is recorded at once
            await().atMost(Duration.ofSeconds(10))
                .until(() -> status(context, first) == TaskStatus.EXECUTED
                        && status(context, second) == TaskStatus.EXECUTED);
        });
    }

    @Test
    void stoppingInterruptsHandlersThatOverrunTheShutdownTimeoutAndHandsTheirTasksBackEvenWhenTheyReturn() {
        long[] ids = new long[2];
        long[] closeMillis = new long[1];
        this.runner.withPropertyValues("delay-task.shutdown-timeout=1s").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            ids[0] = service.addTask(DelayTask.builder(OVERRUNNING).build());
            ids[1] = service.addTask(DelayTask.builder(ENDS_WHEN_INTERRUPTED).build());
            await().atMost(Duration.ofSeconds(5)).until(() -> listeners.started.getCount() == 0);
            long start = System.nanoTime();
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
            closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        });
        assertThat(closeMillis[0]).as("ms to stop, with a shutdown timeout of 1 s")
            .isLessThan(1000 + DelayTaskListenerEndpointRegistry.GRACE_MILLIS + 1000);
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            for (long id : ids) {
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM taskinfo WHERE task_id = ? AND lease_until IS NULL "
                        + "AND attempts = 0", Long.class, id))
                    .as("task %d, interrupted, due again at once, whether its handler threw or returned", id)
                    .isOne();
                assertThat(status(context, id)).isEqualTo(TaskStatus.SCHEDULED);
            }
        });
    }

    @Test
    void aTaskWaitingForRoomToStartWhenTheApplicationStopsNeverStartsAndGoesBackAtOnce() throws Exception {
        // two handlers' outcomes may be unrecorded at once: with both held up, a third handler waits for room
        this.runner.withBean(HeldAcknowledgements.class)
            .withPropertyValues("delay-task.listener.concurrency=2", "delay-task.listener.prefetch=0",
                    "delay-task.shutdown-timeout=10s")
            .run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                Listeners listeners = context.getBean(Listeners.class);
                HeldAcknowledgements held = context.getBean(HeldAcknowledgements.class);
                DelayTaskListenerEndpointRegistry registry = context.getBean(DelayTaskListenerEndpointRegistry.class);
                service.addTask(DelayTask.builder(RECORDED).build());
                service.addTask(DelayTask.builder(RECORDED).build());
                await().atMost(Duration.ofSeconds(5)).until(() -> listeners.recordedRuns.get() == 2);
                await().atMost(Duration.ofSeconds(5)).until(() -> held.waiting.getCount() == 0);
                long waiting = service.addTask(DelayTask.builder(COUNTED).build());
                await().atMost(Duration.ofSeconds(5)).until(registry::handlersWaitToStart);
                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                Thread closing = new Thread(() -> ((ConfigurableApplicationContext) context.getSourceApplicationContext())
                    .close(), "closing");
                closing.start();
                try {
                    // well within the shutdown timeout, before any outcome is recorded
                    await().atMost(Duration.ofSeconds(5))
                        .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM taskinfo WHERE task_id = ? AND "
                                + "lease_until IS NULL AND attempts = 0", Long.class, waiting) == 1);
                }
                finally {
                    held.release.countDown();
                    closing.join(TimeUnit.SECONDS.toMillis(20));
                }
                assertThat(listeners.countedRuns).as("runs of the task that waited for room").hasValue(0);
            });
    }

    @Test
    void aJobOfTheStarterThatIgnoresTheStopsInterruptHoldsUpTheStopForASecondAtMost() {
        long[] closeMillis = new long[1];
        HungReload hung = new HungReload();
        try {
            this.runner.withBean(HungReload.class, () -> hung).run((context) -> {
                // the reload at start-up waits on a statement the database does not answer
                await().atMost(Duration.ofSeconds(10)).until(() -> hung.entered.getCount() == 0);
                long start = System.nanoTime();
                ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
                closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            });
        }
        finally {
            hung.release.countDown();
        }
        // the jobs get a second once interrupted; two more to spare
        assertThat(closeMillis[0]).as("ms to stop while a reload hangs, no handler running")
            .isLessThan(1000 + 2000);
    }

    private static TaskStatus status(org.springframework.context.ApplicationContext context, long id) {
        Integer code = new JdbcTemplate(context.getBean(DataSource.class))
            .queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?", Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final CountDownLatch started = new CountDownLatch(2);

        final AtomicInteger recordedRuns = new AtomicInteger();

        final AtomicInteger countedRuns = new AtomicInteger();

        @DelayTaskListener(taskType = RECORDED)
        void recorded() {
            this.recordedRuns.incrementAndGet();
        }

        @DelayTaskListener(taskType = COUNTED)
        void counted() {
            this.countedRuns.incrementAndGet();
        }

        @DelayTaskListener(taskType = OVERRUNNING)
        void overrunning() throws InterruptedException {
            this.started.countDown();
            new CountDownLatch(1).await();
        }

        @DelayTaskListener(taskType = ENDS_WHEN_INTERRUPTED)
        void endsWhenInterrupted() {
            this.started.countDown();
            try {
                new CountDownLatch(1).await();
            }
            catch (InterruptedException ex) {
                // ends its work early, and returns
            }
        }

    }

    /** Makes the reload's read wait, deaf to interrupts, until the test releases it, as a hung statement would. */
    static class HungReload extends TaskStoreInterceptor {

        final CountDownLatch entered = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("findDue")) {
                this.entered.countDown();
                awaitUninterruptibly(this.release);
            }
            return store.proceed();
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            boolean interrupted = false;
            while (latch.getCount() > 0) {
                try {
                    latch.await();
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

    }

    /** Holds up every acknowledgement until the test releases them, as a database that takes its time would. */
    static class HeldAcknowledgements extends TaskStoreInterceptor {

        final CountDownLatch waiting = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("finishAllExecuted")) {
                this.waiting.countDown();
                this.release.await();
            }
            return store.proceed();
        }

    }

    /** Throws an {@link Error} from the first acknowledgement, as a class that went missing would. */
    static class FailFirstAcknowledgement extends TaskStoreInterceptor {

        final AtomicBoolean failed = new AtomicBoolean();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("finishAllExecuted") && this.failed.compareAndSet(false, true)) {
                throw new NoClassDefFoundError("a class that went missing");
            }
            return store.proceed();
        }

    }

}
