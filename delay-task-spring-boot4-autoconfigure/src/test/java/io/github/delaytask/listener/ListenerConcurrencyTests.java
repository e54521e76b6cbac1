package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener's own {@code concurrency}, on an embedded Redis and H2: it caps the tasks of its queue that an instance
 * holds, while the other listeners keep the rest of the shared pool.
 */
class ListenerConcurrencyTests {

    static final int LIMITED = 21;

    static final int UNLIMITED = 22;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withBean(Listeners.class)
            .withPropertyValues("delay-task.listener.poll-interval=50ms", "delay-task.listener.concurrency=8",
                    "downstream.concurrency=2");
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void aListenerLimitedToTwoRunsAtMostTwoOfItsTasksAtOnceWhileAnotherListenerRunsOnTheRestOfThePool() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Listeners listeners = context.getBean(Listeners.class);
            List<Long> limited = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                limited.add(service.addTask(DelayTask.builder(LIMITED).build()));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.limited.running() == 2);
            // ten of its tasks are due and eight threads idle, yet it holds two: the other listener gets four
            for (int i = 0; i < 4; i++) {
                service.addTask(DelayTask.builder(UNLIMITED).build());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> listeners.unlimited.running() == 4);
            assertThat(listeners.limited.running()).isEqualTo(2);
            listeners.gate.countDown();
            await().atMost(Duration.ofSeconds(20))
                .until(() -> limited.stream().allMatch((id) -> status(context, id) == TaskStatus.EXECUTED));
            assertThat(listeners.limited.most()).isEqualTo(2);
            assertThat(listeners.unlimited.most()).isEqualTo(4);
        });
    }

    private static TaskStatus status(ApplicationContext context, long id) {
        Integer code = new JdbcTemplate(context.getBean(DataSource.class))
            .queryForObject("SELECT status FROM taskinfo_logs WHERE task_id = ?", Integer.class, id);
        return TaskStatus.fromCode(code);
    }

    /** Handlers running at once, and the most there were. */
    static class Running {

        private final AtomicInteger now = new AtomicInteger();

        private final AtomicInteger most = new AtomicInteger();

        void during(CountDownLatch gate) throws InterruptedException {
            this.most.accumulateAndGet(this.now.incrementAndGet(), Math::max);
            try {
                // a downstream that answers once the test lets it
                gate.await(30, TimeUnit.SECONDS);
            }
            finally {
                this.now.decrementAndGet();
            }
        }

        int running() {
            return this.now.get();
        }

        int most() {
            return this.most.get();
        }

    }

    static class Listeners {

        final CountDownLatch gate = new CountDownLatch(1);

        final Running limited = new Running();

        final Running unlimited = new Running();

        @DelayTaskListener(taskType = LIMITED, concurrency = "${downstream.concurrency}")
        void limited(DelayTask task) throws InterruptedException {
            this.limited.during(this.gate);
        }

        @DelayTaskListener(taskType = UNLIMITED)
        void unlimited(DelayTask task) throws InterruptedException {
            this.unlimited.during(this.gate);
        }

    }

}
