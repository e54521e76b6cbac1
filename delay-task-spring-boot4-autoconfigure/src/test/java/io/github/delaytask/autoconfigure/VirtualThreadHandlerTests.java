package io.github.delaytask.autoconfigure;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers on virtual threads with {@code spring.threads.virtual.enabled} (Java 21 or later), as many at once as
 * {@code delay-task.listener.concurrency} allows, and on platform threads without it; on an embedded Redis and an
 * in-memory H2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VirtualThreadHandlerTests {

    static final int GATED = 71;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withUserConfiguration(GatedListener.class)
            .withPropertyValues("delay-task.listener.poll-interval=50ms", "delay-task.listener.concurrency=2");
    }

    @AfterAll
    void stopBackend() {
        if (this.backend != null) {
            this.backend.close();
        }
    }

    @Test
    @Tag("java21")
    @EnabledForJreRange(min = JRE.JAVA_21)
    void withVirtualThreadsEnabledHandlersRunOnVirtualThreadsNoMoreAtOnceThanTheConcurrency() {
        this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
            GatedListener listener = context.getBean(GatedListener.class);
            List<Long> ids = addDueTasks(context.getBean(DelayTaskService.class), 6);
            await().atMost(Duration.ofSeconds(10)).until(() -> listener.running.get() == 2);
            // six are due and claimed, but the two running hold both threads
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> listener.running.get() == 2 && listener.threads.size() == 2);
            listener.release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> listener.threads.size() == ids.size());
            assertThat(listener.threads).containsOnlyKeys(ids);
            assertThat(listener.mostAtOnce).hasValue(2);
            assertThat(listener.threads.values()).allSatisfy((thread) -> {
                assertThat(isVirtual(thread)).as("%s is virtual", thread).isTrue();
                assertThat(thread.getName()).startsWith("delay-task-worker-");
            });
        });
    }

    @Test
    void withoutVirtualThreadsHandlersRunOnPlatformThreads() {
        this.runner.run((context) -> {
            GatedListener listener = context.getBean(GatedListener.class);
            listener.release.countDown();
            List<Long> ids = addDueTasks(context.getBean(DelayTaskService.class), 2);
            await().atMost(Duration.ofSeconds(10)).until(() -> listener.threads.size() == ids.size());
            assertThat(listener.threads.values()).allSatisfy((thread) -> {
                assertThat(isVirtual(thread)).as("%s is virtual", thread).isFalse();
                assertThat(thread.getName()).startsWith("delay-task-worker-");
            });
        });
    }

    private static List<Long> addDueTasks(DelayTaskService service, int count) {
        List<DelayTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(DelayTask.builder(GATED).build());
        }
        return service.addTasks(tasks);
    }

    /** {@code Thread.isVirtual()}, which the sources, compiled for Java 17, cannot call directly. */
    private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
        Method isVirtual;
        try {
            isVirtual = Thread.class.getMethod("isVirtual");
        }
        catch (NoSuchMethodException ex) {
            return false;
        }
        return (boolean) isVirtual.invoke(thread);
    }

    static class GatedListener {

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger mostAtOnce = new AtomicInteger();

        /** The thread of each task's handler. */
        final Map<Long, Thread> threads = new ConcurrentHashMap<>();

        final CountDownLatch release = new CountDownLatch(1);

        @DelayTaskListener(taskType = GATED)
        void handle(DelayTask task) throws InterruptedException {
            this.mostAtOnce.accumulateAndGet(this.running.incrementAndGet(), Math::max);
            this.threads.put(task.getTaskId(), Thread.currentThread());
            try {
                assertThat(this.release.await(30, TimeUnit.SECONDS)).isTrue();
            }
            finally {
                this.running.decrementAndGet();
            }
        }

    }

}
