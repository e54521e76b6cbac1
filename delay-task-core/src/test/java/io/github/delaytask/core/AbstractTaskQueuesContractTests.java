package io.github.delaytask.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract of the task path's queue port ({@link TaskQueues}), without a database: what every implementation
 * does, run on Redis, a Redis Cluster, Sentinel and the in-memory twin of the tests, which these tests thereby prove
 * to behave as Redis does. The queues keep their own time; the tests read the local clock and leave minutes of
 * margin, and wait for a lease to run out only with leases of a fraction of a second.
 */
public abstract class AbstractTaskQueuesContractTests {

    private static final QueueId QUEUE = new QueueId(7, 0);

    private static final QueueId OTHER = new QueueId(8, 1);

    private static final Duration LEASE = Duration.ofMinutes(1);

    private static final long HOUR = 3_600_000;

    private TaskQueues queues;

    /** Queues of their own, empty, with nothing marked loaded or paused. */
    protected abstract TaskQueues createQueues();

    /** Give the queue its loaded marker, as a finished recovery does. */
    protected abstract void markLoaded(QueueId queue);

    /** Pause or resume the queue, on every instance. */
    protected abstract void pause(QueueId queue, boolean paused);

    /** Remove what {@link #createQueues()} made. */
    protected abstract void dropQueues();

    @BeforeEach
    void create() {
        this.queues = createQueues();
    }

    @AfterEach
    void drop() {
        dropQueues();
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    private List<Long> claimed(QueueId queue, int max) {
        return this.queues.claim(queue, max, LEASE).taskIds();
    }

    @Test
    void aTaskDueIsClaimedOnceUnderALeaseAndTheClaimTellsTheQueuesTime() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        long before = now();
        Claim claim = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(claim.taskIds()).containsExactly(1L);
        assertThat(claim.redisTime()).isBetween(before - 5_000, now() + 5_000);
        assertThat(claim.redelivered()).isZero();
        assertThat(claimed(QUEUE, 10)).isEmpty();
        Map<Long, Long> inFlight = this.queues.inFlightAfter(QUEUE, 0, 10);
        assertThat(inFlight).containsOnlyKeys(1L);
        assertThat(inFlight.get(1L)).isEqualTo(claim.redisTime() + LEASE.toMillis());
    }

    @Test
    void aTaskDueLaterIsNotClaimedAndTheClaimSaysWhenToLookAgain() {
        this.queues.schedule(QUEUE, 1, now() + HOUR);
        Claim claim = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(claim.taskIds()).isEmpty();
        assertThat(claim.nextDueInMillis()).isBetween(HOUR - 60_000, HOUR);
    }

    @Test
    void aQueueThatHoldsNothingNeedsNoLook() {
        Claim claim = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(claim.taskIds()).isEmpty();
        assertThat(claim.nextDueInMillis()).isEqualTo(-1);
        markLoaded(QUEUE);
        Claim untimed = this.queues.claim(QUEUE, 10, LEASE, false);
        assertThat(untimed.taskIds()).isEmpty();
        assertThat(untimed.nextDueInMillis()).isEqualTo(-1);
        assertThat(untimed.loaded()).isTrue();
    }

    @Test
    void claimsHandOutTheLongestDueFirstAndNoMoreThanAsked() {
        long now = now();
        this.queues.schedule(QUEUE, 3, now - 1_000);
        this.queues.schedule(QUEUE, 1, now - 3_000);
        this.queues.schedule(QUEUE, 2, now - 2_000);
        assertThat(claimed(QUEUE, 2)).containsExactly(1L, 2L);
        assertThat(claimed(QUEUE, 2)).containsExactly(3L);
    }

    @Test
    void aTaskWhoseLeaseRanOutIsClaimedAgainAndCountsAsRedelivered() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        assertThat(this.queues.claim(QUEUE, 10, Duration.ofMillis(200)).taskIds()).containsExactly(1L);
        Claim again = await().atMost(Duration.ofSeconds(10))
            .until(() -> this.queues.claim(QUEUE, 10, LEASE), (claim) -> !claim.taskIds().isEmpty());
        assertThat(again.taskIds()).containsExactly(1L);
        assertThat(again.redelivered()).isEqualTo(1);
    }

    @Test
    void anExtendedLeaseRunsFromTheQueuesTimeNowAndAnIdNoLongerInFlightIsLeftOut() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        Claim claim = this.queues.claim(QUEUE, 10, Duration.ofSeconds(5));
        long from = this.queues.extendLeases(Map.of(QUEUE, List.of(1L, 2L)), Duration.ofHours(1));
        assertThat(from).isGreaterThanOrEqualTo(claim.redisTime());
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).containsExactly(Map.entry(1L, from + HOUR));
        assertThat(claimed(QUEUE, 10)).isEmpty();
    }

    @Test
    void acknowledgedTasksLeaveFlightInEveryQueue() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        this.queues.schedule(QUEUE, 2, now() - 1_000);
        this.queues.schedule(OTHER, 3, now() - 1_000);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L, 2L);
        assertThat(claimed(OTHER, 10)).containsExactly(3L);
        this.queues.acknowledge(QUEUE, 1);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).containsOnlyKeys(2L);
        this.queues.acknowledgeAll(Map.of(QUEUE, List.of(2L), OTHER, List.of(3L)));
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).isEmpty();
        assertThat(this.queues.inFlightAfter(OTHER, 0, 10)).isEmpty();
    }

    @Test
    void forgettingARunLeavesALaterRunOfTheTaskInFlight() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        long deadline = this.queues.claim(QUEUE, 10, LEASE).redisTime() + LEASE.toMillis();
        this.queues.forgetRun(QUEUE, 1, deadline);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).containsOnlyKeys(1L);
        this.queues.forgetRun(QUEUE, 1, deadline + 1);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).isEmpty();
    }

    @Test
    void aDeferredTaskLeavesFlightAndIsDueAtItsNewTime() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
        this.queues.defer(QUEUE, 1, now() + HOUR);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).isEmpty();
        Claim later = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(later.taskIds()).isEmpty();
        assertThat(later.nextDueInMillis()).isBetween(HOUR - 60_000, HOUR);
        this.queues.defer(QUEUE, 1, now() - 1);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
    }

    @Test
    void settlingATaskKeepsASoonerTimeTheQueueHoldsAndTakesALaterOneOtherwise() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
        this.queues.schedule(QUEUE, 1, now() + HOUR);
        this.queues.settle(QUEUE, 1, now() + 2 * HOUR);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).isEmpty();
        assertThat(this.queues.claim(QUEUE, 10, LEASE).nextDueInMillis()).isBetween(HOUR - 60_000, HOUR);
        this.queues.settle(QUEUE, 1, now() - 1);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
    }

    @Test
    void releasingOrphansTakesOnlyTasksThatStillHoldTheLeaseDeadlineRead() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        this.queues.schedule(QUEUE, 2, now() - 1_000);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L, 2L);
        Map<Long, Long> read = this.queues.inFlightAfter(QUEUE, 0, 10);
        this.queues.extendLeases(Map.of(QUEUE, List.of(2L)), Duration.ofHours(1));
        long released = this.queues.releaseOrphans(QUEUE,
                Map.of(1L, new long[] { read.get(1L), now() - 1 }, 2L, new long[] { read.get(2L), now() - 1 }));
        assertThat(released).isEqualTo(1);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).containsOnlyKeys(2L);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
    }

    @Test
    void aRemovedTaskIsNotClaimedWhetherWaitingOrAlreadyDue() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        this.queues.schedule(QUEUE, 2, now() - 1_000);
        this.queues.remove(QUEUE, 1);
        assertThat(this.queues.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.queues.remove(QUEUE, 2);
        assertThat(claimed(QUEUE, 10)).isEmpty();
    }

    @Test
    void aScheduleReplacesTheTimeHeldAndAnAddKeepsIt() {
        this.queues.schedule(QUEUE, 1, now() + HOUR);
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        this.queues.add(QUEUE, Map.of(1L, now() + HOUR, 2L, now() - 1_000));
        assertThat(claimed(QUEUE, 10)).containsExactlyInAnyOrder(1L, 2L);
    }

    @Test
    void aScheduleOfATaskAlreadyDueTakesItOutOfTheDueTasksUntilItsNewTime() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        assertThat(this.queues.claim(QUEUE, 0, LEASE).taskIds()).isEmpty();
        this.queues.schedule(QUEUE, 1, now() + HOUR);
        assertThat(claimed(QUEUE, 10)).isEmpty();
    }

    @Test
    void aReloadLeavesATaskInFlightAloneAndReportsOnlyTasksNewToTheQueue() {
        long now = now();
        this.queues.schedule(QUEUE, 1, now + HOUR);
        this.queues.schedule(QUEUE, 2, now - 1_000);
        long deadline = this.queues.claim(QUEUE, 10, LEASE).redisTime() + LEASE.toMillis();
        long earliest = this.queues.reload(QUEUE, Map.of(1L, now + HOUR, 2L, now - 1_000, 3L, now + 2 * HOUR));
        assertThat(earliest).isEqualTo(now + 2 * HOUR);
        assertThat(this.queues.inFlightAfter(QUEUE, 0, 10)).containsExactly(Map.entry(2L, deadline));
        assertThat(claimed(QUEUE, 10)).isEmpty();
        assertThat(this.queues.reload(QUEUE, Map.of(1L, now + HOUR))).isEqualTo(-1);
    }

    @Test
    void aPausedQueueHandsOutNothingUntilResumed() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        pause(QUEUE, true);
        Claim paused = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(paused.paused()).isTrue();
        assertThat(paused.taskIds()).isEmpty();
        pause(QUEUE, false);
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
    }

    @Test
    void aClaimSaysWhetherTheQueueHoldsItsLoadedMarker() {
        this.queues.schedule(QUEUE, 1, now() + HOUR);
        assertThat(this.queues.claim(QUEUE, 10, LEASE).loaded()).isFalse();
        markLoaded(QUEUE);
        assertThat(this.queues.claim(QUEUE, 10, LEASE).loaded()).isTrue();
    }

    @Test
    void anInFlightLimitHandsOutOnlyTheRoomLeftAndAsksForAnEarlyLook() {
        for (long id = 1; id <= 4; id++) {
            this.queues.schedule(QUEUE, id, now() - 1_000);
        }
        this.queues.limitInFlight(QUEUE, 2);
        Claim first = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(first.taskIds()).containsExactly(1L, 2L);
        assertThat(first.nextDueInMillis()).isBetween(0L, 1_000L);
        assertThat(claimed(QUEUE, 10)).isEmpty();
        this.queues.acknowledge(QUEUE, 1);
        assertThat(claimed(QUEUE, 10)).containsExactly(3L);
        this.queues.limitInFlight(QUEUE, 0);
        assertThat(claimed(QUEUE, 10)).containsExactly(4L);
    }

    @Test
    void aRateHandsOutNoMoreThanItsPermitsWithinAPeriodAndSaysWhenTheNextIsFree() {
        for (long id = 1; id <= 4; id++) {
            this.queues.schedule(QUEUE, id, now() - 1_000);
        }
        this.queues.limitRate(QUEUE, 3, Duration.ofHours(1));
        Claim first = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(first.taskIds()).containsExactly(1L, 2L, 3L);
        assertThat(first.nextDueInMillis()).isBetween(LEASE.toMillis() - 10_000, LEASE.toMillis());
        this.queues.acknowledgeAll(QUEUE, List.of(1L, 2L, 3L));
        Claim held = this.queues.claim(QUEUE, 10, LEASE);
        assertThat(held.taskIds()).isEmpty();
        assertThat(held.nextDueInMillis()).isBetween(HOUR - 60_000, HOUR + 1);
        this.queues.limitRate(QUEUE, 0, Duration.ofHours(1));
        assertThat(claimed(QUEUE, 10)).containsExactly(4L);
    }

    @Test
    void aClaimOfManyQueuesClaimsEachAsAsked() {
        this.queues.schedule(QUEUE, 1, now() - 1_000);
        this.queues.schedule(QUEUE, 2, now() - 1_000);
        this.queues.schedule(OTHER, 3, now() - 1_000);
        TaskQueues.Claims claims = this.queues.claimAll(Map.of(QUEUE, 1, OTHER, 5), LEASE, Set.of());
        assertThat(claims.failed()).isEmpty();
        assertThat(claims.claimed().get(QUEUE).taskIds()).containsExactly(1L);
        assertThat(claims.claimed().get(OTHER).taskIds()).containsExactly(3L);
    }

    @Test
    void newTasksOfManyQueuesAreWrittenInChunksAndEveryQueueIsWritten() {
        long due = now() - 1_000;
        Set<QueueId> unwritten = this.queues.addAll(
                Map.of(QUEUE, Map.of(1L, due, 2L, due, 3L, due), OTHER, Map.of(4L, now() + HOUR)), List.of(), 2,
                Duration.ofSeconds(10));
        assertThat(unwritten).isEmpty();
        assertThat(claimed(QUEUE, 10)).containsExactlyInAnyOrder(1L, 2L, 3L);
        assertThat(this.queues.claim(OTHER, 10, LEASE).nextDueInMillis()).isBetween(HOUR - 60_000, HOUR);
    }

    @Test
    void changesOfOneQueueTakeEffectInTheirOrder() {
        long now = now();
        List<TaskQueues.Change> unmade = this.queues.changeAll(List.of(
                new TaskQueues.Change(QUEUE, 1, now + HOUR), new TaskQueues.Change(QUEUE, 1, TaskQueues.Change.REMOVE),
                new TaskQueues.Change(QUEUE, 1, now - 1_000), new TaskQueues.Change(OTHER, 2, now - 1_000),
                new TaskQueues.Change(OTHER, 2, TaskQueues.Change.REMOVE)), Duration.ofSeconds(10));
        assertThat(unmade).isEmpty();
        assertThat(claimed(QUEUE, 10)).containsExactly(1L);
        assertThat(claimed(OTHER, 10)).isEmpty();
    }

}
