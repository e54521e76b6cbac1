package io.github.delaytask.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.fixtures.InMemoryTaskStore;
import io.github.delaytask.store.NewTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What waits for the commit of a transaction without synchronization, over the store's twin: a task is "committed"
 * when the twin holds it.
 */
class CommitWatchTests {

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final AtomicInteger givenUp = new AtomicInteger();

    private final CommitWatch watch = new CommitWatch(this.store, 10, 500, this.givenUp::incrementAndGet);

    private final AtomicInteger handedOver = new AtomicInteger();

    @AfterEach
    void close() {
        this.watch.close();
    }

    private long committed() {
        return this.store.insert(new NewTask(null, 1, 0, 0, null, null)).taskId();
    }

    @Test
    void theWorkRunsOnceARowOfTheTasksIsThereAndTheThreadStopsWhenNothingWaits() {
        long id = committed();
        this.watch.watch(List.of(id, id + 1), this.handedOver::incrementAndGet);
        assertThat(this.watch.looking()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.handedOver.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !this.watch.looking());
        assertThat(this.handedOver).as("run once").hasValue(1);
        assertThat(this.givenUp).hasValue(0);
    }

    @Test
    void tasksNeverCommittedAreGivenUpWithoutTheWorkAndTheFeedIsToldSo() {
        long id = committed();
        this.watch.watch(List.of(id + 1_000), this.handedOver::incrementAndGet);
        await().atMost(Duration.ofSeconds(5)).until(() -> !this.watch.looking());
        assertThat(this.handedOver).hasValue(0);
        // they may commit later, when no one hands them to Redis
        assertThat(this.givenUp).hasValue(1);
    }

    @Test
    void changesMadeBeforeACommitNoOneFollowsTellTheFeedOnceSoonAndOnceAGiveUpTimeAfterTheLastOfThem() {
        // with a give-up time of 500 ms, the soon reminder and the late one come together
        this.watch.remindLater();
        this.watch.remindLater();
        this.watch.remindLater();
        assertThat(this.watch.looking()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> this.givenUp.get() >= 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !this.watch.looking());
        // the first: the soon and late reminders of the first change; the second: the late one of the later changes
        assertThat(this.givenUp).hasValue(2);
    }

    @Test
    void aClosedWatchTakesNothingMore() {
        this.watch.close();
        this.watch.watch(List.of(committed()), this.handedOver::incrementAndGet);
        assertThat(this.watch.looking()).isFalse();
        assertThat(this.handedOver).hasValue(0);
    }

}
