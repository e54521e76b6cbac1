package io.github.delaytask.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DistributedLock;
import io.github.delaytask.lock.DistributedLockAnnotationBeanPostProcessor;
import io.github.delaytask.lock.LastRun;
import io.github.delaytask.lock.LockedJob;
import io.github.delaytask.lock.LockedRunner;
import io.github.delaytask.lock.RunResult;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder of a lock killed with {@code kill -9} in the middle of its run: a JVM of its own
 * ({@link LockHolderApplication}) on the same Redis as the context of the test, which plays the surviving instance.
 */
@Tag("faults")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedLockHolderCrashTests {

    private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(3);

    private LockTestRedis redis;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startRedis() {
        this.redis = LockTestRedis.embedded();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.PROPERTY_PLACEHOLDER,
                    BootLine.REDIS, DelayTaskLockAutoConfiguration.class))
            .withPropertyValues(this.redis.properties())
            .withBean(Survivor.class);
    }

    @AfterAll
    void stopRedis() {
        if (this.redis != null) {
            this.redis.close();
        }
    }

    @Test
    void killedHolderKeepsTheLockUntilLockAtMostForThenAnotherInstanceRunsTheJob() throws Exception {
        Path log = Files.createTempFile("lock-holder", ".log");
        Process holder = startHolder(log);
        try {
            this.runner.run((context) -> {
                LockedRunner runner = context.getBean(LockedRunner.class);
                LastRun held = await().atMost(Duration.ofSeconds(60))
                    .until(() -> runner.lastRun(LockHolderApplication.LOCK).orElse(null),
                            (run) -> run != null && run.pid() == holder.pid());
                assertThat(held.outcome()).isEqualTo(LastRun.Outcome.RUNNING);

                holder.destroyForcibly();
                assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();

                LockedJob job = job(context.getBean(DistributedLockAnnotationBeanPostProcessor.class));
                RunResult refused = runner.runByHand(job);
                assertThat(refused.status()).isEqualTo(RunResult.Status.LOCKED);
                assertThat(refused.lastRun().pid()).isEqualTo(holder.pid());
                assertThat(refused.lastRun().outcome()).isEqualTo(LastRun.Outcome.RUNNING);

                await().atMost(LOCK_AT_MOST_FOR.plusSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> runner.runByHand(job).status() == RunResult.Status.RAN);
                Survivor survivor = context.getBean(Survivor.class);
                assertThat(survivor.runs()).isEqualTo(1);
                // the holder took the lock just before it recorded its start; allow for the time between the two
                Instant lapsed = held.startedAt().plus(LOCK_AT_MOST_FOR).minusMillis(100);
                assertThat(survivor.ranAt()).isAfterOrEqualTo(lapsed).isBefore(lapsed.plusSeconds(2));
                assertThat(runner.lastRun(LockHolderApplication.LOCK).orElseThrow().outcome())
                    .isEqualTo(LastRun.Outcome.SUCCEEDED);
            });
        }
        catch (Throwable ex) {
            throw new AssertionError("Lock holder's output:\n" + Files.readString(log, StandardCharsets.UTF_8), ex);
        }
        finally {
            holder.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    private Process startHolder(Path log) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"),
                LockHolderApplication.class.getName(), "--spring.data.redis.host=" + this.redis.host(),
                "--spring.data.redis.port=" + this.redis.port(),
                "--delay-task.redis.key-prefix=" + this.redis.keyPrefix(),
                "--crash-test.lock-at-most-for=" + LOCK_AT_MOST_FOR.toMillis() + "ms");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static LockedJob job(DistributedLockAnnotationBeanPostProcessor processor) {
        List<LockedJob> jobs = processor.getLockedJobs().named(LockHolderApplication.LOCK);
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    static class Survivor {

        private volatile Instant ranAt;

        private volatile int runs;

        @DistributedLock(name = LockHolderApplication.LOCK, lockAtMostFor = "3s")
        public void run() {
            this.ranAt = Instant.now();
            this.runs++;
        }

        public int runs() {
            return this.runs;
        }

        public Instant ranAt() {
            return this.ranAt;
        }

    }

}
