package io.github.delaytask.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer that stalls (a long GC pause, a starved CPU) after Redis handed it a task and before it starts the
 * handler, for longer than the lease, while a second instance runs beside it, on the real Redis and PostgreSQL: the
 * second takes the task over once the lease ran out, and the stalled one, when it wakes, must not start the task
 * too, wherever it stalled.
 */
@Tag("faults")
class StalledConsumerFaultTests {

    private static final int STALLED = 6;

    private static final Duration LEASE = Duration.ofSeconds(1);

    private TestBackend backend;

    @BeforeEach
    void createSchema() {
        this.backend = TestBackend.postgreSql();
        new FaultRuns(this.backend).createSchema("postgresql");
    }

    @AfterEach
    void dropSchema() {
        this.backend.close();
    }

    @ParameterizedTest
    @EnumSource(StallPoint.class)
    void aConsumerStalledPastTheLeaseDoesNotStartTheTaskThatAnotherInstanceTookOver(StallPoint point) {
        FaultApp.runner(FaultApp.properties(this.backend, "delay-task.lease=" + LEASE.toMillis() + "ms"))
            .withBean(Stall.class, () -> new Stall(point))
            .withUserConfiguration(SlowListener.class)
            .run((stalling) -> {
                Stall stall = stalling.getBean(Stall.class);
                long id = stalling.getBean(DelayTaskService.class).addTask(DelayTask.builder(STALLED).build());
                assertThat(stall.reached.await(10, TimeUnit.SECONDS)).as("the stall was reached").isTrue();
                FaultApp.runner(FaultApp.properties(this.backend, "delay-task.lease=" + LEASE.toMillis() + "ms"))
                    .withUserConfiguration(SlowListener.class)
                    .run((other) -> {
                        SlowListener taker = other.getBean(SlowListener.class);
                        await().atMost(Duration.ofSeconds(20)).until(() -> taker.runs.size() == 1);
                        stall.release.countDown();
                        FaultRuns runs = new FaultRuns(this.backend);
                        await().atMost(Duration.ofSeconds(20)).until(() -> runs.status(id) == TaskStatus.EXECUTED);
                        // the stalled consumer has woken and either lost its claim or gone past its start deadline
                        await().atMost(Duration.ofSeconds(10)).untilTrue(stall.resumed);
                        SlowListener stalled = stalling.getBean(SlowListener.class);
                        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                            .until(() -> stalled.runs.isEmpty());
                        System.out.println("fault: consumer-stalled-" + point.name().toLowerCase().replace('_', '-')
                                + " tasks=1 lost=0 duplicates=" + (taker.runs.size() + stalled.runs.size() - 1)
                                + " runs-by-taker=" + taker.runs.size() + " runs-by-stalled=" + stalled.runs.size());
                        assertThat(stalled.runs).as("runs by the stalled consumer").isEmpty();
                        assertThat(taker.runs).as("runs by the other instance").hasSize(1);
                    });
            });
    }

    /** Where the consumer stalls, after Redis handed it the task. */
    enum StallPoint {

        /** Before its claim in the database: the other instance's claim wins there. */
        BEFORE_DATABASE_CLAIM,

        /** After its claim in the database won, before the handler starts: its lease runs out meanwhile. */
        AFTER_DATABASE_CLAIM

    }

    /** Stalls the first claim in the database of its instance until released, at its stall point. */
    static class Stall extends TaskStoreInterceptor {

        final StallPoint point;

        final CountDownLatch reached = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicBoolean resumed = new AtomicBoolean();

        private final AtomicBoolean stalled = new AtomicBoolean();

        Stall(StallPoint point) {
            this.point = point;
        }

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            boolean stall = method.equals("claimDue") && this.stalled.compareAndSet(false, true);
            if (stall && this.point == StallPoint.BEFORE_DATABASE_CLAIM) {
                stallHere();
            }
            try {
                return store.proceed();
            }
            finally {
                if (stall && this.point == StallPoint.AFTER_DATABASE_CLAIM) {
                    stallHere();
                }
            }
        }

        private void stallHere() throws InterruptedException {
            this.reached.countDown();
            assertThat(this.release.await(30, TimeUnit.SECONDS)).isTrue();
            this.resumed.set(true);
        }

    }

    /** A handler that takes half a second, recording when each run starts. */
    static class SlowListener {

        final List<Long> runs = new CopyOnWriteArrayList<>();

        @DelayTaskListener(taskType = STALLED)
        void run(DelayTask task) throws InterruptedException {
            this.runs.add(System.currentTimeMillis());
            TimeUnit.MILLISECONDS.sleep(500);
        }

    }

}
