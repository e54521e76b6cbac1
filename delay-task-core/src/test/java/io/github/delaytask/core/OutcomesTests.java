package io.github.delaytask.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delaytask.fixtures.MovingClock;
import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.fixtures.InMemoryTaskQueues;
import io.github.delaytask.fixtures.InMemoryTaskStore;
import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one policy for recording a run, over the twins of the store and of the queues and a clock the test moves: the
 * database has each outcome first, and the queues hear of it after, or not at all when Redis does not answer.
 */
class OutcomesTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final RetryPolicy THREE_ATTEMPTS = new RetryPolicy(3, Duration.ofSeconds(10), 2,
            Duration.ofMinutes(10));

    private final MovingClock clock = new MovingClock(NOW);

    private final InMemoryTaskStore store = new InMemoryTaskStore(this.clock::millis);

    private final InMemoryTaskQueues queues = new InMemoryTaskQueues(this.clock::millis);

    private final ConsumedQueues consumed = new ConsumedQueues();

    private final DueSignals signals = new DueSignals(this.clock, this.consumed, null);

    /** Every outcome told, and every death, in their order, with what the queues held of the task at its death. */
    private final List<String> told = new CopyOnWriteArrayList<>();

    private final Outcomes outcomes = new Outcomes(this.store, this.queues, LEASE, this.clock, new TaskEvents() {

        @Override
        public void completed(QueueId queue, Outcome outcome, int count) {
            OutcomesTests.this.told.add(outcome + ":" + count);
        }

        @Override
        public void died(StoredTask task, String lastError, Throwable cause) {
            OutcomesTests.this.told.add("died, in flight: "
                    + OutcomesTests.this.queues.inFlightAfter(task.queue(), 0, 10).containsKey(task.taskId()));
        }

    }, this.signals);

    private final Claims claims = new Claims(this.store, this.queues, LEASE, this.clock, TaskEvents.NONE,
            this.signals, new Pauses(null, this.signals, this.clock), this.consumed);

    /** A task stored, handed to the queues and claimed, as a dispatcher holds it when its handler starts. */
    private StoredTask claimed() {
        long taskId = this.store.insert(new NewTask(null, ORDERS.taskType(), ORDERS.priority(), NOW - 1_000, null,
                null))
            .taskId();
        this.queues.schedule(ORDERS, taskId, NOW - 1_000);
        List<StoredTask> won = this.claims.claim(ORDERS, 1).tasks();
        assertThat(won).hasSize(1);
        return won.get(0);
    }

    private boolean inFlight(StoredTask task) {
        return this.queues.inFlightAfter(ORDERS, 0, 10).containsKey(task.taskId());
    }

    /** The time the queues hold the task due at, out of flight. */
    private long dueInQueues(StoredTask task) {
        assertThat(inFlight(task)).isFalse();
        Claim look = this.queues.claim(ORDERS, 0, Duration.ZERO);
        return look.redisTime() + look.nextDueInMillis();
    }

    private TaskDetails details(StoredTask task) {
        return this.store.findDetails(task.taskId());
    }

    @Test
    void aCompletedRunIsRecordedAndThenForgottenByTheQueues() {
        StoredTask task = claimed();
        assertThat(this.outcomes.complete(task)).isTrue();
        assertThat(details(task).status()).isEqualTo(TaskStatus.EXECUTED);
        assertThat(inFlight(task)).isFalse();
        assertThat(this.told).containsExactly("EXECUTED:1");
    }

    @Test
    void aRunWhoseLeaseAnotherConsumerTookOverIsNotRecordedAndItsNewRunStaysInFlight() {
        StoredTask first = claimed();
        this.clock.advance(LEASE.toMillis());
        List<StoredTask> second = this.claims.claim(ORDERS, 1).tasks();
        assertThat(second).extracting(StoredTask::taskId).containsExactly(first.taskId());
        assertThat(this.outcomes.complete(first)).isFalse();
        assertThat(details(first).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(inFlight(first)).isTrue();
        assertThat(this.outcomes.complete(second.get(0))).isTrue();
    }

    @Test
    void aCompletedRunIsRecordedThoughTheQueuesNeverHearOfItAndItsIdIsDroppedWhenItsLeaseRunsOut() {
        StoredTask task = claimed();
        assertThat(this.outcomes.complete(task, (redisHalf) -> {
            // Redis does not answer: its half is never done
        })).isTrue();
        assertThat(details(task).status()).isEqualTo(TaskStatus.EXECUTED);
        assertThat(inFlight(task)).isTrue();
        this.clock.advance(LEASE.toMillis());
        assertThat(this.claims.claim(ORDERS, 1).tasks()).isEmpty();
        assertThat(inFlight(task)).isFalse();
    }

    @Test
    void aFailedRunIsDueAgainAfterTheBackOffInTheDatabaseAndInTheQueues() {
        StoredTask task = claimed();
        this.outcomes.fail(task, new IllegalStateException("boom"), THREE_ATTEMPTS);
        TaskDetails details = details(task);
        assertThat(details.status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(details.executeTime().toEpochMilli()).isEqualTo(NOW + 10_000);
        assertThat(details.lastError()).contains("boom");
        assertThat(dueInQueues(task)).isEqualTo(NOW + 10_000);
        assertThat(this.told).containsExactly("RETRIED:1");
    }

    @Test
    void aRunThatAsksToBeRetriedLaterIsDueAfterTheDelayItAskedFor() {
        StoredTask task = claimed();
        this.outcomes.fail(task, new RetryLaterException(Duration.ofMinutes(3)), THREE_ATTEMPTS);
        assertThat(details(task).executeTime().toEpochMilli()).isEqualTo(NOW + 180_000);
        assertThat(dueInQueues(task)).isEqualTo(NOW + 180_000);
    }

    @Test
    void theLastAttemptsFailureMakesTheTaskDeadAndTheQueuesForgetItsRunBeforeItsListenersHear() {
        StoredTask task = claimed();
        this.outcomes.fail(task, new IllegalStateException("first"), THREE_ATTEMPTS);
        for (int attempt = 2; attempt <= 3; attempt++) {
            this.clock.advance(Duration.ofMinutes(10).toMillis());
            task = this.claims.claim(ORDERS, 1).tasks().get(0);
            this.outcomes.fail(task, new IllegalStateException("attempt " + attempt), THREE_ATTEMPTS);
        }
        assertThat(details(task).status()).isEqualTo(TaskStatus.DEAD);
        assertThat(details(task).lastError()).contains("attempt 3");
        assertThat(this.told).containsExactly("RETRIED:1", "RETRIED:1", "DEAD:1", "died, in flight: false");
    }

    @Test
    void tasksHandedBackUnstartedAreClaimableAtOnceAndDueAgainInTheQueues() {
        StoredTask task = claimed();
        List<StoredTask> unclaimed = this.outcomes.unclaimAll(List.of(task));
        assertThat(unclaimed).containsExactly(task);
        this.outcomes.putBack(unclaimed);
        assertThat(inFlight(task)).isFalse();
        StoredTask again = this.claims.claim(ORDERS, 1).tasks().get(0);
        assertThat(again.attempt()).isEqualTo(task.attempt());
    }

    @Test
    void renewedLeasesRunFromNowInTheDatabaseAndInTheQueues() {
        StoredTask task = claimed();
        this.clock.advance(20_000);
        assertThat(this.outcomes.renewLeasesInDatabase(List.of(task))).isEqualTo(1);
        this.outcomes.extendLeasesInRedis(List.of(task));
        assertThat(this.queues.inFlightAfter(ORDERS, 0, 10)).containsEntry(task.taskId(),
                NOW + 20_000 + LEASE.toMillis());
        this.clock.advance(LEASE.toMillis() - 1);
        assertThat(this.claims.claim(ORDERS, 1).tasks()).isEmpty();
        assertThat(this.outcomes.complete(task)).isTrue();
    }

}
