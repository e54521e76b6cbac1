package io.github.delaytask.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.fixtures.MovingClock;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.fixtures.InMemoryTaskQueues;
import io.github.delaytask.fixtures.InMemoryTaskStore;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The decisions of the claim path, over the twins of the store and of the queues and a clock the test moves: what
 * the database gives a claim, and where each id the queues handed out and the database did not give goes.
 */
class ClaimsTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final QueueId MAILS = new QueueId(2, 0);

    private final MovingClock clock = new MovingClock(NOW);

    private final InMemoryTaskStore store = new InMemoryTaskStore(this.clock::millis);

    private final InMemoryTaskQueues queues = new InMemoryTaskQueues(this.clock::millis);

    private final ConsumedQueues consumed = new ConsumedQueues();

    private final DueSignals signals = new DueSignals(this.clock, this.consumed, null);

    private final List<String> redeliveries = new CopyOnWriteArrayList<>();

    private final List<Long> looks = new CopyOnWriteArrayList<>();

    private final Claims claims = new Claims(this.store, this.queues, LEASE, this.clock, new TaskEvents() {

        @Override
        public void redelivered(QueueId queue, int count) {
            ClaimsTests.this.redeliveries.add(queue + ":" + count);
        }

    }, this.signals, new Pauses(null, this.signals, this.clock), this.consumed);

    /** Claims whose queues the database dispatches once a claim fails or goes unanswered for two seconds. */
    private final Claims withDatabase = new Claims(this.store, this.queues, LEASE, this.clock, TaskEvents.NONE,
            this.signals, new Pauses(null, this.signals, this.clock), this.consumed, Duration.ofMillis(500),
            Duration.ofSeconds(2));

    ClaimsTests() {
        this.signals.addListener((queue, executeTime) -> this.looks.add(executeTime));
    }

    /** A task stored and handed to the queues, as an add does. */
    private long added(QueueId queue, long executeTime) {
        long taskId = this.store.insert(new NewTask(null, queue.taskType(), queue.priority(), executeTime, null, null))
            .taskId();
        this.queues.schedule(queue, taskId, executeTime);
        return taskId;
    }

    /** The time the queues hold the task due at, if they hold it waiting. */
    private long dueInQueues(QueueId queue, long taskId) {
        Claim look = this.queues.claim(queue, 0, Duration.ZERO);
        assertThat(this.queues.inFlightAfter(queue, 0, 100)).doesNotContainKey(taskId);
        return look.redisTime() + look.nextDueInMillis();
    }

    @Test
    void aDueTaskIsWonInTheDatabaseUnderALeaseCountedFromTheQueuesTime() {
        long taskId = added(ORDERS, NOW - 1_000);
        Claims.Batch batch = this.claims.claim(ORDERS, 10);
        assertThat(batch.tasks()).extracting(StoredTask::taskId).containsExactly(taskId);
        assertThat(batch.tasks().get(0).leaseUntil()).isEqualTo(NOW + LEASE.toMillis());
        assertThat(batch.taken()).isEqualTo(1);
        assertThat(this.queues.inFlightAfter(ORDERS, 0, 10)).containsOnlyKeys(taskId);
    }

    @Test
    void onlyTheIdsOfEachQueueItsClaimHandedOutAreWonForIt() {
        long order = added(ORDERS, NOW - 2_000);
        long mail = added(MAILS, NOW - 1_000);
        Claims.Batches batches = this.claims.claimAll(Map.of(ORDERS, 5, MAILS, 5));
        assertThat(batches.failed()).isEmpty();
        assertThat(batches.batches().get(ORDERS).tasks()).extracting(StoredTask::taskId).containsExactly(order);
        assertThat(batches.batches().get(MAILS).tasks()).extracting(StoredTask::taskId).containsExactly(mail);
    }

    @Test
    void theIdOfATaskFinishedMeanwhileIsForgottenByTheQueues() {
        long taskId = added(ORDERS, NOW - 1_000);
        List<StoredTask> claimedBefore = this.store.claimDue(List.of(taskId), NOW, NOW + 1);
        this.store.finish(claimedBefore.get(0), TaskStatus.EXECUTED, null);
        Claims.Batch batch = this.claims.claim(ORDERS, 10);
        assertThat(batch.tasks()).isEmpty();
        assertThat(batch.taken()).isEqualTo(1);
        assertThat(this.queues.inFlightAfter(ORDERS, 0, 10)).isEmpty();
        assertThat(this.queues.claim(ORDERS, 10, LEASE).nextDueInMillis()).isEqualTo(-1);
    }

    @Test
    void theIdOfATaskLeasedElsewhereIsDueAgainWhenThatLeaseRunsOut() {
        long taskId = added(ORDERS, NOW - 1_000);
        long elsewhere = NOW + 20_000;
        assertThat(this.store.claimDue(List.of(taskId), NOW, elsewhere)).hasSize(1);
        assertThat(this.claims.claim(ORDERS, 10).tasks()).isEmpty();
        assertThat(dueInQueues(ORDERS, taskId)).isEqualTo(elsewhere);
        assertThat(this.looks).contains(elsewhere);
    }

    @Test
    void theIdOfATaskRescheduledLaterInTheDatabaseIsDueAtItsNewTime() {
        long taskId = added(ORDERS, NOW - 1_000);
        this.store.reschedule(taskId, NOW + 60_000);
        assertThat(this.claims.claim(ORDERS, 10).tasks()).isEmpty();
        assertThat(dueInQueues(ORDERS, taskId)).isEqualTo(NOW + 60_000);
    }

    @Test
    void whenTheDatabaseClaimFailsTheIdsAreDueAgainInASecondRatherThanAfterTheLease() {
        long taskId = added(ORDERS, NOW - 1_000);
        this.store.failClaims(new QueryTimeoutException("the database does not answer"));
        assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> this.claims.claim(ORDERS, 10));
        assertThat(dueInQueues(ORDERS, taskId)).isEqualTo(NOW + Claims.RECHECK_MILLIS);
        this.store.failClaims(null);
        this.clock.advance(Claims.RECHECK_MILLIS);
        assertThat(this.claims.claim(ORDERS, 10).tasks()).extracting(StoredTask::taskId).containsExactly(taskId);
    }

    @Test
    void aTaskWhoseLeaseRanOutIsClaimedAgainAndItsRedeliveryIsTold() {
        long taskId = added(ORDERS, NOW - 1_000);
        int firstVersion = this.claims.claim(ORDERS, 10).tasks().get(0).version();
        this.clock.advance(LEASE.toMillis() - 1);
        assertThat(this.claims.claim(ORDERS, 10).tasks()).isEmpty();
        assertThat(this.redeliveries).isEmpty();
        this.clock.advance(1);
        Claims.Batch again = this.claims.claim(ORDERS, 10);
        assertThat(again.tasks()).extracting(StoredTask::taskId).containsExactly(taskId);
        assertThat(again.tasks().get(0).version()).isGreaterThan(firstVersion);
        assertThat(this.redeliveries).containsExactly(ORDERS + ":1");
    }

    @Test
    void aPausedQueueGivesAPausedBatchAndItsTasksWait() {
        long taskId = added(ORDERS, NOW - 1_000);
        this.queues.pause(ORDERS, true);
        Claims.Batch batch = this.claims.claim(ORDERS, 10);
        assertThat(batch.paused()).isTrue();
        assertThat(batch.tasks()).isEmpty();
        this.queues.pause(ORDERS, false);
        assertThat(this.claims.claim(ORDERS, 10).tasks()).extracting(StoredTask::taskId).containsExactly(taskId);
    }

    @Test
    void aBatchSaysWhenItsQueueNextNeedsALook() {
        added(ORDERS, NOW + 5_000);
        Claims.Batch batch = this.claims.claim(ORDERS, 10);
        assertThat(batch.tasks()).isEmpty();
        assertThat(batch.nextDueInMillis()).isEqualTo(5_000);
    }

    @Test
    void aClaimUnansweredForLessThanTheClaimTimeoutIsOnlyLateAndItsQueueStaysWithRedis() {
        added(ORDERS, NOW - 1_000);
        this.queues.answerLate(ORDERS, System.nanoTime());
        Claims.Batches batches = this.withDatabase.claimAll(Map.of(ORDERS, 5));
        assertThat(batches.batches()).doesNotContainKey(ORDERS);
        assertThat(batches.failed().get(ORDERS)).isInstanceOf(TaskQueues.ClaimNotAnswered.class);
        assertThat(this.withDatabase.dispatchedFromDatabase()).isEmpty();
    }

    @Test
    void aClaimUnansweredForTheClaimTimeoutHasItsQueueClaimedFromTheDatabase() {
        long taskId = added(ORDERS, NOW - 1_000);
        this.queues.answerLate(ORDERS, System.nanoTime() - TimeUnit.SECONDS.toNanos(3));
        Claims.Batches batches = this.withDatabase.claimAll(Map.of(ORDERS, 5));
        assertThat(batches.batches().get(ORDERS).tasks()).as("the round whose claim went unanswered").isEmpty();
        assertThat(batches.failed()).isEmpty();
        assertThat(this.withDatabase.dispatchedFromDatabase()).containsExactly(ORDERS);
        assertThat(this.withDatabase.claimAll(Map.of(ORDERS, 5)).batches().get(ORDERS).tasks())
            .extracting(StoredTask::taskId)
            .containsExactly(taskId);
    }

    @Test
    void theUnansweredClaimOfAQueueWithAClusterWideLimitWaitsForRedisHoweverLong() {
        added(ORDERS, NOW - 1_000);
        this.withDatabase.limitInFlight(ORDERS, 3);
        this.queues.answerLate(ORDERS, System.nanoTime() - TimeUnit.MINUTES.toNanos(1));
        Claims.Batches batches = this.withDatabase.claimAll(Map.of(ORDERS, 5));
        assertThat(batches.batches()).doesNotContainKey(ORDERS);
        assertThat(batches.failed().get(ORDERS)).isInstanceOf(TaskQueues.ClaimNotAnswered.class);
    }

    @Test
    void theTasksOfALateAnswerAreWonInTheDatabaseUnderALeaseFromNow() {
        long first = added(ORDERS, NOW - 2_000);
        long second = added(ORDERS, NOW - 1_000);
        this.queues.answerLate(ORDERS, System.nanoTime());
        assertThat(this.withDatabase.claimAll(Map.of(ORDERS, 5)).batches()).isEmpty();
        this.clock.advance(1_500);
        this.queues.answer(ORDERS);
        Claims.Batch batch = this.withDatabase.claimAll(Map.of(ORDERS, 1)).batches().get(ORDERS);
        assertThat(batch.tasks()).extracting(StoredTask::taskId).containsExactly(first);
        assertThat(batch.tasks().get(0).leaseUntil()).isEqualTo(NOW + 1_500 + LEASE.toMillis());
        assertThat(this.withDatabase.claimAll(Map.of(ORDERS, 5)).batches().get(ORDERS).tasks())
            .as("the answer's other task, made due again")
            .extracting(StoredTask::taskId)
            .containsExactly(second);
    }

    @Test
    void aSingleClaimRedisHasNotAnsweredYetTakesNothingRatherThanThrow() {
        added(ORDERS, NOW - 1_000);
        this.queues.answerLate(ORDERS, System.nanoTime());
        Claims.Batch batch = this.withDatabase.claim(ORDERS, 1);
        assertThat(batch.tasks()).isEmpty();
        assertThat(batch.taken()).isZero();
    }


}
