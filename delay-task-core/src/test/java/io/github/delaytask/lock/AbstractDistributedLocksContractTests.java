package io.github.delaytask.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.DistributedLocks;
import io.github.delaytask.DistributedLocks.LockHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every {@link DistributedLocks} with its {@link LockRecords} does, whatever keeps them: one holder at a time,
 * a lock that lapses after {@code lockAtMostFor} and is then no longer its holder's, release and extension by the
 * holder only, {@code lockAtLeastFor} counted from the taking, and the latest run of each lock. Times that must pass
 * pass for real, a fraction of a second, waited for by what the locks say rather than by a sleep.
 */
public abstract class AbstractDistributedLocksContractTests {

    private static final Duration LONG = Duration.ofMinutes(5);

    private static final Duration SHORT = Duration.ofMillis(300);

    private DistributedLocks locks;

    private LockRecords records;

    private String name;

    /** Locks on a store of the test's own, empty. */
    protected abstract DistributedLocks createLocks();

    /** The records beside the locks of {@link #createLocks()}. */
    protected abstract LockRecords createRecords();

    /** Drop what {@link #createLocks()} made. */
    protected abstract void dropLocks();

    @BeforeEach
    void createStore() {
        this.locks = createLocks();
        this.records = createRecords();
        this.name = "contract-" + UUID.randomUUID();
    }

    @AfterEach
    void dropStore() {
        dropLocks();
    }

    protected DistributedLocks locks() {
        return this.locks;
    }

    @Test
    void aHeldLockIsRefusedUntilItsHolderReleasesIt() {
        LockHandle held = this.locks.tryLock(this.name, LONG).orElseThrow();
        assertThat(this.locks.tryLock(this.name, LONG)).isEmpty();
        assertThat(held.unlock()).isTrue();
        assertThat(this.locks.tryLock(this.name, LONG)).isPresent();
    }

    @Test
    void locksOfOtherNamesAreIndependentAndNamesDifferingInCaseAreOtherNames() {
        assertThat(this.locks.tryLock(this.name, LONG)).isPresent();
        assertThat(this.locks.tryLock(this.name + "-2", LONG)).isPresent();
        assertThat(this.locks.tryLock(this.name.toUpperCase(), LONG)).isPresent();
        assertThat(this.locks.tryLock(this.name, LONG)).isEmpty();
    }

    @Test
    void aLockLapsesAfterLockAtMostForAndIsThenAnotherHoldersWhichTheFirstCanNeitherReleaseNorExtend() {
        LockHandle first = this.locks.tryLock(this.name, SHORT).orElseThrow();
        LockHandle second = await().atMost(Duration.ofSeconds(10))
            .until(() -> this.locks.tryLock(this.name, LONG), Optional::isPresent)
            .orElseThrow();
        assertThat(first.unlock()).isFalse();
        assertThat(first.extend(LONG)).isFalse();
        assertThat(this.locks.tryLock(this.name, LONG)).as("the second holder's lock").isEmpty();
        assertThat(second.unlock()).isTrue();
    }

    @Test
    void aLapsedLockIsNoLongerItsHoldersEvenWhileNoOtherHasTakenIt() {
        LockHandle lapsed = this.locks.tryLock(this.name, SHORT).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> this.records.lockRemaining(this.name).isEmpty());
        assertThat(lapsed.extend(LONG)).isFalse();
        assertThat(lapsed.unlock()).isFalse();
        assertThat(this.locks.tryLock(this.name, LONG)).isPresent();
    }

    @Test
    void anExtendedLockIsHeldForItsNewTimeFromNow() {
        LockHandle held = this.locks.tryLock(this.name, Duration.ofSeconds(2)).orElseThrow();
        assertThat(held.extend(LONG)).isTrue();
        assertThat(this.records.lockRemaining(this.name)).hasValueSatisfying(
                (remaining) -> assertThat(remaining).isGreaterThan(LONG.minusSeconds(30)).isLessThanOrEqualTo(LONG));
    }

    @Test
    void aLockReleasedWithLockAtLeastForIsKeptUntilThatLongAfterItWasTaken() {
        LockHandle held = this.locks.tryLock(this.name, LONG).orElseThrow();
        assertThat(held.unlock(Duration.ofMinutes(2))).isTrue();
        assertThat(this.locks.tryLock(this.name, LONG)).isEmpty();
        assertThat(this.records.lockRemaining(this.name)).hasValueSatisfying((remaining) -> assertThat(remaining)
            .isGreaterThan(Duration.ofMinutes(2).minusSeconds(30)).isLessThanOrEqualTo(Duration.ofMinutes(2)));
    }

    @Test
    void aLockReleasedOnceItsLockAtLeastForHasPassedIsFreeAtOnce() {
        LockHandle held = this.locks.tryLock(this.name, LONG).orElseThrow();
        // held for 100 ms at least by the store's own clock
        await().atMost(Duration.ofSeconds(10)).until(() -> this.records.lockRemaining(this.name)
            .filter((remaining) -> remaining.compareTo(LONG.minusMillis(100)) < 0)
            .isPresent());
        assertThat(held.unlock(Duration.ofMillis(50))).isTrue();
        assertThat(this.locks.tryLock(this.name, LONG)).isPresent();
    }

    @Test
    void aLockReleasedTwiceIsReleasedOnce() {
        LockHandle held = this.locks.tryLock(this.name, LONG).orElseThrow();
        assertThat(held.unlock()).isTrue();
        assertThat(held.unlock()).isFalse();
        LockHandle next = this.locks.tryLock(this.name, LONG).orElseThrow();
        assertThat(held.unlock()).as("the first holder's, after another took it").isFalse();
        assertThat(this.locks.tryLock(this.name, LONG)).isEmpty();
        assertThat(next.unlock()).isTrue();
    }

    @Test
    void aFreeLockHasNoTimeRemainingAndAHeldOneHasAtMostItsLockAtMostFor() {
        assertThat(this.records.lockRemaining(this.name)).isEmpty();
        LockHandle held = this.locks.tryLock(this.name, LONG).orElseThrow();
        assertThat(this.records.lockRemaining(this.name)).hasValueSatisfying(
                (remaining) -> assertThat(remaining).isPositive().isLessThanOrEqualTo(LONG));
        held.unlock();
        assertThat(this.records.lockRemaining(this.name)).isEmpty();
    }

    @Test
    void ofManyThreadsRacingForANewLockExactlyOneWins() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 5; round++) {
                String fresh = this.name + "-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Optional<LockHandle>>> tries = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    tries.add(pool.submit(() -> {
                        start.await();
                        return this.locks.tryLock(fresh, LONG);
                    }));
                }
                start.countDown();
                int won = 0;
                for (Future<Optional<LockHandle>> attempt : tries) {
                    won += attempt.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
                }
                assertThat(won).as("holders of %s", fresh).isEqualTo(1);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theLatestRunIsRecordedAndAnEarlierRunEndingLateDoesNotOverwriteIt() {
        assertThat(this.records.lastRun(this.name)).isEmpty();
        this.locks.tryLock(this.name, LONG).orElseThrow();
        Instant started = Instant.ofEpochMilli(1_700_000_000_000L);
        LastRun earlier = LastRun.started("run-1", "host-a", 11, started);
        this.records.runStarted(this.name, earlier);
        assertThat(this.records.lastRun(this.name)).contains(earlier);

        LastRun later = LastRun.started("run-2", "host-b", 22, started.plusSeconds(60));
        this.records.runStarted(this.name, later);
        this.records.runFinished(this.name, earlier.finished(started.plusSeconds(90), new IllegalStateException("x")));
        assertThat(this.records.lastRun(this.name)).contains(later);

        LastRun finished = later.finished(started.plusSeconds(61), null);
        this.records.runFinished(this.name, finished);
        assertThat(this.records.lastRun(this.name)).hasValueSatisfying((run) -> {
            assertThat(run).isEqualTo(finished);
            assertThat(run.outcome()).isEqualTo(LastRun.Outcome.SUCCEEDED);
            assertThat(run.duration()).isEqualTo(Duration.ofSeconds(1));
        });
    }

    @Test
    void aFailedRunKeepsItsError() {
        Instant started = Instant.ofEpochMilli(1_700_000_000_000L);
        LastRun run = LastRun.started("run-1", "host-a", 11, started);
        this.records.runStarted(this.name, run);
        LastRun failed = run.finished(started.plusMillis(5), new IllegalStateException("partner down"));
        this.records.runFinished(this.name, failed);
        assertThat(this.records.lastRun(this.name)).hasValueSatisfying((last) -> {
            assertThat(last.outcome()).isEqualTo(LastRun.Outcome.FAILED);
            assertThat(last.error()).isEqualTo("java.lang.IllegalStateException: partner down");
        });
        assertThat(this.locks.tryLock(this.name, LONG)).as("a record without a lock holds nothing").isPresent();
    }

}
