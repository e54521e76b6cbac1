package io.github.delaytask.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link DelayTaskTester} in an application with the starter, on embedded Redis and H2, as a user's test uses it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTaskTesterTests {

    static final int RECORDED = 1;

    static final int FAILING = 2;

    static final int NO_LISTENER = 3;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskTestAutoConfiguration.class))
            .withUserConfiguration(Listeners.class)
            .withPropertyValues("delay-task.retry.max-attempts=2", "delay-task.retry.initial-delay=10m");
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @BeforeEach
    void clean() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void runDueTasksRunsEveryDueTaskOnTheCallingThreadAndLeavesLaterOnes() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            for (int i = 0; i < 3; i++) {
                service.addTask(DelayTask.builder(RECORDED).parameters("now-" + i).build());
            }
            long later = service.addTask(
                    DelayTask.builder(RECORDED).parameters("later").delay(Duration.ofHours(1)).build());

            assertThat(tester(context).runDueTasks()).isEqualTo(3);

            Listeners listeners = context.getBean(Listeners.class);
            assertThat(listeners.runs).containsExactlyInAnyOrder("now-0", "now-1", "now-2");
            assertThat(listeners.threads).containsOnly(Thread.currentThread().getName());
            assertThat(status(context, later)).isEqualTo(TaskStatus.SCHEDULED);
            assertThat(tester(context).runDueTasks()).isZero();
        });
    }

    @Test
    void advanceTimeRunsWhatBecameDueAndBringsLaterTasksCloser() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(RECORDED).parameters("in 30 min").delay(Duration.ofMinutes(30)).build());
            long inTwoHours = service.addTask(
                    DelayTask.builder(RECORDED).parameters("in 2 h").delay(Duration.ofHours(2)).build());
            Listeners listeners = context.getBean(Listeners.class);

            assertThat(tester(context).advanceTime(Duration.ofMinutes(31))).isEqualTo(1);
            assertThat(listeners.runs).containsExactly("in 30 min");
            assertThat(status(context, inTwoHours)).isEqualTo(TaskStatus.SCHEDULED);

            assertThat(tester(context).advanceTime(Duration.ofMinutes(90))).isEqualTo(1);
            assertThat(listeners.runs).containsExactly("in 30 min", "in 2 h");
        });
    }

    @Test
    void aFailingHandlerIsRetriedAfterItsBackOffAndEndsDeadAfterItsLastAttempt() {
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FAILING).build());
            DelayTaskTester tester = tester(context);

            assertThat(tester.runDueTasks()).isEqualTo(1);
            assertThat(status(context, id)).isEqualTo(TaskStatus.SCHEDULED);
            assertThat(tester.runDueTasks()).as("the retry is 10 minutes away").isZero();
            assertThat(tester.advanceTime(Duration.ofMinutes(10))).isEqualTo(1);

            assertThat(status(context, id)).isEqualTo(TaskStatus.DEAD);
            assertThat(context.getBean(DelayTaskService.class).findTask(id).orElseThrow().lastError())
                .contains("no stock");
        });
    }

    @Test
    void awaitIdleReturnsOnceTheListenersHaveRunEveryDueTask() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            List<Long> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(service.addTask(DelayTask.builder(RECORDED).parameters("task-" + i).build()));
            }

            tester(context).awaitIdle(Duration.ofSeconds(10));

            assertThat(ids).allSatisfy((id) -> assertThat(status(context, id)).isEqualTo(TaskStatus.EXECUTED));
            assertThat(tester(context).dueOrInFlight()).isZero();
        });
    }

    @Test
    void awaitIdleFailsNamingHowManyTasksAreStillDue() {
        this.runner.run((context) -> {
            context.getBean(DelayTaskService.class).addTask(DelayTask.builder(NO_LISTENER).build());

            assertThatIllegalStateException().isThrownBy(() -> tester(context).awaitIdle(Duration.ofMillis(200)))
                .withMessage("1 task(s) still due or in flight after PT0.2S");
        });
    }

    @Test
    void theTesterNeedsTheStarter() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskTestAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayTaskTester.class));
    }

    private static DelayTaskTester tester(AssertableApplicationContext context) {
        return context.getBean(DelayTaskTester.class);
    }

    private static TaskStatus status(AssertableApplicationContext context, long id) {
        return context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status();
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final List<String> runs = new CopyOnWriteArrayList<>();

        final List<String> threads = new CopyOnWriteArrayList<>();

        @Bean
        Handlers handlers() {
            return new Handlers(this);
        }

    }

    static class Handlers {

        private final Listeners listeners;

        Handlers(Listeners listeners) {
            this.listeners = listeners;
        }

        @DelayTaskListener(taskType = RECORDED)
        void recorded(String parameters) {
            this.listeners.runs.add(parameters);
            this.listeners.threads.add(Thread.currentThread().getName());
        }

        @DelayTaskListener(taskType = FAILING)
        void failing() {
            throw new IllegalStateException("no stock");
        }

    }

}
