package io.github.delaytask.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The clock of due times: this instance's clock, put right by how far it is from the Redis server's. Redis decides
 * when a task is due ({@code TIME} in the claim script), so delays, back-offs, leases and wake-ups computed here must
 * be on its clock too: on an instance whose clock is behind, a task added with a delay of a minute would otherwise be
 * due at once, and every retry's back-off would be spent before it began. Public for wiring.
 * <p>
 * The offset is measured once {@link #start() started} and then every {@code resync}, from a thread of its own, with
 * a {@code TIME} call, so that this clock is behind Redis's by its round trip at most and never ahead; reading the
 * clock never waits for Redis. Until the first answer,
 * or while Redis cannot be reached, the last offset known (none at first) applies.
 */
public final class RedisClock extends Clock implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RedisClock.class);

    /** An offset this large is worth a warning: NTP keeps clocks far closer. */
    static final long WARN_MILLIS = 1000;

    /** A round trip this quick measures the offset well enough; a slower one is measured again. */
    private static final long QUICK_ROUND_TRIP_MILLIS = 5;

    /** Calls to {@code TIME} at most per measure. */
    private static final int SAMPLES = 3;

    /** How long {@link #start()} waits for the first offset, so that the application's first adds have it. */
    private static final long FIRST_ANSWER_MILLIS = 1000;

    private final Clock local;

    private final LongSupplier serverMillis;

    private final long resyncMillis;

    private final CountDownLatch firstAnswer = new CountDownLatch(1);

    private volatile long offsetMillis;

    /** The offset last warned of, so that an instance far off warns once, and again only when it changes. */
    private long warnedMillis;

    private @Nullable Thread sampler;

    /**
     * @param local this instance's clock
     * @param resync how often the offset is measured again
     */
    public RedisClock(StringRedisTemplate redis, Clock local, Duration resync) {
        this(() -> serverMillis(redis), local, resync);
    }

    RedisClock(LongSupplier serverMillis, Clock local, Duration resync) {
        this.local = local;
        this.serverMillis = serverMillis;
        this.resyncMillis = resync.toMillis();
    }

    private static long serverMillis(StringRedisTemplate redis) {
        Long time = redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands()
            .time(TimeUnit.MILLISECONDS));
        if (time == null) {
            throw new IllegalStateException("Redis answered TIME with nothing");
        }
        return time;
    }

    @Override
    public long millis() {
        return this.local.millis() + this.offsetMillis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return this.local.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return Clock.offset(this.local.withZone(zone), Duration.ofMillis(this.offsetMillis));
    }

    /** How far Redis's clock is ahead of this instance's, in ms, as last measured. */
    public long offsetMillis() {
        return this.offsetMillis;
    }

    /**
     * Measure the offset: the server's time against the end of a {@code TIME} call's round trip, taking the quickest
     * of a few calls when one is slow (a pause of this thread, a busy server).
     */
    void sample() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < SAMPLES && best > QUICK_ROUND_TRIP_MILLIS; i++) {
            long sent = this.local.millis();
            long server = this.serverMillis.getAsLong();
            long answered = this.local.millis();
            if (answered - sent < best) {
                best = answered - sent;
                // Redis read its clock somewhere within the round trip; taken as at its end (and a millisecond more
                // for the rounding of both clocks), this clock is never ahead of Redis's, only behind by the round
                // trip at most. A dispatcher then never looks for a task before Redis holds it due: a look a moment
                // early finds nothing, and at a paused queue, whose due work a look moves aside, the next look is an
                // idle poll interval away.
                offset = server - answered - 1;
            }
        }
        this.offsetMillis = offset;
        if (Math.abs(offset - this.warnedMillis) >= WARN_MILLIS) {
            this.warnedMillis = offset;
            logger.warn("This instance's clock is " + Math.abs(offset) + " ms " + ((offset > 0) ? "behind" : "ahead of")
                    + " the Redis server's; delays and back-offs are computed on the Redis server's clock, which "
                    + "decides when tasks are due. Check the time synchronisation (NTP) of this host");
        }
    }

    @Override
    public synchronized void start() {
        if (this.sampler != null) {
            return;
        }
        Thread thread = new Thread(this::sampleUntilStopped, "delay-task-redis-clock");
        thread.setDaemon(true);
        this.sampler = thread;
        thread.start();
        try {
            this.firstAnswer.await(FIRST_ANSWER_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void sampleUntilStopped() {
        boolean told = false;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                sample();
                this.firstAnswer.countDown();
                told = false;
            }
            catch (RuntimeException ex) {
                if (!told) {
                    told = true;
                    logger.debug("Could not read the Redis server's clock; the offset last measured ("
                            + this.offsetMillis + " ms) applies", ex);
                }
            }
            try {
                // until Redis first answers, again soon: this clock is off until then
                Thread.sleep((this.firstAnswer.getCount() == 0) ? this.resyncMillis : FIRST_ANSWER_MILLIS);
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    @Override
    public synchronized void stop() {
        Thread thread = this.sampler;
        this.sampler = null;
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return this.sampler != null;
    }

    /** Before every other part of the starter, so that their first times are on the server's clock. */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 2;
    }

}
