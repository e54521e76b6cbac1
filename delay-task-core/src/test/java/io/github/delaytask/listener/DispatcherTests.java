package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delaytask.core.Claims;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dispatcher's decisions, round by round, against fake claims and a clock the test moves.
 */
class DispatcherTests {

    private static final Duration IDLE_LOOK = Duration.ofSeconds(30);

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final QueueId ORDERS_URGENT = new QueueId(1, 9);

    private static final QueueId MAILS = new QueueId(2, 0);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private final AtomicLong wallMillis = new AtomicLong(1_700_000_000_000L);

    private final FakeClaims claims = new FakeClaims();

    private final FakeCapacity capacity = new FakeCapacity(100);

    private final List<Started> started = new ArrayList<>();

    private final Dispatcher dispatcher = new Dispatcher(this.claims, this.capacity,
            (queue, task, reservation, startBy, recordBy) -> this.started.add(new Started(queue.queue(), task,
                    reservation)),
            settings(), IDLE_LOOK, new Waiter(this.nanos::get), this.wallMillis::get);

    @Test
    void claimsFromEveryQueueInOneCallAtTheFirstRound() throws InterruptedException {
        listen(ORDERS, MAILS);
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(1);
        assertThat(this.claims.calls.get(0)).containsOnlyKeys(ORDERS, MAILS);
    }

    @Test
    void looksAtAnIdleQueueAgainOnlyAfterTheIdleLook() throws InterruptedException {
        listen(ORDERS);
        long next = this.dispatcher.round();
        assertThat(next - this.nanos.get()).isEqualTo(IDLE_LOOK.toNanos());
        advance(IDLE_LOOK.minusMillis(1));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(1);
        advance(Duration.ofMillis(1));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(2);
    }

    @Test
    void claimsAgainWhenTheNextTaskIsDueOrALeaseRunsOut() throws InterruptedException {
        listen(ORDERS);
        this.claims.answer(ORDERS, (count) -> batch(0, 500));
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        advance(Duration.ofMillis(499));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(1);
        advance(Duration.ofMillis(1));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(2);
    }

    @Test
    void claimsAgainAtOnceFromAQueueThatGaveAllItWasAskedFor() throws InterruptedException {
        listen(ORDERS, MAILS);
        this.claims.answer(ORDERS, (count) -> batch(count, -1));
        assertThat(this.dispatcher.round()).isEqualTo(this.nanos.get());
        this.dispatcher.round();
        // half the room each at first; the rest of it, held by no running task, to the queue that had work
        assertThat(this.claims.calls.get(0)).containsOnly(Map.entry(ORDERS, 50), Map.entry(MAILS, 50));
        assertThat(this.claims.calls.get(1)).containsOnly(Map.entry(ORDERS, 50));
        assertThat(this.started).hasSize(100);
    }

    @Test
    void aTaskScheduledForAnIdleQueueMakesItDueAtTheTaskTimeAndNotBefore() throws InterruptedException {
        listen(ORDERS);
        this.dispatcher.round();
        this.dispatcher.scheduled(ORDERS, this.wallMillis.get() + 200);
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(this.claims.calls).hasSize(1);
        advance(Duration.ofMillis(200));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(2);
    }

    @Test
    void aTaskScheduledWhileAClaimRunsIsNotForgottenWhenTheClaimSaysTheQueueIsEmpty()
            throws InterruptedException {
        listen(ORDERS);
        this.claims.answer(ORDERS, (count) -> {
            // added after the claim script ran, before its answer came back
            this.dispatcher.scheduled(ORDERS, this.wallMillis.get());
            return batch(0, -1);
        });
        assertThat(this.dispatcher.round()).isEqualTo(this.nanos.get());
    }

    @Test
    void aTaskScheduledForAQueueWithoutAListenerHereIsIgnored() throws InterruptedException {
        listen(ORDERS);
        this.dispatcher.round();
        this.dispatcher.scheduled(MAILS, this.wallMillis.get());
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(IDLE_LOOK.toNanos());
    }

    @Test
    void aPausedQueueIsLookedAtAgainOnlyAfterTheIdleLookUnlessItsResumeIsHeard() throws InterruptedException {
        listen(ORDERS);
        this.claims.answer(ORDERS, (count) -> new Claims.Batch(List.of(), 0, -1, true));
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(IDLE_LOOK.toNanos());
        // a resume announces the queue as due now
        this.dispatcher.scheduled(ORDERS, this.wallMillis.get());
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(2);
    }

    @Test
    void aPausedQueueIsLookedAtWhenItsNextTaskFallsDueAlsoWhenThatTaskWasScheduledBeforeTheClaim()
            throws InterruptedException {
        listen(ORDERS);
        this.dispatcher.round();
        // scheduled, then a claim sooner than it (a wake-up of the queue) finds the queue paused: the task's own look
        // went with that claim, and only the claim's answer knows of it
        this.dispatcher.scheduled(ORDERS, this.wallMillis.get() + 100);
        this.dispatcher.scheduled(ORDERS, this.wallMillis.get());
        this.claims.answer(ORDERS, (count) -> new Claims.Batch(List.of(), 0, 100, true));
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void servesTheHigherPriorityOfATypeFirstWhenCapacityIsShort() throws InterruptedException {
        this.capacity.free = 10;
        listen(ORDERS, ORDERS_URGENT);
        this.dispatcher.round();
        assertThat(this.claims.calls.get(0)).containsOnly(Map.entry(ORDERS_URGENT, 10));
    }

    @Test
    void aHigherPriorityThatDrainedItsQueueLeavesRoomForTheLowerOneInTheSameRound() throws InterruptedException {
        listen(ORDERS, ORDERS_URGENT);
        this.claims.answer(ORDERS_URGENT, (count) -> batch(1, 0)); // one task, the next due now
        this.dispatcher.round();
        assertThat(this.claims.calls.get(0)).containsOnlyKeys(ORDERS_URGENT);
        advance(Duration.ofMillis(1));
        this.dispatcher.round();
        assertThat(this.claims.calls.get(1)).containsKeys(ORDERS_URGENT, ORDERS);
    }

    @Test
    void sharesCapacityBetweenTypesAndGivesBackWhatAClaimDidNotUse() throws InterruptedException {
        this.capacity.free = 40;
        listen(ORDERS, MAILS);
        this.claims.answer(ORDERS, (count) -> batch(2, -1));
        this.dispatcher.round();
        assertThat(this.claims.calls.get(0)).containsOnly(Map.entry(ORDERS, 20), Map.entry(MAILS, 20));
        assertThat(this.capacity.free).isEqualTo(40 - 2);
    }

    @Test
    void givesAShortCapacityToFewTypesWithABacklogAtATimeAndTheTypesTakeTurns() throws InterruptedException {
        QueueId[] types = { new QueueId(10, 0), new QueueId(11, 0), new QueueId(12, 0), new QueueId(13, 0) };
        listen(types);
        for (QueueId type : types) {
            this.claims.answer(type, (count) -> batch(count, 0)); // all it was asked for: a backlog
        }
        this.capacity.free = 2 * Dispatcher.MIN_SHARE;
        for (int round = 0; round < 3; round++) {
            this.dispatcher.round();
            this.started.forEach((run) -> run.reservation().release());
            this.started.clear();
        }
        int share = Dispatcher.MIN_SHARE;
        assertThat(this.claims.calls.get(0)).containsOnly(Map.entry(types[0], share), Map.entry(types[1], share));
        assertThat(this.claims.calls.get(1)).containsOnly(Map.entry(types[2], share), Map.entry(types[3], share));
        assertThat(this.claims.calls.get(2)).containsOnly(Map.entry(types[0], share), Map.entry(types[1], share));
    }

    @Test
    void theRemainderOfAnEqualSplitGoesRoundWhenEveryTypeIsServed() throws InterruptedException {
        QueueId[] types = { new QueueId(10, 0), new QueueId(11, 0), new QueueId(12, 0) };
        listen(types);
        for (QueueId type : types) {
            this.claims.answer(type, (count) -> batch(count, 0)); // all it was asked for: a backlog
        }
        this.capacity.free = 40; // 14, 13 and 13
        for (int round = 0; round < 2; round++) {
            this.dispatcher.round();
            this.started.forEach((run) -> run.reservation().release());
            this.started.clear();
        }
        assertThat(this.claims.calls.get(0)).containsEntry(types[0], 14).containsEntry(types[1], 13);
        assertThat(this.claims.calls.get(1)).containsEntry(types[0], 13).containsEntry(types[1], 14);
    }

    @Test
    void claimsFromEveryDueQueueAtOnceWhenEachDrainedItsQueueAtItsLastClaim() throws InterruptedException {
        List<QueueId> types = new ArrayList<>();
        for (int type = 10; type < 18; type++) {
            types.add(new QueueId(type, 0));
            listen(types.get(types.size() - 1));
            this.claims.answer(types.get(types.size() - 1), (count) -> batch(1, 0)); // fewer than asked, more due
        }
        this.dispatcher.round();
        assertThat(this.claims.calls.get(0)).as("backlogs as far as is known: a minimum share each")
            .hasSize(100 / Dispatcher.MIN_SHARE + 1);
        this.started.forEach((run) -> run.reservation().release());
        advance(Duration.ofMillis(1));
        this.dispatcher.round();
        assertThat(this.claims.calls.get(1)).containsOnlyKeys(types);
    }

    @Test
    void aSmallRoundWithMoreDueIsFollowedAtOnceByTheNextWhileNoOtherInstanceTakesTheTasks()
            throws InterruptedException {
        listen(ORDERS);
        this.claims.answer(ORDERS, (count) -> batch(1, 0)); // one task, the next due now
        this.dispatcher.round();
        advance(Duration.ofMillis(1));
        assertThat(this.dispatcher.round()).isEqualTo(this.nanos.get());
    }

    @Test
    void aSmallRoundWhileAnotherInstanceTakesTheTasksExpectedIsFollowedByTheNextOnlyAfterTheContendedGap()
            throws InterruptedException {
        listen(ORDERS, MAILS);
        this.claims.answer(ORDERS, (count) -> batch(1, 0));
        this.claims.answer(MAILS, (count) -> batch(1, 0));
        this.dispatcher.round();
        advance(Duration.ofMillis(1));
        // the task due now went to another instance; more are due now
        this.claims.answer(ORDERS, (count) -> batch(0, 0));
        long started = this.nanos.get();
        assertThat(this.dispatcher.round()).isEqualTo(started + Dispatcher.CONTENDED_ROUND_NANOS);
        // a round that takes many goes on at once
        advance(Duration.ofMillis(8));
        this.claims.answer(MAILS, (count) -> batch(Dispatcher.SMALL_ROUND, 0));
        assertThat(this.dispatcher.round()).isEqualTo(this.nanos.get());
    }

    @Test
    void aLookAtAnIdleQueueThatFindsNothingIsNoContention() throws InterruptedException {
        listen(ORDERS, MAILS);
        this.dispatcher.round(); // both hold nothing: looked at again after the idle look
        advance(IDLE_LOOK);
        this.claims.answer(MAILS, (count) -> batch(1, 0));
        assertThat(this.dispatcher.round()).isEqualTo(this.nanos.get());
    }

    @Test
    void aListenerAtItsOwnLimitIsNotClaimedForUntilOneOfItsTasksEnds() throws InterruptedException {
        this.dispatcher.listen(ORDERS, null, 2);
        this.claims.answer(ORDERS, (count) -> batch(count, -1));
        this.dispatcher.round();
        assertThat(this.claims.calls.get(0)).containsOnly(Map.entry(ORDERS, 2));
        assertThat(this.dispatcher.round()).as("waits for room").isEqualTo(Long.MAX_VALUE);
        assertThat(this.claims.calls).hasSize(1);
        this.started.get(0).reservation().release();
        this.dispatcher.round();
        assertThat(this.claims.calls.get(1)).containsOnly(Map.entry(ORDERS, 1));
        assertThat(this.capacity.free).isEqualTo(100 - 2);
    }

    @Test
    void aFailedClaimGivesBackItsRoomAndIsTriedAgainAfterAPause() throws InterruptedException {
        listen(ORDERS);
        this.claims.failure = new DataAccessResourceFailureException("database down");
        long next = this.dispatcher.round();
        assertThat(this.capacity.free).isEqualTo(100);
        assertThat(next - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(Dispatcher.ERROR_PAUSE_MILLIS));
    }

    @Test
    void anErrorThrownByAClaimGivesBackItsRoomAndTheQueueIsClaimedFromAgainAfterAPause() throws InterruptedException {
        listen(ORDERS);
        for (int round = 0; round < 3; round++) {
            this.claims.error = new NoClassDefFoundError("com/example/Missing");
            long next = this.dispatcher.round();
            assertThat(this.capacity.free).as("room after failed round %d", round).isEqualTo(100);
            assertThat(next - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(Dispatcher.ERROR_PAUSE_MILLIS));
            advance(Duration.ofMillis(Dispatcher.ERROR_PAUSE_MILLIS));
        }
        this.claims.error = null;
        this.claims.answer(ORDERS, (count) -> batch(2, -1));
        this.dispatcher.round();
        assertThat(this.claims.calls).hasSize(4);
        assertThat(this.started).hasSize(2);
        assertThat(this.capacity.free).isEqualTo(98);
    }

    @Test
    void aQueueWhoseRedisClaimFailedIsTriedAgainAfterAPauseWhileTheOthersGoOn() throws InterruptedException {
        listen(ORDERS, MAILS);
        this.claims.failedQueue = MAILS;
        this.claims.answer(ORDERS, (count) -> batch(1, 100));
        assertThat(this.dispatcher.round() - this.nanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(this.started).hasSize(1);
        assertThat(this.capacity.free).isEqualTo(99);
        advance(Duration.ofMillis(Dispatcher.ERROR_PAUSE_MILLIS));
        this.claims.failedQueue = null;
        this.dispatcher.round();
        assertThat(this.claims.calls.get(1)).containsKey(MAILS);
    }

    @Test
    void aTaskThatEndsGivesBackItsRoomOnceHoweverOftenItIsReleased() throws InterruptedException {
        listen(ORDERS);
        this.claims.answer(ORDERS, (count) -> batch(3, -1));
        this.dispatcher.round();
        assertThat(this.capacity.free).isEqualTo(97);
        Reservation reservation = this.started.get(0).reservation();
        reservation.release();
        reservation.release();
        assertThat(this.capacity.free).isEqualTo(98);
    }

    private void listen(QueueId... queues) {
        for (QueueId queue : queues) {
            this.dispatcher.listen(queue, null, 0);
        }
    }

    private void advance(Duration duration) {
        this.nanos.addAndGet(duration.toNanos());
        this.wallMillis.addAndGet(duration.toMillis());
    }

    private static ListenerSettings settings() {
        return new ListenerSettings(10, 90, 100, Duration.ofMillis(100), Duration.ofSeconds(10),
                Duration.ofSeconds(30), new RetryPolicy(3, Duration.ofSeconds(1), 2, Duration.ofMinutes(1)), false,
                IDLE_LOOK);
    }

    private long ids = 1;

    private Claims.Batch batch(int tasks, long nextDueInMillis) {
        List<StoredTask> won = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            won.add(new StoredTask(this.ids++, 1, 0, 0, new byte[0], 1, 1, null));
        }
        return new Claims.Batch(won, tasks, nextDueInMillis, false);
    }

    private record Started(QueueId queue, StoredTask task, Reservation reservation) {
    }

    /** Answers each queue's claim as the test says; a queue it says nothing of holds nothing. */
    private final class FakeClaims implements Dispatcher.Claimer {

        private final List<Map<QueueId, Integer>> calls = new ArrayList<>();

        private final Map<QueueId, java.util.function.IntFunction<Claims.Batch>> answers = new HashMap<>();

        private RuntimeException failure;

        private Error error;

        private QueueId failedQueue;

        void answer(QueueId queue, java.util.function.IntFunction<Claims.Batch> answer) {
            this.answers.put(queue, answer);
        }

        @Override
        public Claims.Batches claim(Map<QueueId, Integer> counts) {
            this.calls.add(new LinkedHashMap<>(counts));
            if (this.failure != null) {
                throw this.failure;
            }
            if (this.error != null) {
                throw this.error;
            }
            Map<QueueId, Claims.Batch> batches = new HashMap<>();
            Map<QueueId, RuntimeException> failed = new HashMap<>();
            counts.forEach((queue, count) -> {
                if (queue.equals(this.failedQueue)) {
                    failed.put(queue, new IllegalStateException("Redis down"));
                }
                else {
                    batches.put(queue, this.answers.getOrDefault(queue, (n) -> batch(0, -1)).apply(count));
                }
            });
            return new Claims.Batches(batches, failed);
        }

    }

    /** A capacity that never waits. */
    private static final class FakeCapacity implements Capacity {

        private int free;

        FakeCapacity(int free) {
            this.free = free;
        }

        @Override
        public int acquire(int max, long timeoutMillis) {
            int taken = Math.min(max, this.free);
            this.free -= taken;
            return taken;
        }

        @Override
        public void release(int count) {
            this.free += count;
        }

    }

}
