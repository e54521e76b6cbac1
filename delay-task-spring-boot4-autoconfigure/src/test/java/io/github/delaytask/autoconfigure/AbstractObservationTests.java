package io.github.delaytask.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import javax.sql.DataSource;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import brave.sampler.Sampler;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.testsupport.TestBackend;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
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
import static org.awaitility.Awaitility.await;

/**
 * The observations of adds and handler runs, against one backend: with Micrometer's test registry and Brave's tracer
 * behind it, a handler runs in the trace of the add that stored its task, also on another instance after the adding
 * one has gone; without {@code delay-task.observation.enabled} nothing is observed or stored. Subclasses pick the
 * backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractObservationTests {

    static final int TRACED = 51;

    static final int FAILING = 52;

    private TestBackend backend;

    private ApplicationContextRunner runner;

    protected abstract TestBackend createBackend();

    @BeforeAll
    void startBackend() {
        this.backend = createBackend();
        this.runner = this.backend.applicationRunner()
            .withConfiguration(AutoConfigurations.of(DelayTaskMetricsAutoConfiguration.class))
            .withUserConfiguration(Tracing.class, Listeners.class)
            .withPropertyValues("delay-task.observation.enabled=true", "delay-task.listener.poll-interval=50ms",
                    "delay-task.retry.initial-delay=50ms");
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
    void aHandlerRunsInTheTraceOfItsAddAsAChildOfTheAddsSpan() {
        this.runner.run((context) -> {
            Tracer tracer = context.getBean(Tracer.class);
            Span request = tracer.nextSpan().name("request").start();
            long id;
            try (Tracer.SpanInScope scope = tracer.withSpan(request)) {
                id = context.getBean(DelayTaskService.class)
                    .addTask(DelayTask.builder(TRACED).delay(Duration.ofMillis(300)).build());
            }
            finally {
                request.end();
            }
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runOf(id) != null);
            Run run = listeners.runOf(id);
            assertThat(run.traceId()).isEqualTo(request.context().traceId());
            MutableSpan add = context.getBean(Spans.class).named("delaytask add");
            MutableSpan handler = context.getBean(Spans.class).awaitNamed("delaytask listener");
            assertThat(add.parentId()).isEqualTo(request.context().spanId());
            assertThat(handler.traceId()).isEqualTo(request.context().traceId());
            assertThat(handler.parentId()).isEqualTo(add.id());
            assertThat(handler.id()).isEqualTo(run.spanId());
            assertThat(add.tags()).containsEntry("task.type", Integer.toString(TRACED))
                .containsEntry("task.priority", "0")
                .containsEntry("task.id", Long.toString(id));
            assertThat(handler.tags()).containsEntry("task.type", Integer.toString(TRACED))
                .containsEntry("outcome", "success")
                .containsEntry("task.id", Long.toString(id))
                .containsEntry("task.attempt", "1");
        });
    }

    @Test
    void theTraceContextIsStoredWithTheTaskAndContinuedByAnotherInstanceAfterTheAddingOneHasGone() {
        String[] traceId = new String[1];
        long[] id = new long[1];
        this.runner.withPropertyValues("delay-task.listener.enabled=false").run((context) -> {
            Tracer tracer = context.getBean(Tracer.class);
            Span request = tracer.nextSpan().name("request").start();
            try (Tracer.SpanInScope scope = tracer.withSpan(request)) {
                id[0] = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(TRACED).build());
            }
            finally {
                request.end();
            }
            traceId[0] = request.context().traceId();
            String stored = jdbc(context).queryForObject("SELECT trace_context FROM taskinfo WHERE task_id = ?",
                    String.class, id[0]);
            assertThat(stored).contains(traceId[0]);
        });
        this.runner.run((context) -> {
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runOf(id[0]) != null);
            assertThat(listeners.runOf(id[0]).traceId()).isEqualTo(traceId[0]);
            assertThat(context.getBean(Spans.class).awaitNamed("delaytask listener").traceId())
                .isEqualTo(traceId[0]);
        });
    }

    @Test
    void aBatchIsOneAddObservationWhoseTraceEveryTaskOfItContinues() {
        this.runner.run((context) -> {
            Tracer tracer = context.getBean(Tracer.class);
            Span request = tracer.nextSpan().name("request").start();
            List<Long> ids;
            try (Tracer.SpanInScope scope = tracer.withSpan(request)) {
                ids = context.getBean(DelayTaskService.class)
                    .addTasks(List.of(DelayTask.builder(TRACED).build(), DelayTask.builder(TRACED).priority(1).build(),
                            DelayTask.builder(TRACED).build()));
            }
            finally {
                request.end();
            }
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(15))
                .until(() -> ids.stream().allMatch((id) -> listeners.runOf(id) != null));
            assertThat(ids).allSatisfy(
                    (id) -> assertThat(listeners.runOf(id).traceId()).isEqualTo(request.context().traceId()));
            TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                .hasNumberOfObservationsWithNameEqualTo("delaytask.add", 1);
            assertThat(context.getBean(Stopped.class).named("delaytask.add")).singleElement().satisfies((add) -> {
                assertThat(add.getLowCardinalityKeyValue("task.type").getValue()).isEqualTo(Integer.toString(TRACED));
                assertThat(add.getLowCardinalityKeyValue("task.priority").getValue()).isEqualTo("mixed");
                assertThat(add.getHighCardinalityKeyValue("task.count").getValue()).isEqualTo("3");
            });
        });
    }

    @Test
    void eachRunOfAFailingTaskIsASpanOfItsOwnUnderTheAddsObservedAsAFailureAndTheListenerTimerIsTheObservations() {
        this.runner.run((context) -> {
            long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(FAILING).build());
            Stopped stopped = context.getBean(Stopped.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listenerRuns(stopped, id).size() == 2);
            assertThat(listenerRuns(stopped, id)).allSatisfy((run) -> {
                assertThat(run.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("failure");
                assertThat(run.getError()).isInstanceOf(IllegalStateException.class).hasMessage("partner down");
            })
                .extracting((run) -> run.getHighCardinalityKeyValue("task.attempt").getValue())
                .containsExactly("1", "2");
            Spans spans = context.getBean(Spans.class);
            MutableSpan add = spans.named("delaytask add");
            await().atMost(Duration.ofSeconds(10)).until(() -> spans.allNamed("delaytask listener").size() == 2);
            assertThat(spans.allNamed("delaytask listener")).allSatisfy((run) -> {
                assertThat(run.traceId()).isEqualTo(add.traceId());
                assertThat(run.parentId()).isEqualTo(add.id());
            }).extracting(MutableSpan::id).doesNotHaveDuplicates();
            // one timer of that name, the meter handler's, tagged with the error: the starter keeps none of its own
            List<Timer> timers = context.getBean(MeterRegistry.class).find("delaytask.listener").timers().stream()
                .filter((timer) -> Integer.toString(FAILING).equals(timer.getId().getTag("task.type")))
                .toList();
            assertThat(timers).singleElement().satisfies((timer) -> {
                assertThat(timer.getId().getTag("outcome")).isEqualTo("failure");
                assertThat(timer.getId().getTag("error")).isEqualTo("IllegalStateException");
                assertThat(timer.count()).isEqualTo(2);
            });
        });
    }

    @Test
    void aDeadTaskRequeuedByAThreadOutsideTheTraceContinuesTheTraceOfItsAdd() {
        this.runner.run((context) -> {
            Tracer tracer = context.getBean(Tracer.class);
            DelayTaskService service = context.getBean(DelayTaskService.class);
            Span request = tracer.nextSpan().name("request").start();
            long id;
            try (Tracer.SpanInScope scope = tracer.withSpan(request)) {
                id = service.addTask(DelayTask.builder(FAILING).build());
            }
            finally {
                request.end();
            }
            await().atMost(Duration.ofSeconds(15))
                .until(() -> service.findTask(id).orElseThrow().status() == TaskStatus.DEAD);
            assertThat(service.requeueTask(id)).isTrue();
            Spans spans = context.getBean(Spans.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> runsOf(spans, id).size() >= 3);
            assertThat(runsOf(spans, id)).extracting(MutableSpan::traceId)
                .containsOnly(request.context().traceId());
        });
    }

    private static List<MutableSpan> runsOf(Spans spans, long id) {
        return spans.allNamed("delaytask listener")
            .stream()
            .filter((span) -> Long.toString(id).equals(span.tag("task.id")))
            .toList();
    }

    @Test
    void withoutTheSettingNothingIsObservedAndNoTraceContextIsStored() {
        this.runner.withPropertyValues("delay-task.observation.enabled=false").run((context) -> {
            Tracer tracer = context.getBean(Tracer.class);
            Span request = tracer.nextSpan().name("request").start();
            long later;
            long now;
            try (Tracer.SpanInScope scope = tracer.withSpan(request)) {
                DelayTaskService service = context.getBean(DelayTaskService.class);
                later = service.addTask(DelayTask.builder(TRACED).delay(Duration.ofSeconds(30)).build());
                now = service.addTask(DelayTask.builder(TRACED).build());
            }
            finally {
                request.end();
            }
            assertThat(jdbc(context).queryForObject("SELECT trace_context FROM taskinfo WHERE task_id = ?",
                    String.class, later)).isNull();
            Listeners listeners = context.getBean(Listeners.class);
            await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runOf(now) != null);
            assertThat(listeners.runOf(now).traceId()).isNull();
            TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
                .doesNotHaveAnyObservation();
            // the starter's own timer, which has no error tag
            await().atMost(Duration.ofSeconds(10))
                .until(() -> context.getBean(MeterRegistry.class)
                    .find("delaytask.listener")
                    .tag("task.type", Integer.toString(TRACED))
                    .tag("outcome", "success")
                    .timers()
                    .stream()
                    .anyMatch((timer) -> timer.count() == 1 && timer.getId().getTag("error") == null));
        });
    }

    @Test
    void withObservationsOnASchemaWithoutTheColumnFailsStartUpSayingWhatToAdd() {
        try {
            this.backend.execute("ALTER TABLE taskinfo DROP COLUMN trace_context");
            this.runner.withPropertyValues("delay-task.jdbc.initialize-schema=never").run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("no column taskinfo.trace_context")
                    .hasMessageContaining("delay-task.observation.enabled");
            });
            this.runner
                .withPropertyValues("delay-task.jdbc.initialize-schema=never", "delay-task.observation.enabled=false")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    long id = context.getBean(DelayTaskService.class).addTask(DelayTask.builder(TRACED).build());
                    Listeners listeners = context.getBean(Listeners.class);
                    await().atMost(Duration.ofSeconds(15)).until(() -> listeners.runOf(id) != null);
                });
        }
        finally {
            this.backend.execute("ALTER TABLE taskinfo ADD COLUMN trace_context VARCHAR(1000) NULL");
        }
    }

    private static List<Observation.Context> listenerRuns(Stopped stopped, long id) {
        return stopped.named("delaytask.listener")
            .stream()
            .filter((observed) -> {
                KeyValue taskId = observed.getHighCardinalityKeyValue("task.id");
                return taskId != null && taskId.getValue().equals(Long.toString(id));
            })
            .collect(Collectors.toList());
    }

    private static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class));
    }

    record Run(long taskId, String traceId, String spanId) {
    }

    static class Listeners {

        private final Tracer tracer;

        private final List<Run> runs = new CopyOnWriteArrayList<>();

        Listeners(Tracer tracer) {
            this.tracer = tracer;
        }

        @DelayTaskListener(taskType = TRACED)
        void traced(DelayTask task) {
            Span current = this.tracer.currentSpan();
            this.runs.add(new Run(task.getTaskId(), (current != null) ? current.context().traceId() : null,
                    (current != null) ? current.context().spanId() : null));
        }

        @DelayTaskListener(taskType = TRACED, priority = 1)
        void tracedFirst(DelayTask task) {
            traced(task);
        }

        @DelayTaskListener(taskType = FAILING, maxAttempts = 2)
        void failing(DelayTask task) {
            throw new IllegalStateException("partner down");
        }

        Run runOf(long taskId) {
            return this.runs.stream().filter((run) -> run.taskId() == taskId).findFirst().orElse(null);
        }

    }

    /** The observations stopped, with what they knew by then. */
    static class Stopped implements ObservationHandler<Observation.Context> {

        private final List<Observation.Context> contexts = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            this.contexts.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        List<Observation.Context> named(String name) {
            return this.contexts.stream().filter((context) -> name.equals(context.getName())).toList();
        }

    }

    /** The spans Brave finished, as a Zipkin reporter would receive them. */
    static class Spans extends SpanHandler {

        private final List<MutableSpan> ended = new CopyOnWriteArrayList<>();

        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            this.ended.add(span);
            return true;
        }

        MutableSpan named(String name) {
            return this.ended.stream().filter((span) -> name.equals(span.name())).findFirst().orElseThrow();
        }

        List<MutableSpan> allNamed(String name) {
            return this.ended.stream().filter((span) -> name.equals(span.name())).toList();
        }

        MutableSpan awaitNamed(String name) {
            await().atMost(Duration.ofSeconds(10))
                .until(() -> this.ended.stream().anyMatch((span) -> name.equals(span.name())));
            return named(name);
        }

    }

    /**
     * Tracing as Boot's Brave auto-configuration sets it up: Micrometer's test registry, whose handlers propagate
     * the context into and out of carriers and time each observation.
     */
    @Configuration(proxyBeanMethods = false)
    static class Tracing {

        @Bean
        Spans spans() {
            return new Spans();
        }

        @Bean(destroyMethod = "close")
        brave.Tracing braveTracing(Spans spans) {
            return brave.Tracing.newBuilder()
                .localServiceName("test")
                .sampler(Sampler.ALWAYS_SAMPLE)
                .addSpanHandler(spans)
                .build();
        }

        @Bean
        Tracer tracer(brave.Tracing tracing) {
            return new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(tracing.currentTraceContext()),
                    new BraveBaggageManager());
        }

        @Bean
        Stopped stopped() {
            return new Stopped();
        }

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        TestObservationRegistry observationRegistry(Tracer tracer, brave.Tracing tracing,
                MeterRegistry meterRegistry, Stopped stopped) {
            TestObservationRegistry registry = TestObservationRegistry.create();
            BravePropagator propagator = new BravePropagator(tracing);
            registry.observationConfig()
                .observationHandler(stopped)
                .observationHandler(new DefaultMeterObservationHandler(meterRegistry))
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)));
            return registry;
        }

    }

}
