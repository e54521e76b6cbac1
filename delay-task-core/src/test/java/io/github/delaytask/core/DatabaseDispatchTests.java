package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.fixtures.InMemoryTaskStore;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The decisions of the database's dispatch, over the store's twin, a probe the test answers and a monotonic clock the
 * test moves: which queues it takes over, what it claims, and when a queue goes back to Redis.
 */
class DatabaseDispatchTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final long LEASE = 30_000;

    private static final long CLAIM_TIMEOUT = 2_000;

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final QueueId MAILS = new QueueId(2, 0);

    private static final QueueId REPORTS = new QueueId(3, 0);

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);

    private final DueSignals signals = new DueSignals(this.clock, new ConsumedQueues(), null);

    private final Pauses pauses = new Pauses(null, this.signals, this.clock);

    private final AtomicLong nanos = new AtomicLong();

    /** The queues whose probe Redis answers. */
    private final Set<QueueId> answering = ConcurrentHashMap.newKeySet();

    private final List<QueueId> probed = new CopyOnWriteArrayList<>();

    /** The queues whose probe Redis answers only after longer than a claim may wait. */
    private final Set<QueueId> slow = ConcurrentHashMap.newKeySet();

    private final List<QueueId> lookedAt = new CopyOnWriteArrayList<>();

    private DatabaseDispatch dispatch;

    @BeforeEach
    void create() {
        this.dispatch = dispatch(Duration.ofSeconds(1));
        this.signals.addListener((queue, executeTime) -> this.lookedAt.add(queue));
    }

    private DatabaseDispatch dispatch(Duration pollInterval) {
        return new DatabaseDispatch(this.store, (queue) -> {
            this.probed.add(queue);
            if (!this.answering.contains(queue)) {
                throw new IllegalStateException("Redis does not answer");
            }
            if (this.slow.contains(queue)) {
                this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(CLAIM_TIMEOUT + 1));
            }
        }, this.pauses, this.signals, pollInterval, CLAIM_TIMEOUT, this.clock, this.nanos::get);
    }

    private long added(QueueId queue, long executeTime) {
        return this.store.insert(new NewTask(null, queue.taskType(), queue.priority(), executeTime, null, null))
            .taskId();
    }

    private void pollIntervalPasses() {
        this.nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void aQueueTakenOverIsClaimedFromTheDatabaseEarliestFirstUpToItsCount() {
        long second = added(ORDERS, NOW - 1);
        long first = added(ORDERS, NOW - 2);
        added(ORDERS, NOW - 1 + 1);
        added(ORDERS, NOW + 1);
        added(MAILS, NOW - 5);
        assertThat(this.dispatch.own(Map.of(ORDERS, 2, MAILS, 2))).as("before any claim failed").isEmpty();
        Claims.Batch none = this.dispatch.takeOver(ORDERS);
        assertThat(none.tasks()).as("in the round whose claim failed").isEmpty();
        assertThat(none.nextDueInMillis()).as("the next look, from the database").isZero();
        assertThat(this.dispatch.own(Map.of(ORDERS, 2, MAILS, 2))).containsExactly(Map.entry(ORDERS, 2));
        Map<QueueId, Claims.Batch> batches = this.dispatch.claim(Map.of(ORDERS, 2), NOW, NOW + LEASE);
        Claims.Batch batch = batches.get(ORDERS);
        assertThat(batch.tasks()).extracting(StoredTask::taskId).containsExactlyInAnyOrder(first, second);
        assertThat(batch.tasks()).allSatisfy((task) -> assertThat(task.leaseUntil()).isEqualTo(NOW + LEASE));
        assertThat(batch.taken()).as("a full batch: more may be due").isEqualTo(2);
        assertThat(batch.nextDueInMillis()).as("the next look").isEqualTo(1000);
        assertThat(batch.paused()).isFalse();
        assertThat(this.dispatch.queues()).containsExactly(ORDERS);
    }

    @Test
    void aQueueThatClaimedAllItHadDueIsLookedAtAgainWhenItsNextTaskIsDueWithinThePollInterval() {
        added(ORDERS, NOW - 1);
        added(ORDERS, NOW + 300);
        added(ORDERS, NOW + 200_000);
        added(MAILS, NOW + 100);
        added(REPORTS, NOW + 5_000);
        this.dispatch.takeOver(ORDERS);
        this.dispatch.takeOver(REPORTS);
        Map<QueueId, Claims.Batch> batches = this.dispatch.claim(Map.of(ORDERS, 10, REPORTS, 10), NOW, NOW + LEASE);
        assertThat(batches.get(ORDERS).tasks()).hasSize(1);
        assertThat(batches.get(ORDERS).nextDueInMillis()).as("its next task, not another queue's").isEqualTo(300);
        assertThat(batches.get(REPORTS).nextDueInMillis()).as("nothing within the poll interval").isEqualTo(1000);
    }

    @Test
    void withoutRedisEveryQueueIsClaimedFromTheDatabaseAndNothingIsProbed() {
        DatabaseDispatch everyQueue = new DatabaseDispatch(this.store, (queue) -> this.probed.add(queue), this.pauses,
                this.signals, Duration.ofSeconds(1), Long.MAX_VALUE, this.clock, this.nanos::get, true);
        long due = added(MAILS, NOW - 1);
        assertThat(everyQueue.own(Map.of(ORDERS, 2, MAILS, 2))).containsOnlyKeys(ORDERS, MAILS);
        Map<QueueId, Claims.Batch> batches = everyQueue.claim(Map.of(ORDERS, 2, MAILS, 2), NOW, NOW + LEASE);
        assertThat(batches.get(MAILS).tasks()).extracting(StoredTask::taskId).containsExactly(due);
        pollIntervalPasses();
        everyQueue.claim(Map.of(ORDERS, 2, MAILS, 2), NOW, NOW + LEASE);
        assertThat(this.probed).isEmpty();
        assertThat(everyQueue.queues()).as("none dispatched from the database for want of Redis").isEmpty();
    }

    @Test
    void aQueueKnownToBePausedClaimsNothingFromTheDatabase() {
        added(ORDERS, NOW - 1);
        this.dispatch.takeOver(ORDERS);
        this.pauses.found(ORDERS, true, 0);
        Claims.Batch batch = this.dispatch.claim(Map.of(ORDERS, 10), NOW, NOW + LEASE).get(ORDERS);
        assertThat(batch.tasks()).isEmpty();
        assertThat(batch.paused()).isTrue();
        this.pauses.found(ORDERS, false, 0);
        assertThat(this.dispatch.claim(Map.of(ORDERS, 10), NOW, NOW + LEASE).get(ORDERS).tasks()).hasSize(1);
    }

    @Test
    void noQueueIsTakenOverWhenTurnedOff() {
        DatabaseDispatch off = dispatch(Duration.ZERO);
        assertThat(off.enabled()).isFalse();
        assertThat(off.takeOver(ORDERS)).isNull();
        assertThat(off.own(Map.of(ORDERS, 1))).isEmpty();
    }

    @Test
    void aQueueWithAClusterWideLimitIsNoLongerClaimedInRedisNorFromTheDatabaseUntilRedisAnswersItsProbe() {
        added(MAILS, NOW - 1);
        this.dispatch.limited(MAILS);
        Claims.Batch none = this.dispatch.takeOver(MAILS);
        assertThat(none.tasks()).isEmpty();
        assertThat(none.nextDueInMillis()).as("the next look").isEqualTo(1000);
        assertThat(this.dispatch.own(Map.of(MAILS, 5))).as("kept from claims in Redis").containsOnlyKeys(MAILS);
        Claims.Batch waiting = this.dispatch.claim(Map.of(MAILS, 5), NOW, NOW + LEASE).get(MAILS);
        assertThat(waiting.tasks()).as("claimed from the database").isEmpty();
        assertThat(waiting.paused()).isFalse();
        assertThat(this.dispatch.queues()).as("queues claimed from the database").isEmpty();
        this.answering.add(MAILS);
        pollIntervalPasses();
        this.dispatch.claim(Map.of(MAILS, 5), NOW, NOW + LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.dispatch.own(Map.of(MAILS, 5)).isEmpty());
    }

    @Test
    void aQueueGoesBackToRedisOnceItsProbeIsAnsweredAndIsThenLookedAtAtOnce() {
        this.dispatch.takeOver(ORDERS);
        this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
        assertThat(this.probed).as("probes within the poll interval of the take-over").isEmpty();
        pollIntervalPasses();
        this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.probed.size() == 1);
        assertThat(this.dispatch.queues()).as("after a probe not answered").containsExactly(ORDERS);
        this.answering.add(ORDERS);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
            assertThat(this.probed).as("no second probe within the poll interval").hasSize(1);
        });
        pollIntervalPasses();
        this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.dispatch.queues().isEmpty());
        assertThat(this.dispatch.own(Map.of(ORDERS, 1))).isEmpty();
        assertThat(this.lookedAt).as("the dispatcher told to claim through Redis at once").containsExactly(ORDERS);
    }

    @Test
    void aProbeAnsweredLaterThanAClaimMayWaitLeavesTheQueueWithTheDatabase() {
        this.dispatch.takeOver(ORDERS);
        this.answering.add(ORDERS);
        this.slow.add(ORDERS);
        // a second probe proves the first, slow but answered, left the queue with the database: none probes it then
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            pollIntervalPasses();
            this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
            return this.probed.size() >= 2;
        });
        assertThat(this.dispatch.queues()).containsExactly(ORDERS);
        this.slow.remove(ORDERS);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            pollIntervalPasses();
            this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
            return this.dispatch.queues().isEmpty();
        });
    }

    @Test
    void aProbeRoundStopsAtTheFirstQueueNotAnsweredAndTheNextRoundStartsWithAnother() {
        this.dispatch.takeOver(ORDERS);
        this.dispatch.takeOver(MAILS);
        this.dispatch.takeOver(REPORTS);
        pollIntervalPasses();
        this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.probed.size() == 1);
        this.answering.add(MAILS);
        this.answering.add(REPORTS);
        // the rounds go on until the queues that answer are back; the one that does not stays
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            pollIntervalPasses();
            this.dispatch.claim(Map.of(ORDERS, 1), NOW, NOW + LEASE);
            return this.dispatch.queues().equals(Set.of(ORDERS));
        });
        assertThat(this.probed.get(0)).isEqualTo(ORDERS);
        assertThat(this.probed).contains(MAILS, REPORTS);
    }

}
