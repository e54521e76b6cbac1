package io.github.delaytask.lock;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.github.delaytask.DistributedLocks;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The runner on a fake lock and fake records, with a clock that only moves when a test moves it.
 */
class LockedRunnerTests {

    private static final Duration AT_MOST = Duration.ofSeconds(10);

    private final TestClock clock = new TestClock();

    private final FakeLocks locks = new FakeLocks(this.clock);

    private final FakeRecords records = new FakeRecords();

    private final LockedRunner runner = new LockedRunner(this.locks, this.records, this.clock);

    @Test
    void runIsRecordedWithItsHostPidStartAndDuration() {
        List<LastRun> seenWhileRunning = new ArrayList<>();
        RunResult result = this.runner.run("report", AT_MOST, Duration.ZERO, true, () -> {
            seenWhileRunning.add(this.records.runs.get("report"));
            this.clock.advance(Duration.ofMillis(250));
            return "done";
        });
        assertThat(result.status()).isEqualTo(RunResult.Status.RAN);
        assertThat(result.value()).isEqualTo("done");
        assertThat(result.duration()).isEqualTo(Duration.ofMillis(250));
        assertThat(seenWhileRunning.get(0).outcome()).isEqualTo(LastRun.Outcome.RUNNING);
        LastRun run = this.records.runs.get("report");
        assertThat(run.outcome()).isEqualTo(LastRun.Outcome.SUCCEEDED);
        assertThat(run.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(run.host()).isNotEmpty();
        assertThat(run.startedAt()).isEqualTo(TestClock.START);
        assertThat(run.finishedAt()).isEqualTo(TestClock.START.plusMillis(250));
        assertThat(run.duration()).isEqualTo(Duration.ofMillis(250));
        assertThat(run.runId()).isEqualTo(seenWhileRunning.get(0).runId());
    }

    @Test
    void failureIsReturnedNotThrownAndRecordedWithItsError() {
        IllegalStateException boom = new IllegalStateException("boom");
        RunResult result = this.runner.run("report", AT_MOST, Duration.ZERO, true, () -> {
            throw boom;
        });
        assertThat(result.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(result.error()).isSameAs(boom);
        LastRun run = this.records.runs.get("report");
        assertThat(run.outcome()).isEqualTo(LastRun.Outcome.FAILED);
        assertThat(run.error()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(this.locks.isHeld("report")).isFalse();
    }

    @Test
    void workIsSkippedAndNothingRecordedWhileAnotherHolderHasTheLock() {
        this.locks.tryLock("report", AT_MOST);
        List<String> ran = new ArrayList<>();
        RunResult result = this.runner.run("report", AT_MOST, Duration.ZERO, true, () -> ran.add("ran"));
        assertThat(result.status()).isEqualTo(RunResult.Status.LOCKED);
        assertThat(ran).isEmpty();
        assertThat(this.records.runs).isEmpty();
    }

    @Test
    void lockIsReleasedKeepingItUntilLockAtLeastForAfterTheStart() {
        this.runner.run("report", AT_MOST, Duration.ofSeconds(1), true, () -> {
            this.clock.advance(Duration.ofMillis(200));
            return null;
        });
        assertThat(this.locks.isHeld("report")).isTrue();
        this.clock.advance(Duration.ofMillis(799));
        assertThat(this.locks.isHeld("report")).isTrue();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(this.locks.isHeld("report")).isFalse();
    }

    @Test
    void runWithoutRecordingLeavesNoRecord() {
        RunResult result = this.runner.run("order-42", AT_MOST, Duration.ZERO, false, () -> "done");
        assertThat(result.status()).isEqualTo(RunResult.Status.RAN);
        assertThat(this.records.runs).isEmpty();
    }

    @Test
    void workUnderALockThisThreadHoldsRunsAtOnceInsteadOfLockingItselfOut() {
        RunResult outer = this.runner.run("report", AT_MOST, Duration.ZERO, true,
                () -> this.runner.run("report", AT_MOST, Duration.ZERO, true, () -> "inner"));
        assertThat(outer.status()).isEqualTo(RunResult.Status.RAN);
        RunResult inner = (RunResult) outer.value();
        assertThat(inner.status()).isEqualTo(RunResult.Status.RAN);
        assertThat(inner.value()).isEqualTo("inner");
        assertThat(this.locks.isHeld("report")).isFalse();
        assertThat(this.runner.run("report", AT_MOST, Duration.ZERO, true, () -> "again").status())
            .isEqualTo(RunResult.Status.RAN);
    }

    @Test
    void runGoesOnWhenItsRecordCannotBeWritten() {
        LockedRunner runner = new LockedRunner(this.locks, new FailingRecords(), this.clock);
        RunResult result = runner.run("report", AT_MOST, Duration.ZERO, true, () -> "done");
        assertThat(result.status()).isEqualTo(RunResult.Status.RAN);
        assertThat(this.locks.isHeld("report")).isFalse();
    }

    @Test
    void runByHandWhileLockedTellsTheLastRunAndHowLongTheLockRemains() {
        LastRun crashed = LastRun.started("run-1", "web-2", 4242, TestClock.START.minusSeconds(3));
        this.records.runs.put("report", crashed);
        this.locks.tryLock("report", AT_MOST);
        RunResult result = this.runner.runByHand(job("report", "report"));
        assertThat(result.status()).isEqualTo(RunResult.Status.LOCKED);
        assertThat(result.lastRun()).isEqualTo(crashed);
        assertThat(result.lockRemaining()).isEqualTo(AT_MOST);
    }

    @Test
    void runByHandInvokesTheMethodUnderItsLock() {
        Jobs jobs = new Jobs(this.locks);
        RunResult result = this.runner.runByHand(new LockedJob("jobs", jobs, method("report"),
                new LockedMethod("report", null, AT_MOST, Duration.ZERO)));
        assertThat(result.status()).isEqualTo(RunResult.Status.RAN);
        assertThat(jobs.lockHeldDuringRun).isTrue();
        assertThat(this.records.runs.get("report").outcome()).isEqualTo(LastRun.Outcome.SUCCEEDED);
    }

    @Test
    void runByHandRefusesAMethodWithParameters() {
        LockedJob job = job("expire", "expire");
        assertThatIllegalArgumentException().isThrownBy(() -> this.runner.runByHand(job))
            .withMessageContaining("only methods without parameters can be run by hand");
    }

    private LockedJob job(String name, String methodName) {
        return new LockedJob("jobs", new Jobs(this.locks), method(methodName),
                new LockedMethod(name, null, AT_MOST, Duration.ZERO));
    }

    private static Method method(String name) {
        for (Method method : Jobs.class.getDeclaredMethods()) {
            if (method.getName().equals(name)) {
                return method;
            }
        }
        throw new IllegalArgumentException(name);
    }

    static class Jobs {

        private final FakeLocks locks;

        boolean lockHeldDuringRun;

        Jobs(FakeLocks locks) {
            this.locks = locks;
        }

        public void report() {
            this.lockHeldDuringRun = this.locks.isHeld("report");
        }

        public void expire(long orderId) {
        }

    }

    static final class TestClock extends Clock {

        static final Instant START = Instant.parse("2025-01-01T08:00:00Z");

        private Instant now = START;

        void advance(Duration duration) {
            this.now = this.now.plus(duration);
        }

        @Override
        public Instant instant() {
            return this.now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }

    }

    /** Locks with Redis's semantics: a token per holder, and expiry by the clock. */
    static final class FakeLocks implements DistributedLocks {

        private final Clock clock;

        private final Map<String, Held> held = new HashMap<>();

        FakeLocks(Clock clock) {
            this.clock = clock;
        }

        boolean isHeld(String name) {
            Held lock = this.held.get(name);
            return lock != null && lock.expiresAt() > this.clock.millis();
        }

        Duration remaining(String name) {
            return isHeld(name) ? Duration.ofMillis(this.held.get(name).expiresAt() - this.clock.millis()) : null;
        }

        @Override
        public Optional<LockHandle> tryLock(String name, Duration lockAtMostFor) {
            if (isHeld(name)) {
                return Optional.empty();
            }
            String token = UUID.randomUUID().toString();
            long takenAt = this.clock.millis();
            this.held.put(name, new Held(token, takenAt + lockAtMostFor.toMillis()));
            return Optional.of(new LockHandle() {

                @Override
                public String name() {
                    return name;
                }

                @Override
                public boolean unlock(Duration lockAtLeastFor) {
                    if (!owned()) {
                        return false;
                    }
                    long keepUntil = takenAt + lockAtLeastFor.toMillis();
                    if (keepUntil > FakeLocks.this.clock.millis()) {
                        FakeLocks.this.held.put(name, new Held(token, keepUntil));
                    }
                    else {
                        FakeLocks.this.held.remove(name);
                    }
                    return true;
                }

                @Override
                public boolean extend(Duration lockAtMostFor) {
                    throw new UnsupportedOperationException();
                }

                private boolean owned() {
                    return isHeld(name) && FakeLocks.this.held.get(name).token().equals(token);
                }

            });
        }

        record Held(String token, long expiresAt) {
        }

    }

    final class FakeRecords implements LockRecords {

        final Map<String, LastRun> runs = new HashMap<>();

        @Override
        public void runStarted(String name, LastRun run) {
            this.runs.put(name, run);
        }

        @Override
        public void runFinished(String name, LastRun run) {
            this.runs.computeIfPresent(name, (key, current) -> current.runId().equals(run.runId()) ? run : current);
        }

        @Override
        public Optional<LastRun> lastRun(String name) {
            return Optional.ofNullable(this.runs.get(name));
        }

        @Override
        public Optional<Duration> lockRemaining(String name) {
            return Optional.ofNullable(LockedRunnerTests.this.locks.remaining(name));
        }

    }

    static final class FailingRecords implements LockRecords {

        @Override
        public void runStarted(String name, LastRun run) {
            throw new IllegalStateException("Redis is down");
        }

        @Override
        public void runFinished(String name, LastRun run) {
            throw new IllegalStateException("Redis is down");
        }

        @Override
        public Optional<LastRun> lastRun(String name) {
            throw new IllegalStateException("Redis is down");
        }

        @Override
        public Optional<Duration> lockRemaining(String name) {
            throw new IllegalStateException("Redis is down");
        }

    }

}
