package io.github.delaytask.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The clock of due times: this instance's clock, put right by how far it is from the server that decides when a task
 * is due. With Redis that is the Redis server ({@code TIME} in the claim script); without it, the database, whose
 * claim compares execute times with the time this clock gives. Delays, back-offs, leases and wake-ups computed here
 * must be on that server's clock: on an instance whose clock is behind, a task added with a delay of a minute would
 * otherwise be due at once, and every retry's back-off would be spent before it began. Public for wiring.
 * <p>
 * The server's time is read once {@link #start() started} and then every {@code resync}, from a thread of its own,
 * so that this clock is behind the server's by its round trip at most and never ahead; reading the clock never waits
 * for the server. Between two readings it runs on the monotonic clock ({@link System#nanoTime()}), not on this
 * instance's: a step of the instance's clock (an NTP correction, a virtual machine resumed) moves no due time
 * computed here. Until the server first answers, this instance's clock applies; while it cannot be reached, the last
 * reading goes on.
 */
public final class ServerClock extends Clock implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(ServerClock.class);

    /** An offset this large is worth a warning: NTP keeps clocks far closer. */
    static final long WARN_MILLIS = 1000;

    /** A round trip this quick reads the server's time well enough; a slower one is read again. */
    private static final long QUICK_ROUND_TRIP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** Reads of the server's time at most per measure. */
    private static final int SAMPLES = 3;

    /** How long {@link #start()} waits for the first offset, so that the application's first adds have it. */
    private static final long FIRST_ANSWER_MILLIS = 1000;

    private final Clock local;

    private final LongSupplier serverMillis;

    /** The server, for messages: "the Redis server", "the database". */
    private final String server;

    private final LongSupplier nanos;

    private final long resyncMillis;

    private final CountDownLatch firstAnswer = new CountDownLatch(1);

    /** Released to have the server's time read ahead of its turn. */
    private final Semaphore readNow = new Semaphore(0);

    /** The server's time as last read, and the monotonic clock's then; null until it first answers. */
    private volatile @Nullable Reading reading;

    private volatile long offsetMillis;

    /** The offset last warned of, so that an instance far off warns once, and again only when it changes. */
    private long warnedMillis;

    private @Nullable Thread sampler;

    /**
     * @param serverMillis reads the server's time, epoch ms; throws when the server does not answer
     * @param server the server, for messages: "the Redis server", "the database"
     * @param local this instance's clock
     * @param resync how often the offset is measured again
     */
    public ServerClock(LongSupplier serverMillis, String server, Clock local, Duration resync) {
        this(serverMillis, server, local, System::nanoTime, resync);
    }

    ServerClock(LongSupplier serverMillis, String server, Clock local, LongSupplier nanos, Duration resync) {
        this.local = local;
        this.serverMillis = serverMillis;
        this.server = server;
        this.nanos = nanos;
        this.resyncMillis = resync.toMillis();
    }

    @Override
    public long millis() {
        Reading last = this.reading;
        if (last == null) {
            return this.local.millis();
        }
        // rounded down: never ahead of the server
        long millis = last.serverMillis() + (this.nanos.getAsLong() - last.nanos()) / 1_000_000;
        // the two clocks parted since the reading: this host's was stepped, or the monotonic one stood still while
        // the host slept (a suspended virtual machine); which one is right, the server's time tells at once
        if (Math.abs(this.local.millis() + this.offsetMillis - millis) >= WARN_MILLIS
                && this.readNow.availablePermits() == 0) {
            this.readNow.release();
        }
        return millis;
    }

    /** Whether a reading of the server's time is asked for ahead of its turn, the clocks having parted. */
    boolean readingAsked() {
        return this.readNow.availablePermits() > 0;
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
        return new Zoned(this, zone);
    }

    /** How far the server's clock was ahead of this instance's, in ms, when last read. */
    public long offsetMillis() {
        return this.offsetMillis;
    }

    /**
     * Read the server's time against the end of a call's round trip, taking the quickest
     * of a few calls when one is slow (a pause of this thread, a busy server).
     */
    void sample() {
        long best = Long.MAX_VALUE;
        Reading read = null;
        long offset = 0;
        for (int i = 0; i < SAMPLES && best > QUICK_ROUND_TRIP_NANOS; i++) {
            long sent = this.nanos.getAsLong();
            long server;
            try {
                server = this.serverMillis.getAsLong();
            }
            catch (RuntimeException ex) {
                if (read == null) {
                    throw ex;
                }
                // a slow answer is better than none
                break;
            }
            long answered = this.nanos.getAsLong();
            if (answered - sent < best) {
                best = answered - sent;
                // the server read its clock somewhere within the round trip; taken as at its end (and a millisecond
                // more for the rounding of both clocks), this clock is never ahead of the server's, only behind by the
                // round trip at most. A dispatcher then never looks for a task before the server holds it due: a look
                // a moment early finds nothing, and at a paused queue, whose due work a look moves aside, the next look
                // is an idle poll interval away.
                read = new Reading(server - 1, answered);
                offset = server - 1 - this.local.millis();
            }
        }
        this.reading = read;
        this.offsetMillis = offset;
        if (Math.abs(offset - this.warnedMillis) >= WARN_MILLIS) {
            this.warnedMillis = offset;
            logger.warn("This instance's clock is " + Math.abs(offset) + " ms " + ((offset > 0) ? "behind" : "ahead of")
                    + " " + this.server + "'s; delays and back-offs are computed on " + this.server + "'s clock, "
                    + "which decides when tasks are due. Check the time synchronisation (NTP) of this host");
        }
    }

    @Override
    public synchronized void start() {
        if (this.sampler != null) {
            return;
        }
        Thread thread = new Thread(this::sampleUntilStopped, "delay-task-server-clock");
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
            boolean answered = false;
            try {
                sample();
                this.firstAnswer.countDown();
                told = false;
                answered = true;
            }
            catch (RuntimeException ex) {
                if (!told) {
                    told = true;
                    logger.debug("Could not read " + this.server + "'s clock; its last reading goes on ("
                            + ((this.reading != null) ? this.offsetMillis + " ms ahead of this instance"
                                    : "none yet: this instance's clock applies") + ")", ex);
                }
            }
            this.readNow.drainPermits();
            try {
                if (answered) {
                    // at its turn, or at once when the clocks part
                    this.readNow.tryAcquire(this.resyncMillis, TimeUnit.MILLISECONDS);
                }
                else {
                    // until the server answers, again soon, and no sooner however often the clocks are found apart
                    Thread.sleep(FIRST_ANSWER_MILLIS);
                }
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

    /** The server's time, and the monotonic clock's reading at that moment. */
    private record Reading(long serverMillis, long nanos) {
    }

    /** This clock in another zone: the zone changes no instant. */
    private static final class Zoned extends Clock {

        private final ServerClock clock;

        private final ZoneId zone;

        Zoned(ServerClock clock, ZoneId zone) {
            this.clock = clock;
            this.zone = zone;
        }

        @Override
        public long millis() {
            return this.clock.millis();
        }

        @Override
        public Instant instant() {
            return this.clock.instant();
        }

        @Override
        public ZoneId getZone() {
            return this.zone;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return new Zoned(this.clock, zone);
        }

    }

}
