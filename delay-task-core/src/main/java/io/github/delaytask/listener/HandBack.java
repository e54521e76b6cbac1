package io.github.delaytask.listener;

import java.util.List;

import io.github.delaytask.core.Outcomes;
import io.github.delaytask.store.StoredTask;

/**
 * Hands claimed tasks whose handlers never started back: in the database at once, which is what lets a claim take
 * them again, their attempt not counted; in Redis when it answers, so that a Redis that stalls holds up neither a
 * stop nor the handler thread that gave them back. Until Redis hears of it, a task waits in flight there, and is
 * handed out when its lease runs out.
 */
final class HandBack {

    private final Outcomes outcomes;

    private final RedisBookkeeping redis;

    HandBack(Outcomes outcomes, RedisBookkeeping redis) {
        this.outcomes = outcomes;
        this.redis = redis;
    }

    void tasks(List<StoredTask> unstarted) {
        List<StoredTask> back = this.outcomes.unclaimAll(unstarted);
        if (!back.isEmpty()) {
            this.redis.submit("hand back " + back.size() + " unstarted task(s)", () -> this.outcomes.putBack(back));
        }
    }

}
