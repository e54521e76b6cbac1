package io.github.delaytask.scheduling;

import java.time.Duration;
import java.util.Set;

import io.github.delaytask.core.QueueId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bookkeeping of {@link RedisLossRecovery}'s runs: one run asked for at a time, and never none for good.
 */
class RedisLossRecoveryTests {

    private static final QueueId QUEUE = new QueueId(1, 0);

    // request() and runDropped() touch neither Redis nor the database
    private final RedisLossRecovery recovery = new RedisLossRecovery(null, null, null, Set::of, Duration.ofMinutes(1));

    @Test
    void onlyTheFirstRequestAsksForARunWhileOneIsPending() {
        assertThat(this.recovery.request(QUEUE, 1)).isTrue();
        assertThat(this.recovery.request(QUEUE, 2)).isFalse();
    }

    /**
     * The jobs stopped between a request and its run: their executor dropped the run. Without this, every later
     * request found a run pending and asked for none, and the instance recovered only by the periodic reload.
     */
    @Test
    void aRequestAfterTheRunWasDroppedAsksForARunAgain() {
        this.recovery.request(QUEUE, 1);

        this.recovery.runDropped();

        assertThat(this.recovery.request(QUEUE, 2)).isTrue();
    }

}
