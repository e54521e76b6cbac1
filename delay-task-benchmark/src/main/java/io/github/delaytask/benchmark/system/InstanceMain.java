package io.github.delaytask.benchmark.system;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The main class of an instance JVM ({@link InstanceJvms}): the benchmark's delay-task application, run until the
 * benchmark says {@code stop} or closes this JVM's standard input (so that it ends with the benchmark, however
 * that ends). Arguments: {@code name=value} properties, {@code benchmark.listeners} among them.
 * <p>
 * It reads one command a line: {@code count} (answers the handler calls so far), {@code report} (answers the
 * {@link InstanceFigures}), {@code reset} (forgets them), {@code stop}. Answers, and {@code ready} once started, are
 * printed after {@link #MARKER}.
 */
public final class InstanceMain {

    /** Printed before every answer, so that the benchmark finds them among whatever else is printed. */
    static final String MARKER = "instance-jvm:";

    private InstanceMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            properties.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        Tally tally = new Tally();
        StatementCounter statements = new StatementCounter();
        ConfigurableApplicationContext context;
        try {
            context = DelayTaskSystem.application(properties).initializers((ctx) -> {
                ctx.getBeanFactory().registerSingleton("benchmarkTaskSink", tally);
                ctx.getBeanFactory().registerSingleton("benchmarkStatementCounter", statements);
            }).run();
        }
        catch (RuntimeException ex) {
            ex.printStackTrace(System.out);
            System.out.println(MARKER + " failed " + ex);
            System.exit(1);
            return;
        }
        answer("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null && !command.equals("stop")) {
            switch (command) {
                case "count" -> answer(Long.toString(tally.handled.get()));
                case "report" -> answer(tally.figures(statements).line());
                case "reset" -> {
                    tally.reset();
                    statements.reset();
                    answer("reset");
                }
                default -> answer("unknown " + command);
            }
        }
        context.close();
        System.exit(0); // Lettuce's threads would keep the JVM up
    }

    private static void answer(String text) {
        System.out.println(MARKER + " " + text);
        System.out.flush();
    }

    /** Every handler call: how many, the first and last (wall clock), and the lateness of each. */
    private static final class Tally implements TaskSink {

        private final AtomicLong handled = new AtomicLong();

        private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);

        private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

        private final Recorder lateness = new Recorder(3);

        /** What the recorder gave up to the last report since the last reset. */
        private final Histogram reported = new Histogram(3);

        @Override
        public void handled(TaskKind kind, long executeTimeMillis) {
            Instant now = Instant.now();
            long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
            this.lateness.recordValue(Math.max(0, micros - executeTimeMillis * 1000));
            this.first.accumulateAndGet(micros, Math::min);
            this.last.accumulateAndGet(micros, Math::max);
            this.handled.incrementAndGet();
        }

        synchronized InstanceFigures figures(StatementCounter statements) {
            this.reported.add(this.lateness.getIntervalHistogram());
            return new InstanceFigures(this.handled.get(), this.first.get(), this.last.get(), statements.claims(),
                    statements.transactions(), this.reported.copy());
        }

        synchronized void reset() {
            this.handled.set(0);
            this.first.set(Long.MAX_VALUE);
            this.last.set(Long.MIN_VALUE);
            this.lateness.reset();
            this.reported.reset();
        }

    }

}
