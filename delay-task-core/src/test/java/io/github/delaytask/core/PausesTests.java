package io.github.delaytask.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an instance without Redis knows of the pauses kept in the database: a read concerns every queue, not only those
 * of the claim that made it.
 */
class PausesTests {

    private static final QueueId ORDERS = new QueueId(1, 0);

    private static final QueueId MAILS = new QueueId(2, 0);

    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);

    /** The table of the database: the paused queues, which the test changes as another instance would. */
    private final Set<QueueId> table = ConcurrentHashMap.newKeySet();

    private final Pauses pauses = new Pauses(new TablePauses(), new DueSignals(this.clock, new ConsumedQueues(), null),
            this.clock);

    @Test
    void aPauseMadeElsewhereIsKnownAfterAReadMadeForAnotherQueuesClaim() {
        this.table.add(MAILS);
        this.pauses.reread(List.of(ORDERS), 0);
        assertThat(this.pauses.knownPaused(MAILS)).as("paused elsewhere, though not claimed").isTrue();
        assertThat(this.pauses.knownPaused(ORDERS)).isFalse();
    }

    @Test
    void aResumeMadeElsewhereIsKnownAfterAReadMadeForAnotherQueuesClaim() {
        this.table.add(MAILS);
        this.pauses.reread(List.of(MAILS), 0);
        assertThat(this.pauses.knownPaused(MAILS)).isTrue();
        this.table.remove(MAILS);
        this.pauses.reread(List.of(ORDERS), 0);
        assertThat(this.pauses.knownPaused(MAILS)).as("resumed elsewhere, though not claimed").isFalse();
    }

    @Test
    void aReadWithinItsIntervalIsNotMadeAgain() {
        this.pauses.reread(List.of(ORDERS), 60_000);
        this.table.add(ORDERS);
        this.pauses.reread(List.of(ORDERS), 60_000);
        assertThat(this.pauses.knownPaused(ORDERS)).as("the first read holds for a minute").isFalse();
    }

    @Test
    void aPauseMadeHereIsKnownAtOnceWhateverTheNextReadSays() {
        this.pauses.pause(ORDERS);
        assertThat(this.pauses.knownPaused(ORDERS)).isTrue();
        this.pauses.reread(List.of(ORDERS), 0);
        assertThat(this.pauses.knownPaused(ORDERS)).isTrue();
    }

    @Test
    void aReadThatFailsKeepsWhatIsKnown() {
        Pauses failing = new Pauses(new TablePauses() {

            @Override
            public Set<QueueId> pausedQueues() {
                throw new IllegalStateException("database down");
            }

        }, new DueSignals(this.clock, new ConsumedQueues(), null), this.clock);
        failing.pause(ORDERS);
        failing.reread(List.of(ORDERS), 0);
        assertThat(failing.knownPaused(ORDERS)).isTrue();
    }

    private class TablePauses implements QueuePauses {

        @Override
        public boolean pause(QueueId queue) {
            return PausesTests.this.table.add(queue);
        }

        @Override
        public boolean resume(QueueId queue) {
            return PausesTests.this.table.remove(queue);
        }

        @Override
        public boolean paused(QueueId queue) {
            return PausesTests.this.table.contains(queue);
        }

        @Override
        public Set<QueueId> pausedQueues() {
            return Set.copyOf(PausesTests.this.table);
        }

    }

}
