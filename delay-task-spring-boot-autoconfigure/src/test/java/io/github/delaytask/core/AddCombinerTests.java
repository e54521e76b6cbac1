package io.github.delaytask.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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

    private final AtomicLong nextId = new AtomicLong(1000);

    private final CountDownLatch firstStoreMayFinish = new CountDownLatch(1);

    private volatile boolean holdFirstStore;

    private volatile RuntimeException failGroupsAfterTheFirst;

    private final ExecutorService callers = Executors.newCachedThreadPool();

    private final AddCombiner combiner = new AddCombiner(this::storeAll, this::storeOne, this::enqueue);

    @AfterEach
    void stopCallers() {
        this.firstStoreMayFinish.countDown();
        this.callers.shutdownNow();
    }

    @Test
    void aLoneAddIsStoredAloneAndReachesRedisBeforeItsCallerReturns() {
        StoredTask row = this.combiner.add(task(null));
        assertThat(this.groups).containsExactly(List.of(row.taskId()));
        assertThat(this.table).containsKey(row.taskId());
        assertThat(this.enqueued).containsExactly(row.taskId());
    }

    @Test
    void addsQueuedBehindAStoreAreStoredTogetherInTheNextGroup() throws Exception {
        this.holdFirstStore = true;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<Future<StoredTask>> queued = addConcurrently(task(null), task(null), task(null), task(null), task(null));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 5);
        this.firstStoreMayFinish.countDown();
        List<Long> ids = new ArrayList<>();
        ids.add(first.get(5, TimeUnit.SECONDS).taskId());
        for (Future<StoredTask> add : queued) {
            ids.add(add.get(5, TimeUnit.SECONDS).taskId());
        }
        assertThat(this.groups).hasSize(2);
        assertThat(this.groups.get(1)).hasSize(5).containsExactlyInAnyOrderElementsOf(ids.subList(1, 6));
        assertThat(this.table.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(this.enqueued).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void anExistingIdInAGroupFailsOnlyTheCallerWhoGaveItAndTheOthersAreStored() throws Exception {
        this.table.put(7L, row(7L));
        this.holdFirstStore = true;
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<Future<StoredTask>> queued = addConcurrently(task(null), task(7L), task(null), task(null));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 4);
        this.firstStoreMayFinish.countDown();
        first.get(5, TimeUnit.SECONDS);
        int failed = 0;
        for (Future<StoredTask> add : queued) {
            try {
                assertThat(this.table).containsKey(add.get(5, TimeUnit.SECONDS).taskId());
            }
            catch (java.util.concurrent.ExecutionException ex) {
                assertThat(ex.getCause()).isInstanceOf(DuplicateKeyException.class).hasMessageContaining("7");
                failed++;
            }
        }
        assertThat(failed).isOne();
        assertThat(this.table).hasSize(5);
        assertThat(this.enqueued).hasSize(4).doesNotContain(7L);
    }

    @Test
    void aGroupThatCannotBeStoredFailsEachOfItsCallersAndNoneHangs() throws Exception {
        this.holdFirstStore = true;
        this.failGroupsAfterTheFirst = new DataAccessResourceFailureException("database unreachable");
        Future<StoredTask> first = this.callers.submit(() -> this.combiner.add(task(null)));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.groups.size() == 1);
        List<Future<StoredTask>> queued = addConcurrently(task(null), task(null), task(null));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.combiner.pendingCount() == 3);
        this.firstStoreMayFinish.countDown();
        first.get(5, TimeUnit.SECONDS);
        for (Future<StoredTask> add : queued) {
            assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
                .isThrownBy(() -> add.get(5, TimeUnit.SECONDS))
                .withCauseInstanceOf(DataAccessResourceFailureException.class);
        }
        assertThat(this.table).hasSize(1);
        assertThat(this.enqueued).hasSize(1);
    }

    @Test
    void aCallerWithoutContentionStillGetsItsOwnErrorDirectly() {
        this.table.put(7L, row(7L));
        assertThatExceptionOfType(DuplicateKeyException.class).isThrownBy(() -> this.combiner.add(task(7L)));
        assertThat(this.enqueued).isEmpty();
    }

    private List<Future<StoredTask>> addConcurrently(NewTask... tasks) {
        List<Future<StoredTask>> adds = new ArrayList<>();
        for (NewTask task : tasks) {
            adds.add(this.callers.submit(() -> this.combiner.add(task)));
        }
        return adds;
    }

    private List<StoredTask> storeAll(List<NewTask> tasks) {
        List<StoredTask> rows = tasks.stream()
            .map((task) -> row((task.taskId() != null) ? task.taskId() : this.nextId.incrementAndGet()))
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
            throw this.failGroupsAfterTheFirst;
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

    private StoredTask storeOne(NewTask task) {
        return storeAll(List.of(task)).get(0);
    }

    private void enqueue(List<StoredTask> rows) {
        rows.forEach((row) -> this.enqueued.add(row.taskId()));
    }

    private static NewTask task(Long id) {
        return new NewTask(id, 1, 0, 0, null, null);
    }

    private static StoredTask row(long id) {
        return new StoredTask(id, 1, 0, 0, null, 1, 0, null);
    }

}
