package io.github.delaytask.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.store.TaskStore;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer that stalls (a long GC pause, a starved CPU) after Redis handed it a task and before it starts the
 * handler, for longer than the lease, on the real Redis and PostgreSQL: by then the task is due again, so the
 * stalled consumer must not start it, or the task runs twice at once.
 */
@Tag("faults")
class StalledConsumerFaultTests {

    private static final int STALLED = 6;

    private static final Duration LEASE = Duration.ofSeconds(1);

    private static final Duration STALL = Duration.ofMillis(1500);

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

    @Test
    void consumerStalledPastTheLeaseBetweenClaimingAndStartingATaskDoesNotRunItTwice() {
        FaultApp.runner(FaultApp.properties(this.backend, "delay-task.lease=" + LEASE.toMillis() + "ms"))
            .withBean(StallFirstDatabaseClaim.class)
            .withUserConfiguration(SlowListener.class)
            .run((context) -> {
                SlowListener listener = context.getBean(SlowListener.class);
                long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(STALLED).build());
                FaultRuns runs = new FaultRuns(this.backend);
                // a second run would start while the first one runs and be the one recorded, so it shows by now
                await().atMost(Duration.ofSeconds(20)).until(() -> runs.status(id) == TaskStatus.EXECUTED);
                System.out.println("fault: consumer-stalled-past-lease tasks=1 lost=0 duplicates="
                        + (listener.runs.size() - 1) + " runs=" + listener.runs);
                assertThat(context.getBean(StallFirstDatabaseClaim.class).stalled).isTrue();
                assertThat(listener.runs).as("runs").hasSize(1);
            });
    }

    /** Stalls the first claim in the database, after Redis handed the task out, for longer than the lease. */
    static class StallFirstDatabaseClaim implements BeanPostProcessor {

        final AtomicBoolean stalled = new AtomicBoolean();

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!(bean instanceof TaskStore store)) {
                return bean;
            }
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { TaskStore.class },
                    (proxy, method, args) -> {
                        if (method.getName().startsWith("claim") && this.stalled.compareAndSet(false, true)) {
                            TimeUnit.MILLISECONDS.sleep(STALL.toMillis()); // the stall, not a wait for anything
                        }
                        try {
                            return method.invoke(store, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
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
