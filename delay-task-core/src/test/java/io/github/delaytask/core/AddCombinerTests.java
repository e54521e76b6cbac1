package io.github.delaytask.core;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.github.delaytask.store.NewTask;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The grouping of {@link AddCombiner}, which the database tests cannot force: a store that the test holds up, so
 * that adds queue behind it. The store keeps rows in a map and refuses an existing id, all or none per call, as a
 * transaction would; the integration tests run the combiner on the real databases.
 */
class AddCombinerTests {

    private final Map<Long, StoredTask> table = new ConcurrentHashMap<>();

    private final List<List<Long>> groups = new CopyOnWriteArrayList<>();

    private final List<Long> enqueued = new CopyOnWriteArrayList<>();

    /** The thread each task's wait for Redis ran on, by id. */
    private final Map<Long, Thread> waitedForRedisOn = new ConcurrentHashMap<>();

    private final AtomicLong nextId = new AtomicLong(1000);

    private final CountDownLatch firstStoreMayFinish = new CountDownLatch(1);

    private volatile boolean holdFirstStore;

    private volatile Throwable failGroupsAfterTheFirst;

    private final ExecutorService callers = Executors.newCachedThreadPool();

    private final AtomicInteger enqueueFailures = new AtomicInteger();

    private volatile boolean failEnqueue;

    private final AddCombiner combiner = new AddCombiner(this::storeAll, this::storeOne, this::enqueue,
            this.enqueueFailures::incrementAndGet);

    @AfterEach
    void stopCallers() {
        this.firstStoreMayFinish.countDown();
        this.callers.shutdownNow();
    }

    @Test
    void aLoneAddIsStoredAloneAndReachesRedisBeforeItsCallerReturns() {
        NewTask task = task(null);
        StoredTask row = this.combiner.add(task);
        assertThat(row.executeTime()).isEqualTo(task.executeTime());
        assertThat(this.groups).containsExactly(List.of(row.taskId()));
        assertThat(this.table).containsKey(row.taskId());
        assertThat(this.enqueued).containsExactly(row.taskId());
    }

    @Test
    void addsQueuedBehindAStoreAreStoredTogetherInTheNextGroup() throws Exception {
        this.holdFirstStore = true;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<NewTask> tasks = List.of(task(null), task(null), task(null), task(null), task(null));
        List<Future<StoredTask>> queued = addConcurrently(tasks);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 5);
        this.firstStoreMayFinish.countDown();
        List<Long> ids = new ArrayList<>();
        ids.add(first.get(5, TimeUnit.SECONDS).taskId());
        for (int i = 0; i < queued.size(); i++) {
            StoredTask row = queued.get(i).get(5, TimeUnit.SECONDS);
            assertThat(row.executeTime()).as("the row of the caller's own task").isEqualTo(tasks.get(i).executeTime());
            ids.add(row.taskId());
        }
        assertThat(this.groups).hasSize(2);
        assertThat(this.groups.get(1)).hasSize(5).containsExactlyInAnyOrderElementsOf(ids.subList(1, 6));
        assertThat(this.table.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(this.enqueued).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void eachCallerOfAGroupWaitsForRedisOnItsOwnThreadSoThatNoneWaitsForAnothersTask() throws Exception {
        this.holdFirstStore = true;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        Map<Long, Thread> callerOf = new ConcurrentHashMap<>();
        List<Future<StoredTask>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(this.callers.submit(() -> {
                StoredTask row = this.combiner.add(task(null));
                callerOf.put(row.taskId(), Thread.currentThread());
                return row;
            }));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 3);
        this.firstStoreMayFinish.countDown();
        first.get(5, TimeUnit.SECONDS);
        for (Future<StoredTask> add : queued) {
            long id = add.get(5, TimeUnit.SECONDS).taskId();
            assertThat(this.waitedForRedisOn.get(id)).as("the thread task %s waited for Redis on", id)
                .isSameAs(callerOf.get(id));
        }
    }

    @Test
    void anExistingIdInAGroupFailsOnlyTheCallerWhoGaveItAndTheOthersAreStored() throws Exception {
        this.table.put(7L, row(7L, 0));
        this.holdFirstStore = true;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<NewTask> tasks = List.of(task(null), task(7L), task(null), task(null));
        List<Future<StoredTask>> queued = addConcurrently(tasks);
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 4);
        this.firstStoreMayFinish.countDown();
        first.get(5, TimeUnit.SECONDS);
        assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> queued.get(1).get(5, TimeUnit.SECONDS))
            .withCauseInstanceOf(DuplicateKeyException.class)
            .withMessageContaining("Task 7 exists");
        for (int i : new int[] { 0, 2, 3 }) {
            StoredTask row = queued.get(i).get(5, TimeUnit.SECONDS);
            assertThat(row.executeTime()).isEqualTo(tasks.get(i).executeTime());
            assertThat(this.table).containsKey(row.taskId());
        }
        assertThat(this.table).hasSize(5);
        assertThat(this.enqueued).hasSize(4).doesNotContain(7L);
    }

    @Test
    void aGroupThatCannotBeStoredFailsEachOfItsCallersAndNoneHangs() throws Exception {
        groupFailsEachCallerWith(new DataAccessResourceFailureException("database unreachable"));
    }

    @Test
    void aStoreThatThrowsACheckedExceptionFailsEachCallerOfTheGroupAndNoneHangs() throws Exception {
        // a store written in another JVM language may throw what Java would call checked
        groupFailsEachCallerWith(new SQLException("connection reset"));
    }

    private void groupFailsEachCallerWith(Throwable failure) throws Exception {
        this.holdFirstStore = true;
        this.failGroupsAfterTheFirst = failure;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<Future<StoredTask>> queued = addConcurrently(List.of(task(null), task(null), task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 3);
        this.firstStoreMayFinish.countDown();
        first.get(5, TimeUnit.SECONDS);
        for (Future<StoredTask> add : queued) {
            assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> add.get(5, TimeUnit.SECONDS))
                .satisfies((ex) -> assertThat(ex).hasRootCauseInstanceOf(failure.getClass()));
        }
        assertThat(this.table).hasSize(1);
        assertThat(this.enqueued).hasSize(1);
    }

    @Test
    void anAddWhoseHandOffFailsIsStoredReturnsItsRowAndHasTheFeedToldSo() {
        this.failEnqueue = true;
        StoredTask row = this.combiner.add(task(null));
        assertThat(this.table).containsKey(row.taskId());
        assertThat(this.enqueued).isEmpty();
        assertThat(this.enqueueFailures).hasValue(1);
    }

    @Test
    void aCallerWithoutContentionStillGetsItsOwnErrorDirectly() {
        this.table.put(7L, row(7L, 0));
        assertThatExceptionOfType(DuplicateKeyException.class).isThrownBy(() -> this.combiner.add(task(7L)));
        assertThat(this.enqueued).isEmpty();
    }

    private List<Future<StoredTask>> addConcurrently(List<NewTask> tasks) {
        List<Future<StoredTask>> adds = new ArrayList<>();
        for (NewTask task : tasks) {
            adds.add(this.callers.submit(() -> this.combiner.add(task)));
        }
        return adds;
    }

    private List<StoredTask> storeAll(List<NewTask> tasks) {
        List<StoredTask> rows = tasks.stream()
            .map((task) -> row((task.taskId() != null) ? task.taskId() : this.nextId.incrementAndGet(),
                    task.executeTime()))
            .toList();
        boolean first = this.groups.isEmpty();
        this.groups.add(rows.stream().map(StoredTask::taskId).toList());
        if (first && this.holdFirstStore) {
            try {
                this.firstStoreMayFinish.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        if (!first && this.failGroupsAfterTheFirst != null) {
            throwUnchecked(this.failGroupsAfterTheFirst);
        }
        synchronized (this.table) {
            for (StoredTask row : rows) {
                if (this.table.containsKey(row.taskId())) {
                    throw new DuplicateKeyException("Task " + row.taskId() + " exists");
                }
            }
            rows.forEach((row) -> this.table.put(row.taskId(), row));
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable failure) throws E {
        throw (E) failure;
    }

    private StoredTask storeOne(NewTask task) {
        return storeAll(List.of(task)).get(0);
    }

    private Consumer<StoredTask> enqueue(List<StoredTask> rows) {
        if (this.failEnqueue) {
            throw new IllegalStateException("hand-off failed");
        }
        rows.forEach((row) -> this.enqueued.add(row.taskId()));
        return (row) -> this.waitedForRedisOn.put(row.taskId(), Thread.currentThread());
    }

    private final AtomicLong nextExecuteTime = new AtomicLong();

    /** A task told apart from every other by its execute time, so that each caller can check it got its own row. */
    private NewTask task(Long id) {
        return new NewTask(id, 1, 0, this.nextExecuteTime.incrementAndGet(), null, null);
    }

    private static StoredTask row(long id, long executeTime) {
        return new StoredTask(id, 1, 0, executeTime, null, 1, 0, null);
    }

}
