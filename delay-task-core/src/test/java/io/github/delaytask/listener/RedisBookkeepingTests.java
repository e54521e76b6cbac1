package io.github.delaytask.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link RedisBookkeeping} does with pieces Redis fails or cannot keep up with, the pieces being the test's.
 */
class RedisBookkeepingTests {

    private RedisBookkeeping bookkeeping;

    @AfterEach
    void stop() throws InterruptedException {
        this.bookkeeping.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aPieceRedisFailsIsTriedAgainUntilRedisAnswers() {
        this.bookkeeping = new RedisBookkeeping(TimeUnit.SECONDS.toNanos(30));
        AtomicInteger tries = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        this.bookkeeping.submit("forget", () -> {
            if (tries.incrementAndGet() < 3) {
                throw new RedisConnectionFailureException("stalled");
            }
            done.countDown();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> done.getCount() == 0);
        assertThat(tries).hasValue(3);
    }

    @Test
    void aPieceRedisStillFailsAfterALeaseIsGivenUpAndThoseBehindItAreSent() {
        this.bookkeeping = new RedisBookkeeping(TimeUnit.MILLISECONDS.toNanos(200));
        AtomicInteger tries = new AtomicInteger();
        CountDownLatch next = new CountDownLatch(1);
        this.bookkeeping.submit("forget", () -> {
            tries.incrementAndGet();
            throw new RedisConnectionFailureException("down");
        });
        this.bookkeeping.submit("extend", next::countDown);
        await().atMost(Duration.ofSeconds(5)).until(() -> next.getCount() == 0);
        assertThat(tries.get()).as("tries of the piece given up").isBetween(2, 4);
    }

    @Test
    void aLeaseExtensionWaitingIsReplacedByTheNextAndOnlyTheNewestIsSent() {
        this.bookkeeping = new RedisBookkeeping(TimeUnit.SECONDS.toNanos(30));
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        this.bookkeeping.submit("forget", () -> {
            started.countDown();
            try {
                stalled.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
        List<String> sent = new CopyOnWriteArrayList<>();
        for (String extension : List.of("first", "second", "third")) {
            this.bookkeeping.submitLatest("extend", Leases.class, () -> sent.add(extension));
        }
        stalled.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> !sent.isEmpty());
        // and one more after it was sent goes out too
        this.bookkeeping.submitLatest("extend", Leases.class, () -> sent.add("fourth"));
        await().atMost(Duration.ofSeconds(5)).until(() -> sent.size() == 2);
        assertThat(sent).containsExactly("third", "fourth");
    }

    @Test
    void piecesBeyondTheCapacityAreDroppedWhileRedisDoesNotAnswerAndTheOthersAreSentOnceItDoes() {
        this.bookkeeping = new RedisBookkeeping(TimeUnit.SECONDS.toNanos(30));
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger sent = new AtomicInteger();
        this.bookkeeping.submit("forget", () -> {
            started.countDown();
            try {
                stalled.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            sent.incrementAndGet();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
        for (int i = 0; i < RedisBookkeeping.CAPACITY + 5; i++) {
            this.bookkeeping.submit("forget", sent::incrementAndGet);
        }
        assertThat(this.bookkeeping.dropped()).isEqualTo(5);
        stalled.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> sent.get() == 1 + RedisBookkeeping.CAPACITY);
    }

}
