package io.github.delaytask.store;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.github.delaytask.TaskDetails;
import io.github.delaytask.TaskStatus;
import io.github.delaytask.core.QueueId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DuplicateKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The contract of the task store port, without Redis: what every store must do, run on each database (and, once it
 * exists, on the store's in-memory twin, which these tests then prove to behave as the real ones). Times are epoch ms
 * the tests pick, never a clock's.
 */
public abstract class AbstractTaskStoreContractTests {

    private static final long NOW = 1_800_000_000_000L;

    private static final long LEASE = 30_000;

    private static final QueueId QUEUE = new QueueId(3, 0);

    private TaskStore store;

    /** A store on an empty schema of its own. */
    protected abstract TaskStore createStore();

    /** Drop what {@link #createStore()} made. */
    protected abstract void dropStore();

    @BeforeEach
    void create() {
        this.store = createStore();
    }

    @AfterEach
    void drop() {
        dropStore();
    }

    private static NewTask task(long executeTime) {
        return new NewTask(null, QUEUE.taskType(), QUEUE.priority(), executeTime, bytes("p"), null);
    }

    private static NewTask keyed(String bizKey, long executeTime) {
        return new NewTask(null, QUEUE.taskType(), QUEUE.priority(), executeTime, bytes("p"), bizKey);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private StoredTask added(long executeTime) {
        return this.store.insert(task(executeTime)).created();
    }

    private StoredTask claimed(StoredTask task) {
        List<StoredTask> won = this.store.claimDue(List.of(task.taskId()), NOW, NOW + LEASE);
        assertThat(won).as("the claim of task %s", task.taskId()).hasSize(1);
        return won.get(0);
    }

    private TaskStatus status(long taskId) {
        return this.store.findDetails(taskId).status();
    }

    @Test
    void anAddedTaskIsLiveScheduledAndHeldByNoOne() {
        StoredTask added = added(NOW - 1);
        assertThat(added.taskId()).isPositive();
        assertThat(added.leaseUntil()).isNull();
        assertThat(added.attempts()).isZero();
        assertThat(this.store.findLive(List.of(added.taskId()))).extracting(StoredTask::taskId)
            .containsExactly(added.taskId());
        TaskDetails details = this.store.findDetails(added.taskId());
        assertThat(details.status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(details.parameters()).isEqualTo(bytes("p"));
        assertThat(this.store.findDetails(added.taskId() + 1)).as("an unknown id").isNull();
    }

    @Test
    void aSecondTaskWithALiveKeyStoresNothingAndGivesTheFirstsId() {
        TaskStore.Insertion first = this.store.insert(keyed("order:1", NOW));
        TaskStore.Insertion second = this.store.insert(keyed("order:1", NOW + 1000));
        assertThat(second.created()).isNull();
        assertThat(second.taskId()).isEqualTo(first.taskId());
        assertThat(this.store.insertKeyed(keyed("order:1", NOW)).taskId()).isEqualTo(first.taskId());
        assertThat(this.store.findLiveIdByBizKey("order:1")).isEqualTo(first.taskId());
        assertThat(this.store.findLiveByBizKey("order:1").executeTime()).isEqualTo(NOW);
    }

    @Test
    void aKeyIsFreeAgainOnceItsTaskFinished() {
        StoredTask first = this.store.insert(keyed("order:2", NOW)).created();
        assertThat(this.store.cancel(first.taskId())).isNotNull();
        assertThat(this.store.findLiveByBizKey("order:2")).isNull();
        TaskStore.Insertion again = this.store.insert(keyed("order:2", NOW));
        assertThat(again.created()).isNotNull();
        assertThat(again.taskId()).isNotEqualTo(first.taskId());
    }

    @Test
    void aBatchStoresEachTaskInOrder() {
        List<TaskStore.Insertion> insertions = this.store.insertAll(List.of(task(NOW), keyed("batch", NOW + 1),
                keyed("batch", NOW + 2), task(NOW + 3)));
        assertThat(insertions).hasSize(4);
        assertThat(insertions.get(2).created()).as("the key's second task").isNull();
        assertThat(insertions.get(2).taskId()).isEqualTo(insertions.get(1).taskId());
        assertThat(insertions.get(3).created().executeTime()).isEqualTo(NOW + 3);
    }

    @Test
    void aClaimTakesOnlyDueTasksHeldByNoOneAndBumpsTheirVersion() {
        StoredTask due = added(NOW);
        StoredTask later = added(NOW + 1);
        List<StoredTask> won = this.store.claimDue(List.of(due.taskId(), later.taskId()), NOW, NOW + LEASE);
        assertThat(won).extracting(StoredTask::taskId).containsExactly(due.taskId());
        StoredTask claim = won.get(0);
        assertThat(claim.version()).isGreaterThan(due.version());
        assertThat(claim.leaseUntil()).isEqualTo(NOW + LEASE);
        assertThat(this.store.claimDue(List.of(due.taskId()), NOW + 1, NOW + 1 + LEASE))
            .as("a second claim while the lease runs").isEmpty();
        assertThat(this.store.cancel(due.taskId())).as("a cancel of a task a consumer holds").isNull();
        assertThat(this.store.reschedule(due.taskId(), NOW + 5000)).as("a reschedule of it").isNull();
    }

    @Test
    void aClaimOfQueuesTakesTheirEarliestDueTasksHeldByNoOneUpToEachQueuesCount() {
        QueueId other = new QueueId(QUEUE.taskType(), 1);
        QueueId notAsked = new QueueId(4, 0);
        StoredTask third = added(NOW - 1);
        StoredTask first = added(NOW - 3);
        StoredTask second = added(NOW - 2);
        StoredTask held = claimed(added(NOW - 9));
        added(NOW + 1);
        StoredTask ofOther = this.store.insert(new NewTask(null, other.taskType(), other.priority(), NOW - 5,
                bytes("o"), null)).created();
        this.store.insert(new NewTask(null, notAsked.taskType(), notAsked.priority(), NOW - 5, bytes("n"), null));
        List<StoredTask> won = this.store.claimDueInQueues(Map.of(QUEUE, 2, other, 5), NOW, NOW + LEASE);
        assertThat(won).extracting(StoredTask::taskId)
            .containsExactlyInAnyOrder(first.taskId(), second.taskId(), ofOther.taskId());
        assertThat(won).allSatisfy((task) -> assertThat(task.leaseUntil()).isEqualTo(NOW + LEASE));
        StoredTask claim = won.stream().filter((task) -> task.taskId() == first.taskId()).findFirst().orElseThrow();
        assertThat(claim.version()).isGreaterThan(first.version());
        assertThat(this.store.claimDue(List.of(first.taskId()), NOW, NOW + LEASE)).as("a claim through Redis of a task "
                + "claimed from its queue").isEmpty();
        assertThat(this.store.claimDueInQueues(Map.of(QUEUE, 10), NOW, NOW + LEASE)).as("the next claim of the queue")
            .extracting(StoredTask::taskId)
            .containsExactly(third.taskId());
        assertThat(this.store.claimDueInQueues(Map.of(QUEUE, 1), NOW + LEASE, NOW + 2 * LEASE))
            .as("once the lease of the task held before ran out").extracting(StoredTask::taskId)
            .containsExactly(held.taskId());
        assertThat(this.store.finish(claim, TaskStatus.EXECUTED, null)).isTrue();
    }

    @Test
    void theNextDueTimeOfEachQueueIsItsEarliestTaskWithinTheWindowAfterNow() {
        QueueId other = new QueueId(QUEUE.taskType(), 1);
        QueueId empty = new QueueId(4, 0);
        added(NOW);
        added(NOW + 700);
        added(NOW + 300);
        added(NOW + 5_000);
        this.store.insert(new NewTask(null, other.taskType(), other.priority(), NOW + 100, bytes("o"), null));
        this.store.insert(new NewTask(null, empty.taskType(), empty.priority(), NOW + 2_000, bytes("e"), null));
        assertThat(this.store.nextDueTimes(List.of(QUEUE, other, empty), NOW, NOW + 1_000))
            .as("not the task due now, nor one beyond the window").containsOnly(Map.entry(QUEUE, NOW + 300),
                    Map.entry(other, NOW + 100));
        assertThat(this.store.nextDueTimes(List.of(), NOW, NOW + 1_000)).isEmpty();
    }

    @Test
    void anOlderBacklogOfOneQueueTakesNoPlaceOfAnotherQueuesDueTasks() {
        QueueId other = new QueueId(QUEUE.taskType(), 1);
        for (int i = 0; i < 5; i++) {
            added(NOW - 100 + i);
        }
        StoredTask ofOther = this.store.insert(new NewTask(null, other.taskType(), other.priority(), NOW - 1,
                bytes("o"), null)).created();
        List<StoredTask> won = this.store.claimDueInQueues(Map.of(QUEUE, 2, other, 2), NOW, NOW + LEASE);
        assertThat(won).filteredOn((task) -> task.queue().equals(QUEUE)).hasSize(2);
        assertThat(won).filteredOn((task) -> task.queue().equals(other)).extracting(StoredTask::taskId)
            .containsExactly(ofOther.taskId());
    }

    @Test
    void aTaskWhoseLeaseRanOutIsClaimedAgainAndTheFirstClaimCanNoLongerFinishIt() {
        StoredTask first = claimed(added(NOW));
        List<StoredTask> again = this.store.claimDue(List.of(first.taskId()), NOW + LEASE + 1, NOW + 2 * LEASE);
        assertThat(again).hasSize(1);
        assertThat(this.store.finish(first, TaskStatus.EXECUTED, null)).as("the lost claim's finish").isFalse();
        assertThat(this.store.renewLeases(List.of(first), NOW + 3 * LEASE)).as("the lost claim's renewal").isZero();
        assertThat(this.store.finish(again.get(0), TaskStatus.EXECUTED, null)).isTrue();
        assertThat(status(first.taskId())).isEqualTo(TaskStatus.EXECUTED);
    }

    @Test
    void aRenewalExtendsTheLeaseAndKeepsTheVersion() {
        StoredTask claim = claimed(added(NOW));
        assertThat(this.store.renewLeases(List.of(claim), NOW + 5 * LEASE)).isOne();
        assertThat(this.store.claimDue(List.of(claim.taskId()), NOW + 2 * LEASE, NOW + 3 * LEASE))
            .as("a claim after the first lease, within the renewed one").isEmpty();
        assertThat(this.store.finish(claim, TaskStatus.EXECUTED, null)).as("the renewed claim's finish").isTrue();
    }

    @Test
    void executedTasksLeaveTheLiveTableAndTheirLogsSaySo() {
        StoredTask one = claimed(added(NOW));
        StoredTask two = claimed(added(NOW));
        Finishes finishes = this.store.finishAllExecuted(List.of(one, two));
        assertThat(finishes.finished()).extracting(StoredTask::taskId).containsExactlyInAnyOrder(one.taskId(),
                two.taskId());
        assertThat(finishes.held()).isEmpty();
        assertThat(this.store.findLive(List.of(one.taskId(), two.taskId()))).isEmpty();
        assertThat(status(one.taskId())).isEqualTo(TaskStatus.EXECUTED);
        assertThat(this.store.finishAllExecuted(List.of(one)).finished()).as("finished twice").isEmpty();
    }

    @Test
    void aReleasedTaskIsDueAgainAtItsNewTimeWithOneMoreAttemptAndTheError() {
        StoredTask claim = claimed(added(NOW));
        assertThat(this.store.release(claim, NOW + 2000, "boom")).isTrue();
        StoredTask live = this.store.findLive(List.of(claim.taskId())).get(0);
        assertThat(live.leaseUntil()).isNull();
        assertThat(live.executeTime()).isEqualTo(NOW + 2000);
        assertThat(live.attempts()).isOne();
        assertThat(this.store.findDetails(claim.taskId()).lastError()).isEqualTo("boom");
        assertThat(this.store.claimDue(List.of(claim.taskId()), NOW + 1999, NOW + LEASE)).as("before its time")
            .isEmpty();
        assertThat(this.store.claimDue(List.of(claim.taskId()), NOW + 2000, NOW + LEASE)).hasSize(1);
    }

    @Test
    void anUnclaimedTaskIsAsBeforeItsClaimWithItsAttemptNotCounted() {
        StoredTask claim = claimed(added(NOW));
        assertThat(this.store.unclaim(claim)).isTrue();
        assertThat(this.store.unclaim(claim)).as("unclaimed twice").isFalse();
        StoredTask live = this.store.findLive(List.of(claim.taskId())).get(0);
        assertThat(live.leaseUntil()).isNull();
        assertThat(live.attempts()).isZero();
        assertThat(this.store.claimDue(List.of(claim.taskId()), NOW, NOW + LEASE)).as("claimed again at once")
            .hasSize(1);
    }

    @Test
    void aDeadTaskIsListedCountedRequeuedOrDiscarded() {
        StoredTask claim = claimed(added(NOW));
        assertThat(this.store.finish(claim, TaskStatus.DEAD, "gave up")).isTrue();
        assertThat(this.store.findDead(0, 10)).extracting(TaskDetails::taskId).containsExactly(claim.taskId());
        assertThat(this.store.countDeadByQueue()).containsExactly(Map.entry(QUEUE, 1L));
        assertThat(this.store.findDeadIds(QUEUE, Long.MIN_VALUE, 10)).containsExactly(claim.taskId());
        StoredTask requeued = this.store.requeue(claim.taskId(), NOW - 100);
        assertThat(requeued.executeTime()).isEqualTo(NOW - 100);
        assertThat(requeued.attempts()).isZero();
        assertThat(status(claim.taskId())).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(this.store.requeue(claim.taskId(), NOW)).as("requeued while live").isNull();
        StoredTask again = claimed(requeued);
        assertThat(this.store.finish(again, TaskStatus.DEAD, "gave up again")).isTrue();
        assertThat(this.store.cancelDead(claim.taskId())).isTrue();
        assertThat(status(claim.taskId())).isEqualTo(TaskStatus.CANCELLED);
        assertThat(this.store.findDead(0, 10)).isEmpty();
        assertThat(this.store.requeue(claim.taskId(), NOW)).as("requeued once discarded").isNull();
    }

    @Test
    void aRequeueOfADeadTaskWhoseKeyIsLiveAgainIsRefused() {
        StoredTask first = this.store.insert(keyed("order:3", NOW)).created();
        assertThat(this.store.finish(claimed(first), TaskStatus.DEAD, "gave up")).isTrue();
        this.store.insert(keyed("order:3", NOW));
        assertThatExceptionOfType(DuplicateKeyException.class)
            .isThrownBy(() -> this.store.requeue(first.taskId(), NOW));
    }

    @Test
    void whatTheStoreReturnsOfAKeyedTaskAddedRescheduledOrReplacedCarriesItsBusinessKey() {
        StoredTask added = this.store.insertKeyed(keyed("order-7", NOW + 1_000)).created();
        assertThat(added.bizKey()).isEqualTo("order-7");
        assertThat(this.store.insertAll(List.of(keyed("order-8", NOW + 1_000))).get(0).created().bizKey())
            .isEqualTo("order-8");
        StoredTask rescheduled = this.store.reschedule(added.taskId(), NOW + 2_000);
        assertThat(rescheduled.bizKey()).isEqualTo("order-7");
        assertThat(this.store.replace(rescheduled, NOW + 3_000, bytes("q"), null).bizKey()).isEqualTo("order-7");
        assertThat(this.store.findLive(List.of(added.taskId())).get(0).bizKey()).isEqualTo("order-7");
    }

    @Test
    void aRescheduleOrReplaceOfAWaitingTaskKeepsItsIdAndMovesItsVersionOn() {
        StoredTask added = this.store.insert(keyed("digest:1", NOW + 1000)).created();
        StoredTask moved = this.store.reschedule(added.taskId(), NOW + 2000);
        assertThat(moved.executeTime()).isEqualTo(NOW + 2000);
        assertThat(moved.version()).isGreaterThan(added.version());
        StoredTask replaced = this.store.replace(this.store.findLiveByBizKey("digest:1"), NOW + 3000, bytes("new"),
                null);
        assertThat(replaced.taskId()).isEqualTo(added.taskId());
        assertThat(replaced.executeTime()).isEqualTo(NOW + 3000);
        assertThat(replaced.version()).isGreaterThan(moved.version());
        assertThat(this.store.findDetails(added.taskId()).parameters()).isEqualTo(bytes("new"));
        claimed(this.store.reschedule(added.taskId(), NOW));
        assertThat(this.store.replace(replaced, NOW + 4000, bytes("late"), null)).as("a replace of a held task")
            .isNull();
    }

    @Test
    void aCancelledTaskLeavesTheLiveTableAndNeverRuns() {
        StoredTask added = added(NOW);
        assertThat(this.store.cancel(added.taskId())).isNotNull();
        assertThat(status(added.taskId())).isEqualTo(TaskStatus.CANCELLED);
        assertThat(this.store.claimDue(List.of(added.taskId()), NOW, NOW + LEASE)).isEmpty();
        assertThat(this.store.cancel(added.taskId())).as("cancelled twice").isNull();
        assertThat(this.store.cancel(added.taskId() + 1)).as("an unknown id").isNull();
    }

    @Test
    void theReloadPagesThroughDueTasksInTimeAndIdOrder() {
        StoredTask a = added(NOW);
        StoredTask b = added(NOW);
        StoredTask c = added(NOW + 10);
        added(NOW + 1000);
        StoredTask claimedOne = claimed(added(NOW - 5));
        List<StoredTask> first = this.store.findDue(NOW + 10, Long.MIN_VALUE, Long.MIN_VALUE, 2);
        assertThat(first).extracting(StoredTask::taskId).as("due ones, running ones included")
            .containsExactly(claimedOne.taskId(), Math.min(a.taskId(), b.taskId()));
        StoredTask last = first.get(1);
        List<StoredTask> second = this.store.findDue(NOW + 10, last.executeTime(), last.taskId(), 10);
        assertThat(second).extracting(StoredTask::taskId).containsExactly(Math.max(a.taskId(), b.taskId()),
                c.taskId());
    }

    @Test
    void theCountsOfLiveTasksIncludeRunningOnesWithTheEarliestTime() {
        added(NOW + 50);
        claimed(added(NOW - 50));
        assertThat(this.store.countLiveByQueue()).containsExactly(Map.entry(QUEUE, new TaskStore.LiveTasks(2, NOW - 50)));
    }

    @Test
    void theStoreKnowsItsOwnIdsOfAQueueWhateverTheirStatus() {
        StoredTask live = added(NOW);
        StoredTask done = claimed(added(NOW));
        this.store.finish(done, TaskStatus.EXECUTED, null);
        long unknown = Math.max(live.taskId(), done.taskId()) + 1_000_000;
        assertThat(this.store.findKnown(QUEUE, List.of(live.taskId(), done.taskId(), unknown)))
            .containsExactlyInAnyOrder(live.taskId(), done.taskId());
        assertThat(this.store.findKnown(new QueueId(QUEUE.taskType() + 1, 0), List.of(live.taskId()))).isEmpty();
    }

    @Test
    void thePurgeDeletesOnlyOldLogsOfTheStatusAskedFor() {
        StoredTask done = claimed(added(NOW));
        this.store.finish(done, TaskStatus.EXECUTED, null);
        StoredTask live = added(NOW);
        long later = this.store.currentTimeMillis() + 60_000;
        assertThat(this.store.purgeFinished(TaskStatus.CANCELLED, later, 10)).isZero();
        assertThat(this.store.purgeFinished(TaskStatus.EXECUTED, later, 10)).isOne();
        assertThat(this.store.findDetails(done.taskId())).isNull();
        assertThat(this.store.findDetails(live.taskId())).as("a live task's log").isNotNull();
    }

    @Test
    void theStoreHasAnIdOfItsOwn() {
        assertThat(this.store.storeId()).isNotBlank().isEqualTo(this.store.storeId());
    }

}
