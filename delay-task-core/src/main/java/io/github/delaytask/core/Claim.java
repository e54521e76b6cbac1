package io.github.delaytask.core;

import java.util.List;

/**
 * What a claim took from a queue. Public for wiring.
 * @param redisTime the Redis server's time when the claim ran, in epoch ms; -1 when the queue held nothing and the
 * claim was not asked for the time
 * @param nextDueInMillis ms until the queue next needs a look: its next task is due or a lease of one in flight runs
 * out; -1 when it holds neither
 * @param loaded whether Redis held the queue's loaded marker; {@code false} when Redis lost all its data, or before the
 * first recovery since Redis started empty, and the queue may then miss tasks the database holds
 * @param paused whether the queue is paused, so that nothing was claimed
 * @param redelivered how many ids whose lease ran out the claim made due again: their consumer died or stalled
 * @param taskIds the claimed tasks, now in flight under a lease
 */
public record Claim(long redisTime, long nextDueInMillis, boolean loaded, boolean paused, int redelivered,
        List<Long> taskIds) {
}
