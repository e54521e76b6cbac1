package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskEvents;
import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Which leases {@link Leases} extends, and what their handlers then have, with no server and the time given by the
 * test; and the timeouts of handlers, on threads of the test.
 */
class LeasesTests {

    private static final long LEASE = Duration.ofSeconds(30).toNanos();

    private final List<List<Long>> renewed = new ArrayList<>();

    private RuntimeException failure;

    private final Leases leases = new Leases((running) -> {
        if (this.failure != null) {
            throw this.failure;
        }
        this.renewed.add(running.stream().map(StoredTask::taskId).toList());
        return running.size();
    }, LEASE, TaskEvents.NONE);

    @Test
    void extendsInOneCallTheLeasesThatRanForAThirdOfOneOrMoreAndNoneYounger() {
        long now = 1_000_000_000L;
        Leases.Lease old = this.leases.started(task(1), now + LEASE / 2);
        Leases.Lease older = this.leases.started(task(2), now + LEASE / 10);
        Leases.Lease young = this.leases.started(task(3), now + LEASE - 1);
        assertThat(this.leases.renewDue(now)).isEqualTo(2);
        assertThat(this.renewed).singleElement().asList().containsExactlyInAnyOrder(1L, 2L);
        assertThat(old.recordBy()).isEqualTo(now + LEASE);
        assertThat(older.recordBy()).isEqualTo(now + LEASE);
        assertThat(young.recordBy()).isEqualTo(now + LEASE - 1);
    }

    @Test
    void aLeaseWhoseHandlerEndedIsNoLongerExtended() {
        long now = 1_000_000_000L;
        Leases.Lease lease = this.leases.started(task(1), now);
        this.leases.ended(lease);
        assertThat(this.leases.renewDue(now)).isZero();
        assertThat(this.renewed).isEmpty();
    }

    @Test
    void aFailedExtensionLeavesTheLeasesAsTheyWereAndTheNextRoundTriesAgain() {
        long now = 1_000_000_000L;
        Leases.Lease lease = this.leases.started(task(1), now + LEASE / 2);
        this.failure = new IllegalStateException("database down");
        this.leases.renewDue(now);
        assertThat(lease.recordBy()).isEqualTo(now + LEASE / 2);
        this.failure = null;
        this.leases.renewDue(now + LEASE / 3);
        assertThat(lease.recordBy()).isEqualTo(now + LEASE / 3 + LEASE);
        assertThat(this.renewed).containsExactly(List.of(1L));
    }

    @Test
    void aHandlerPastItsTimeoutIsInterruptedItsFailureRecordedWithItsStackAndOneThatIgnoresItIsListedStuck()
            throws InterruptedException {
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger ignored = new AtomicInteger();
        Leases timed = new Leases((running) -> running.size(), LEASE, new TaskEvents() {

            @Override
            public void handlerTimedOut(QueueId queue) {
                timeouts.incrementAndGet();
            }

            @Override
            public void handlerIgnoredTimeout(QueueId queue) {
                ignored.incrementAndGet();
            }

        }, Duration.ofMillis(200));
        timed.start();
        CountDownLatch release = new CountDownLatch(1);
        List<StackTraceElement[]> recorded = new CopyOnWriteArrayList<>();
        AtomicInteger interrupts = new AtomicInteger();
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread handler = new Thread(() -> {
            Leases.Lease lease = timed.started(task(7), System.nanoTime() + LEASE, Duration.ofMillis(500),
                    (task, timeout, where) -> recorded.add(where));
            // a handler that ignores interrupts until the test lets it go
            while (release.getCount() > 0) {
                try {
                    release.await();
                }
                catch (InterruptedException ex) {
                    interrupts.incrementAndGet();
                }
            }
            timedOut.set(timed.ended(lease));
        });
        try {
            handler.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> !timed.stuck().isEmpty());
            assertThat(interrupts).hasValue(1);
            assertThat(recorded).singleElement()
                .satisfies((where) -> assertThat(where).extracting(StackTraceElement::getMethodName).contains("await"));
            assertThat(timed.stuck()).singleElement()
                .satisfies((lease) -> assertThat(lease.task().taskId()).isEqualTo(7));
            assertThat(timeouts).hasValue(1);
            assertThat(ignored).hasValue(1);
            release.countDown();
            handler.join(5000);
            assertThat(timedOut).isTrue();
            assertThat(timed.stuck()).isEmpty();
        }
        finally {
            release.countDown();
            timed.stop();
        }
    }

    @Test
    void aHandlerThatEndsBeforeItsTimeoutIsNeitherInterruptedNorRecorded() throws InterruptedException {
        Leases timed = new Leases((running) -> running.size(), LEASE, TaskEvents.NONE, Duration.ofMillis(200));
        timed.start();
        try {
            List<StoredTask> recorded = new CopyOnWriteArrayList<>();
            Leases.Lease lease = timed.started(task(8), System.nanoTime() + LEASE, Duration.ofMillis(200),
                    (task, timeout, where) -> recorded.add(task));
            assertThat(timed.ended(lease)).isFalse();
            // longer than the timeout would have been
            await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(recorded::isEmpty);
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
        finally {
            timed.stop();
        }
    }

    private static StoredTask task(long id) {
        return new StoredTask(id, 1, 0, 0, new byte[0], 2, 1, null);
    }

}
