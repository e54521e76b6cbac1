package io.github.delaytask.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import com.jayway.jsonpath.JsonPath;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskSchedule;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.actuate.DelayTasksEndpoint;
import io.github.delaytask.actuate.DelayTasksEndpointWebExtension;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import io.github.delaytask.redis.QueueAdministration;
import io.github.delaytask.scheduling.DelayTaskJobs;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TaskStoreInterceptor;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code delaytasks} endpoint over HTTP, on an embedded Redis and an in-memory H2: the queues with their counts
 * after known work, one task, the dead tasks, and each change by hand with its statuses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTasksEndpointTests {

    static final int NO_LISTENER = 70;

    static final int FAILING = 71;

    static final int BLOCKING = 72;

    static final int RECORDED = 73;

    private TestBackend backend;

    private WebApplicationContextRunner runner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.WEB_ENDPOINTS))
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskEndpointAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]))
            .withPropertyValues("management.endpoints.web.exposure.include=delaytasks",
                    "delay-task.listener.poll-interval=50ms")
            .withBean(Listeners.class);
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @BeforeEach
    void clean() {
        // a context first, as it creates the schema
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.update("DELETE FROM taskinfo");
            jdbc.update("DELETE FROM taskinfo_logs");
            jdbc.update("DELETE FROM taskinfo_schedule");
            jdbc.update("DELETE FROM taskinfo_queue");
        });
        this.backend.deleteRedisKeys();
    }

    @Test
    void listsEachQueueWithItsListenerTheNameOfItsTypeAndItsCountsInRedisAndTheDatabase() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Instant later = Instant.now().plus(Duration.ofDays(2));
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(later).build());
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(later.plusSeconds(60)).build());
            service.addTask(DelayTask.builder(NO_LISTENER).priority(1).build());
            long dead = service.addTask(DelayTask.builder(FAILING).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            context.getBean(DelayTaskJobs.class).reloadNow();
            MockMvc mvc = mvc(context);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> mvc.perform(get("/actuator/delaytasks"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.queues[0].taskType").value(NO_LISTENER))
                .andExpect(jsonPath("$.queues[0].priority").value(0))
                .andExpect(jsonPath("$.queues[0].listener").doesNotExist())
                .andExpect(jsonPath("$.queues[0].name").doesNotExist())
                .andExpect(jsonPath("$.queues[0].pending").value(2))
                .andExpect(jsonPath("$.queues[0].dead").value(0))
                .andExpect(jsonPath("$.queues[0].ready").value(0))
                .andExpect(jsonPath("$.queues[0].nextDueTime").value(startsWith(later.toString().substring(0, 16))))
                .andExpect(jsonPath("$.queues[1].taskType").value(NO_LISTENER))
                .andExpect(jsonPath("$.queues[1].priority").value(1))
                .andExpect(jsonPath("$.queues[1].pending").value(1))
                .andExpect(jsonPath("$.queues[1].ready").value(1))
                .andExpect(jsonPath("$.queues[1].oldestReadyAge").value(startsWith("PT")))
                .andExpect(jsonPath("$.queues[2].taskType").value(FAILING))
                .andExpect(jsonPath("$.queues[2].listener").value(containsString("failing")))
                .andExpect(jsonPath("$.queues[2].name").value("stock-check"))
                .andExpect(jsonPath("$.queues[2].pending").value(0))
                .andExpect(jsonPath("$.queues[2].dead").value(1))
                .andExpect(jsonPath("$.queues[2].nextDueTime").doesNotExist())
                .andExpect(jsonPath("$.queues[2].inflight").value(0))
                .andExpect(jsonPath("$.queues[3].taskType").value(BLOCKING))
                .andExpect(jsonPath("$.queues[3].pending").value(0))
                .andExpect(jsonPath("$.lastReload.startedAt").isNotEmpty())
                .andExpect(jsonPath("$.lastReload.tasks").isNumber()));
        });
    }

    @Test
    void showsOneTaskAndAnswers404ForAnUnknownOne() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).bizKey("order-1").build());
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks/tasks/{id}", id))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.taskId").value(id))
                .andExpect(jsonPath("$.status").value("SCHEDULED"))
                .andExpect(jsonPath("$.bizKey").value("order-1"));
            mvc.perform(get("/actuator/delaytasks/tasks/{id}", id + 1)).andExpect(status().isNotFound());
            mvc.perform(get("/actuator/delaytasks/other/{id}", id)).andExpect(status().isNotFound());
        });
    }

    @Test
    void showsTasksParametersNeverByDefaultOnlyAsShowParametersSays() {
        String parameters = "{\"order\":\"42, Elm Street\"}";
        String encoded = Base64.getEncoder().encodeToString(parameters.getBytes(StandardCharsets.UTF_8));
        for (String show : new String[] { null, "never", "when-authorized", "always" }) {
            WebApplicationContextRunner runner = (show != null)
                    ? this.runner.withPropertyValues("management.endpoint.delaytasks.show-parameters=" + show)
                    : this.runner;
            runner.withBean(DeadPageReads.class).run((context) -> {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                long pending = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1))
                    .parameters(parameters)
                    .build());
                long dead = service.addTask(DelayTask.builder(FAILING).parameters(parameters).build());
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
                MockMvc mvc = mvc(context);
                String task = mvc.perform(get("/actuator/delaytasks/tasks/{id}", pending))
                    .andExpect(status().isOk())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
                String deadPage = mvc.perform(get("/actuator/delaytasks/dead"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.tasks[0].taskId").value(dead))
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
                // without Spring Security nobody is authorized
                boolean shown = "always".equals(show);
                assertThat(task.contains(encoded)).as("parameters in a task, show-parameters=%s", show)
                    .isEqualTo(shown);
                assertThat(deadPage.contains(encoded)).as("parameters in the dead tasks, show-parameters=%s", show)
                    .isEqualTo(shown);
                // a page not shown its parameters does not read them from the database either
                assertThat(context.getBean(DeadPageReads.class).withParameters)
                    .as("dead pages read with their parameters, show-parameters=%s", show)
                    .containsExactly(shown);
            });
            this.clean();
        }
    }

    @Test
    void findsTheLiveTaskOfABusinessKeyAndAnswers404WhenNoLiveTaskHasIt() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).bizKey("order:9").build());
            long dead = service.addTask(DelayTask.builder(FAILING).bizKey("order:10").build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks/keys/{key}", "order:9"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.taskId").value(id))
                .andExpect(jsonPath("$.bizKey").value("order:9"))
                .andExpect(jsonPath("$.status").value("SCHEDULED"));
            // a dead task holds its key no more: a new task may take it
            mvc.perform(get("/actuator/delaytasks/keys/{key}", "order:10")).andExpect(status().isNotFound());
            mvc.perform(get("/actuator/delaytasks/keys/{key}", "order:11")).andExpect(status().isNotFound());
            assertThat(service.findTask("order:9")).map(TaskDetails::taskId).hasValue(id);
            assertThat(service.cancelTask("order:9")).isTrue();
            mvc.perform(get("/actuator/delaytasks/keys/{key}", "order:9")).andExpect(status().isNotFound());
            mvc.perform(get("/actuator/delaytasks/tasks/{id}", "first")).andExpect(status().isBadRequest());
        });
    }

    @Test
    void reportsTheRunsAndLatenessOfThisInstanceOverTheLastTenMinutes() {
        this.runner.withBean(Recorded.class).run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long dead = service.addTask(DelayTask.builder(FAILING).build());
            service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(200)).build());
            service.addTask(DelayTask.builder(RECORDED).delay(Duration.ofMillis(200)).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            MockMvc mvc = mvc(context);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                String json = mvc.perform(get("/actuator/delaytasks"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.activity.interval").value("PT10S"))
                    .andExpect(jsonPath("$.activity.intervals.length()").value(60))
                    .andExpect(jsonPath("$.activity.intervals[59].start").isNotEmpty())
                    .andReturn()
                    .getResponse()
                    .getContentAsString();
                assertThat(sum(json, "executed")).isEqualTo(2);
                assertThat(sum(json, "dead")).isEqualTo(1);
                // the failing task was due at once, so only the two delayed ones had a lateness
                assertThat(sum(json, "starts")).isEqualTo(2);
            });
        });
    }

    private static int sum(String json, String field) {
        List<Integer> values = JsonPath.read(json, "$.activity.intervals[*]." + field);
        return values.stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    void listsTheDeadTasksNewestFirstWithTheirLastErrorAndRefusesAPageOutOfRange() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(FAILING).build());
            long second = service.addTask(DelayTask.builder(FAILING).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findDeadTasks(0, 10).size() == 2);
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks/dead"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.page").value(0))
                .andExpect(jsonPath("$.size").value(20))
                .andExpect(jsonPath("$.tasks[0].taskId").value(second))
                .andExpect(jsonPath("$.tasks[0].lastError").value(containsString("no stock")))
                .andExpect(jsonPath("$.tasks[0].taskName").value("stock-check"))
                .andExpect(jsonPath("$.tasks[1].taskId").value(first));
            mvc.perform(get("/actuator/delaytasks/dead").param("page", "1").param("size", "1"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.tasks.length()").value(1))
                .andExpect(jsonPath("$.tasks[0].taskId").value(first));
            mvc.perform(get("/actuator/delaytasks/dead").param("size", "1001"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.reason").value("Page size must be between 1 and 1000"));
            mvc.perform(get("/actuator/delaytasks/dead").param("page", "-1")).andExpect(status().isBadRequest());
            mvc.perform(get("/actuator/delaytasks/dead").param("page", "first")).andExpect(status().isBadRequest());
        });
    }

    @Test
    void requeuesADeadTaskAndRefusesToRequeueAnyOther() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long dead = service.addTask(DelayTask.builder(FAILING).build());
            long scheduled = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            MockMvc mvc = mvc(context);
            mvc.perform(change(scheduled, "{\"action\": \"requeue\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.status").value("NOT_ALLOWED"))
                .andExpect(jsonPath("$.reason")
                    .value("task " + scheduled + " is SCHEDULED; only a DEAD task can be requeued"));
            mvc.perform(change(dead, "{\"action\": \"run-now\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.reason").value(containsString("is DEAD; only a SCHEDULED task")));
            // held, so that the answer shows the requeued task before it runs again
            service.pauseQueue(FAILING, 0);
            mvc.perform(change(dead, "{\"action\": \"requeue\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.task.taskId").value(dead))
                .andExpect(jsonPath("$.task.status").value("SCHEDULED"))
                .andExpect(jsonPath("$.task.attempts").value(0));
            service.resumeQueue(FAILING, 0);
            // it runs again, and fails again for good
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            assertThat(context.getBean(Listeners.class).failures).hasValue(2);
        });
    }

    @Test
    void cancelsADeadTaskWhichThenLeavesTheDeadTasksAndCannotBeRequeued() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long dead = service.addTask(DelayTask.builder(FAILING).build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            MockMvc mvc = mvc(context);
            mvc.perform(change(dead, "{\"action\": \"cancel\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.task.status").value("CANCELLED"));
            mvc.perform(get("/actuator/delaytasks/dead")).andExpect(jsonPath("$.tasks").isEmpty());
            mvc.perform(change(dead, "{\"action\": \"requeue\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.reason")
                    .value("task " + dead + " is CANCELLED; only a DEAD task can be requeued"));
        });
    }

    @Test
    void refusesToRequeueADeadTaskWhoseBusinessKeyALiveTaskHas() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long dead = service.addTask(DelayTask.builder(FAILING).bizKey("order-7").build());
            await().atMost(Duration.ofSeconds(10))
                .until(() -> service.findTask(dead).orElseThrow().status() == TaskStatus.DEAD);
            service.addTask(DelayTask.builder(FAILING).bizKey("order-7").delay(Duration.ofHours(1)).build());
            mvc(context).perform(change(dead, "{\"action\": \"requeue\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.reason").value(containsString("a live task has its business key")))
                .andExpect(jsonPath("$.task.status").value("DEAD"));
        });
    }

    @Test
    void cancelsRunsNowAndReschedulesAPendingTaskAndAnswersWithTheTaskAsChanged() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long moved = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            long cancelled = service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            MockMvc mvc = mvc(context);
            mvc.perform(change(moved, "{\"action\": \"reschedule\", \"executeTime\": \"2099-12-03T10:00:00Z\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.task.executeTime").value("2099-12-03T10:00:00Z"));
            mvc.perform(change(moved, "{\"action\": \"run-now\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.task.status").value("SCHEDULED"));
            assertThat(service.findTask(moved).orElseThrow().executeTime()).isBefore(Instant.now().plusSeconds(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> service.poll(NO_LISTENER, 0) != null);
            mvc.perform(change(cancelled, "{\"action\": \"cancel\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.task.status").value("CANCELLED"));
            mvc.perform(change(cancelled, "{\"action\": \"cancel\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.reason")
                    .value("task " + cancelled + " is CANCELLED; only a SCHEDULED task can be cancelled"));
            mvc.perform(change(moved, "{\"action\": \"run-now\"}"))
                .andExpect(status().isConflict())
                .andExpect(jsonPath("$.reason").value(containsString("is EXECUTED")));
        });
    }

    @Test
    void refusesToChangeATaskWhileAConsumerHoldsIt() {
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(BLOCKING).build());
            assertThat(listeners.started.await(10, TimeUnit.SECONDS)).isTrue();
            try {
                mvc(context).perform(change(id, "{\"action\": \"cancel\"}"))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.reason").value("task " + id + " is running: a consumer holds it, so it "
                            + "cannot be cancelled until its run ends"));
            }
            finally {
                listeners.release.countDown();
            }
        });
    }

    @Test
    void answers400ForABodyWithoutAValidActionOrExecuteTimeAnd404ForAnUnknownTask() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            MockMvc mvc = mvc(context);
            mvc.perform(change(id, "{\"action\": \"delete\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.status").value("INVALID_REQUEST"))
                .andExpect(jsonPath("$.reason").value(containsString("unknown action 'delete'")));
            mvc.perform(change(id, "{\"action\": \"reschedule\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.reason").value(containsString("needs an executeTime")));
            mvc.perform(change(id, "{\"action\": \"reschedule\", \"executeTime\": \"tomorrow\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.reason").value(containsString("not an ISO-8601 instant")));
            mvc.perform(change(id, "{\"action\": \"cancel\", \"executeTime\": \"2099-12-03T10:00:00Z\"}"))
                .andExpect(status().isBadRequest());
            mvc.perform(change(id, "{}")).andExpect(status().isBadRequest());
            mvc.perform(change(id + 1, "{\"action\": \"cancel\"}")).andExpect(status().isNotFound());
            assertThat(context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status())
                .isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void aChangeNeedsAJsonBodySoThatACrossSiteFormCannotMakeIt() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            mvc(context).perform(post("/actuator/delaytasks/tasks/{id}", id)
                .contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .content("action=cancel")).andExpect(status().isUnsupportedMediaType());
            assertThat(context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status())
                .isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void listsTheSchedulesAndPausesResumesAndRemovesOne() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.saveSchedule(TaskSchedule.cron("nightly-report", "0 0 3 * * *", ZoneId.of("Asia/Shanghai"))
                .taskType(NO_LISTENER)
                .catchUp(TaskSchedule.CatchUp.SKIP)
                .build());
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks"))
                .andExpect(jsonPath("$.schedules[0].name").value("nightly-report"))
                .andExpect(jsonPath("$.schedules[0].cron").value("0 0 3 * * *"))
                .andExpect(jsonPath("$.schedules[0].zone").value("Asia/Shanghai"))
                .andExpect(jsonPath("$.schedules[0].taskType").value(NO_LISTENER))
                .andExpect(jsonPath("$.schedules[0].catchUp").value("SKIP"))
                .andExpect(jsonPath("$.schedules[0].paused").value(false))
                .andExpect(jsonPath("$.schedules[0].declaredInCode").value(false));
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.schedule.paused").value(true));
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("UNCHANGED"));
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"resume\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.schedule.paused").value(false));
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"cancel\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.reason").value(org.hamcrest.Matchers.containsString("\"remove\"")));
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"remove\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.schedule").doesNotExist());
            assertThat(service.findSchedules()).isEmpty();
            mvc.perform(changeSchedule("nightly-report", "{\"action\": \"resume\"}"))
                .andExpect(status().isNotFound());
            mvc.perform(get("/actuator/delaytasks")).andExpect(jsonPath("$.schedules").isEmpty());
        });
    }

    @Test
    void storesAndChangesASchedulePostedToTheEndpointAndRefusesAnInvalidOne() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            MockMvc mvc = mvc(context);
            mvc.perform(saveSchedule("{\"name\": \"sync-prices\", \"interval\": \"5m\", \"taskType\": "
                    + NO_LISTENER + ", \"parameters\": \"all\", \"catchUp\": \"skip\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.schedule.interval").value("PT5M"))
                .andExpect(jsonPath("$.schedule.catchUp").value("SKIP"));
            assertThat(service.findSchedules()).singleElement()
                .satisfies((stored) -> assertThat(stored.schedule().getParameters()).asString().isEqualTo("all"));
            // a change without parameters, priority or catch-up keeps the stored ones
            mvc.perform(saveSchedule("{\"name\": \"sync-prices\", \"cron\": \"0 */5 * * * *\", \"zone\": "
                    + "\"Asia/Shanghai\", \"taskType\": " + NO_LISTENER + "}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.schedule.cron").value("0 */5 * * * *"))
                .andExpect(jsonPath("$.schedule.interval").doesNotExist());
            assertThat(service.findSchedules()).singleElement().satisfies((stored) -> {
                assertThat(stored.schedule().getParameters()).asString().isEqualTo("all");
                assertThat(stored.schedule().getCatchUp()).isEqualTo(TaskSchedule.CatchUp.SKIP);
            });
            mvc.perform(saveSchedule("{\"name\": \"bad\", \"cron\": \"0 0 3 * *\", \"zone\": \"UTC\", "
                    + "\"taskType\": 1}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.status").value("INVALID_REQUEST"))
                .andExpect(jsonPath("$.reason").value(org.hamcrest.Matchers.containsString("invalid cron expression")));
            mvc.perform(saveSchedule("{\"name\": \"bad\", \"interval\": \"5m\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.reason").value(org.hamcrest.Matchers.containsString("taskType")));
            mvc.perform(saveSchedule("{\"name\": \"bad\", \"cron\": \"0 0 3 * * *\", \"zone\": \"Mars/Base\", "
                    + "\"taskType\": 1}"))
                .andExpect(status().isBadRequest());
            assertThat(service.findSchedules()).hasSize(1);
        });
    }

    @Test
    void pausesAndResumesAQueueOnEveryInstanceAndSaysWhenItWasSoAlready() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            service.addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            MockMvc mvc = mvc(context);
            mvc.perform(changeQueue(NO_LISTENER, 0, "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.paused").value(true));
            assertThat(service.isQueuePaused(NO_LISTENER, 0)).isTrue();
            mvc.perform(get("/actuator/delaytasks"))
                .andExpect(jsonPath("$.queues[0].taskType").value(NO_LISTENER))
                .andExpect(jsonPath("$.queues[0].paused").value(true));
            mvc.perform(changeQueue(NO_LISTENER, 0, "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("UNCHANGED"))
                .andExpect(jsonPath("$.paused").value(true));
            mvc.perform(changeQueue(NO_LISTENER, 0, "{\"action\": \"resume\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.paused").value(false));
            assertThat(service.isQueuePaused(NO_LISTENER, 0)).isFalse();
            mvc.perform(get("/actuator/delaytasks")).andExpect(jsonPath("$.queues[0].paused").value(false));
        });
    }

    @Test
    void withoutRedisListsTheQueuesWithTheDatabasesCountsAndPausesAndResumesOneInTheDatabase() {
        this.runner.withPropertyValues("delay-task.redis.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(QueueAdministration.class);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Instant later = Instant.now().plus(Duration.ofDays(2));
            service.addTask(DelayTask.builder(NO_LISTENER).executeAt(later).build());
            service.addTask(DelayTask.builder(NO_LISTENER).priority(1).executeAt(later).build());
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.queues[0].taskType").value(NO_LISTENER))
                .andExpect(jsonPath("$.queues[0].pending").value(1))
                .andExpect(jsonPath("$.queues[0].future").value(0))
                .andExpect(jsonPath("$.queues[0].nextDueTime").value(startsWith(later.toString().substring(0, 16))))
                .andExpect(jsonPath("$.queues[1].priority").value(1))
                .andExpect(jsonPath("$.queues[1].paused").value(false));
            mvc.perform(changeQueue(NO_LISTENER, 1, "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.paused").value(true));
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT COUNT(*) FROM taskinfo_queue WHERE task_type = " + NO_LISTENER
                        + " AND priority = 1", Integer.class)).isOne();
            mvc.perform(get("/actuator/delaytasks")).andExpect(jsonPath("$.queues[1].paused").value(true));
            mvc.perform(changeQueue(NO_LISTENER, 1, "{\"action\": \"resume\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.paused").value(false));
            assertThat(service.isQueuePaused(NO_LISTENER, 1)).isFalse();
        });
    }

    @Test
    void pausesAQueueNoInstanceHasUsedYetWhichStaysListedWhileEmptyAndWhoseFirstTasksWait() {
        this.runner.withPropertyValues("delay-task.reload-interval=200ms").run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(changeQueue(999, 0, "{\"action\": \"pause\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.paused").value(true));
            // an empty queue that is not paused leaves the registry once refreshes found it empty for a reload interval
            DelayTaskJobs jobs = context.getBean(DelayTaskJobs.class);
            TaskQueues queues = context.getBean(TaskQueues.class);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> {
                jobs.refreshNow();
                return context.getBean(QueueAdministration.class).queues().contains(new QueueId(999, 0));
            });
            mvc.perform(get("/actuator/delaytasks"))
                .andExpect(jsonPath("$.queues[?(@.taskType == 999)].paused").value(true));

            DelayTaskService service = context.getBean(DelayTaskService.class);
            long id = service.addTask(DelayTask.builder(999).build());
            assertThat(service.poll(999, 0)).isNull();
            assertThat(service.findTask(id).orElseThrow().status()).isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void requeuesEveryDeadTaskOfAQueue() {
        this.runner.run((context) -> {
            DelayTaskService service = context.getBean(DelayTaskService.class);
            long first = service.addTask(DelayTask.builder(FAILING).build());
            long second = service.addTask(DelayTask.builder(FAILING).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findTask(first).orElseThrow().status()
                    == TaskStatus.DEAD && service.findTask(second).orElseThrow().status() == TaskStatus.DEAD);
            mvc(context).perform(changeQueue(FAILING, 0, "{\"action\": \"requeue-dead\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("CHANGED"))
                .andExpect(jsonPath("$.requeued").value(2));
            // both run again, and fail again for good
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(Listeners.class).failures.get() == 4);
            await().atMost(Duration.ofSeconds(10)).until(() -> service.findTask(first).orElseThrow().status()
                    == TaskStatus.DEAD && service.findTask(second).orElseThrow().status() == TaskStatus.DEAD);
        });
    }

    @Test
    void answers404ForAResumeOrRequeueOfAQueueTheClusterDoesNotKnowAnd400ForAnUnknownActionOrAQueueOutOfRange() {
        this.runner.run((context) -> {
            context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            MockMvc mvc = mvc(context);
            mvc.perform(changeQueue(999, 0, "{\"action\": \"resume\"}")).andExpect(status().isNotFound());
            mvc.perform(changeQueue(999, 0, "{\"action\": \"requeue-dead\"}")).andExpect(status().isNotFound());
            mvc.perform(changeQueue(NO_LISTENER, 0, "{\"action\": \"stop\"}"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.status").value("INVALID_REQUEST"))
                .andExpect(jsonPath("$.reason")
                    .value(containsString("\"pause\", \"resume\" and \"requeue-dead\"")));
            mvc.perform(changeQueue(-1, 0, "{\"action\": \"pause\"}")).andExpect(status().isBadRequest());
            assertThat(context.getBean(DelayTaskService.class).isQueuePaused(999, 0)).isFalse();
        });
    }

    @Test
    void readOnlyAccessAllowsTheReadsAndRefusesEveryChange() {
        // READ_ONLY: a context runner's environment lacks Boot's lenient enum conversion, which reads read-only
        this.runner.withPropertyValues("management.endpoint.delaytasks.access=READ_ONLY").run((context) -> {
            long id = context.getBean(DelayTaskService.class)
                .addTask(DelayTask.builder(NO_LISTENER).delay(Duration.ofHours(1)).build());
            MockMvc mvc = mvc(context);
            mvc.perform(get("/actuator/delaytasks")).andExpect(status().isOk());
            mvc.perform(get("/actuator/delaytasks/tasks/{id}", id)).andExpect(status().isOk());
            mvc.perform(get("/actuator/delaytasks/dead")).andExpect(status().isOk());
            mvc.perform(change(id, "{\"action\": \"cancel\"}")).andExpect(status().is4xxClientError());
            mvc.perform(changeQueue(NO_LISTENER, 0, "{\"action\": \"pause\"}"))
                .andExpect(status().is4xxClientError());
            assertThat(context.getBean(DelayTaskService.class).isQueuePaused(NO_LISTENER, 0)).isFalse();
            assertThat(context.getBean(DelayTaskService.class).findTask(id).orElseThrow().status())
                .isEqualTo(TaskStatus.SCHEDULED);
        });
    }

    @Test
    void accessNoneTurnsTheEndpointOff() {
        this.runner.withPropertyValues("management.endpoint.delaytasks.access=NONE").run((context) -> {
            assertThat(context).doesNotHaveBean(DelayTasksEndpoint.class);
            mvc(context).perform(get("/actuator/delaytasks")).andExpect(status().isNotFound());
        });
    }

    @Test
    void looksWithinAFewSecondsShareTheDatabasesCountsAndAChangeMadeThroughTheEndpointIsCountedAtOnce() {
        this.runner.withBean(CountedLiveTasks.class).run((context) -> {
            CountedLiveTasks counted = context.getBean(CountedLiveTasks.class);
            Instant later = Instant.now().plus(Duration.ofDays(2));
            List<Long> ids = context.getBean(DelayTaskService.class)
                .addTasks(List.of(DelayTask.builder(NO_LISTENER).executeAt(later).build(),
                        DelayTask.builder(NO_LISTENER).executeAt(later).build()));
            MockMvc mvc = mvc(context);
            int before = counted.counts.get();
            // three open pages, each at its 5 s look
            for (int i = 0; i < 3; i++) {
                mvc.perform(get("/actuator/delaytasks"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.queues[?(@.taskType == " + NO_LISTENER + ")].pending").value(2));
            }
            assertThat(counted.counts.get() - before).as("counts of the live tasks for three looks").isOne();
            mvc.perform(change(ids.get(0), "{\"action\": \"cancel\"}")).andExpect(status().isOk());
            mvc.perform(get("/actuator/delaytasks"))
                .andExpect(jsonPath("$.queues[?(@.taskType == " + NO_LISTENER + ")].pending").value(1));
            assertThat(counted.counts.get() - before).as("counts, once more after the change").isEqualTo(2);
        });
    }

    @Test
    void anEndpointNotExposedIsNotCreated() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(DelayTasksEndpoint.class)
                .doesNotHaveBean(DelayTasksEndpointWebExtension.class));
    }

    /** A change as the README shows it: a POST with a JSON body. */
    private static MockHttpServletRequestBuilder change(long taskId, String body) {
        return post("/actuator/delaytasks/tasks/{id}", taskId).contentType(MediaType.APPLICATION_JSON).content(body);
    }

    private static MockHttpServletRequestBuilder saveSchedule(String body) {
        return post("/actuator/delaytasks").contentType(MediaType.APPLICATION_JSON).content(body);
    }

    private static MockHttpServletRequestBuilder changeSchedule(String name, String body) {
        return post("/actuator/delaytasks/schedules/{name}", name).contentType(MediaType.APPLICATION_JSON)
            .content(body);
    }

    private static MockHttpServletRequestBuilder changeQueue(int taskType, int priority, String body) {
        return post("/actuator/delaytasks/queues/{type}/{priority}", taskType, priority)
            .contentType(MediaType.APPLICATION_JSON)
            .content(body);
    }

    private static MockMvc mvc(AssertableWebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }

    /** Whether each page of dead tasks was read from the store with its tasks' parameters. */
    static class DeadPageReads extends TaskStoreInterceptor {

        final List<Boolean> withParameters = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("findDeadNewestFirst") && args.length == 3) {
                this.withParameters.add((Boolean) args[2]);
            }
            return store.proceed();
        }

    }

    /** Counts the counts of live tasks, each of which reads the whole of {@code taskinfo}. */
    static class CountedLiveTasks extends TaskStoreInterceptor {

        final AtomicInteger counts = new AtomicInteger();

        @Override
        protected Object intercept(String method, Object[] args, Call store) throws Throwable {
            if (method.equals("countLiveByQueue")) {
                this.counts.incrementAndGet();
            }
            return store.proceed();
        }

    }

    static class Recorded {

        @DelayTaskListener(taskType = RECORDED)
        void recorded(DelayTask task) {
        }

    }

    static class Listeners {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger failures = new AtomicInteger();

        @DelayTaskListener(taskType = FAILING, name = "stock-check", maxAttempts = 1)
        void failing(DelayTask task) {
            this.failures.incrementAndGet();
            throw new IllegalStateException("no stock");
        }

        @DelayTaskListener(taskType = BLOCKING)
        void blocking(DelayTask task) throws InterruptedException {
            this.started.countDown();
            this.release.await(30, TimeUnit.SECONDS);
        }

    }

}
