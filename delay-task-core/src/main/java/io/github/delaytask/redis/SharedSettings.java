package io.github.delaytask.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The settings every instance of one key prefix must share, checked against those the running instances recorded in
 * Redis: instances that disagree make tasks late or do work twice (a feed's horizon that one instance's window puts
 * beyond another's, wake-ups not sent for tasks another instance looks for only rarely). An
 * instance whose settings differ refuses to start, naming each setting, unless told to start all the same. Public
 * for wiring.
 * <p>
 * The running instances renew their hold of the record every {@value #RENEW_MILLIS} ms. The record is forgotten when
 * the last holder stops, or {@value #KEEP_MILLIS} ms after it died, so that a setting can change once every instance
 * with the old value is gone. A Redis out of
 * reach at start-up delays the check rather than the start: it is made at the first renewal Redis answers, and a
 * difference found then is logged as an error.
 */
public final class SharedSettings implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(SharedSettings.class);

    static final long RENEW_MILLIS = 5000;

    static final long KEEP_MILLIS = 3 * RENEW_MILLIS;

    /** The longest {@link #start()} waits for the check; Redis not answering by then delays it to the renewals. */
    static final long START_CHECK_MILLIS = 2000;

    /** The longest {@link #stop()} waits to give up this instance's hold. */
    static final long RELEASE_WAIT_MILLIS = 500;

    /** The property that lets an instance start although its settings differ. */
    static final String REFUSE_PROPERTY = "delay-task.refuse-conflicting-settings";

    private final RedisScript<List<String>> agreeScript = Scripts.load("agree-settings", Scripts.STRING_LIST);

    private final RedisScript<Long> releaseScript = Scripts.load("release-settings", Long.class);

    private final String instanceId = UUID.randomUUID().toString();

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final Map<String, String> settings;

    private final boolean refuse;

    private @Nullable ScheduledExecutorService renewals;

    /** Whether the difference found last was logged; renewals log a difference once, until it goes. */
    private volatile boolean reported;

    /**
     * @param settings each setting's property name and value, as every instance must have it
     * @param refuse whether an instance whose settings differ refuses to start
     */
    public SharedSettings(StringRedisTemplate redis, RedisKeys keys, Map<String, String> settings, boolean refuse) {
        this.redis = redis;
        this.keys = keys;
        this.settings = new LinkedHashMap<>(settings);
        this.refuse = refuse;
    }

    /**
     * Record this instance's settings unless those recorded differ.
     * @return the settings whose recorded value differs from this instance's, none if they agree
     */
    public List<Difference> agree() {
        List<String> args = new ArrayList<>();
        args.add(this.instanceId);
        args.add(Long.toString(KEEP_MILLIS));
        this.settings.forEach((name, value) -> {
            args.add(name);
            args.add(value);
        });
        List<String> recorded = this.redis.execute(this.agreeScript,
                List.of(this.keys.settings(), this.keys.settingsHolders()), args.toArray());
        List<Difference> differences = new ArrayList<>();
        if (recorded != null) {
            for (int i = 0; i + 1 < recorded.size(); i += 2) {
                String name = recorded.get(i);
                differences.add(new Difference(name, this.settings.get(name), recorded.get(i + 1)));
            }
        }
        return differences;
    }

    @Override
    public synchronized void start() {
        if (this.renewals != null) {
            return;
        }
        ScheduledExecutorService executor = Executors
            .newSingleThreadScheduledExecutor(daemon(new CustomizableThreadFactory("delay-task-settings-")));
        List<Difference> differences = List.of();
        // on the renewals' thread, for a while at most: a Redis that stalls delays the check, not the start
        Future<List<Difference>> check = executor.submit(this::agree);
        try {
            differences = check.get(START_CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (ExecutionException | TimeoutException ex) {
            logger.warn("Could not check this instance's delay-task settings against the other instances'; checking "
                    + "again every " + RENEW_MILLIS + " ms", (ex instanceof ExecutionException) ? ex.getCause() : ex);
        }
        if (!differences.isEmpty()) {
            if (this.refuse) {
                executor.shutdownNow();
                throw new IllegalStateException(describe(differences));
            }
            this.reported = true;
            logger.error(describe(differences) + " Starting all the same, as " + REFUSE_PROPERTY + " is false.");
        }
        executor.scheduleWithFixedDelay(this::renew, RENEW_MILLIS, RENEW_MILLIS, TimeUnit.MILLISECONDS);
        this.renewals = executor;
    }

    private static CustomizableThreadFactory daemon(CustomizableThreadFactory threads) {
        threads.setDaemon(true);
        return threads;
    }

    private void renew() {
        try {
            List<Difference> differences = agree();
            if (differences.isEmpty()) {
                this.reported = false;
            }
            else if (!this.reported) {
                this.reported = true;
                // a Redis that lost the record, then an instance with other settings started first
                logger.error(describe(differences));
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not renew the record of the delay-task settings", ex);
        }
    }

    private String describe(List<Difference> differences) {
        StringBuilder message = new StringBuilder("The delay-task settings of this instance differ from those of the "
                + "other instances running with the Redis keys '" + this.keys.prefix() + "':");
        for (Difference difference : differences) {
            message.append(' ')
                .append(difference.name())
                .append(" is ")
                .append(difference.here())
                .append(" here but ")
                .append(difference.elsewhere())
                .append(" there;");
        }
        message.setLength(message.length() - 1);
        message.append(". These settings must be the same on every instance, or tasks run late. To change one, stop "
                + "the instances with the old value first (one that died holds the record " + KEEP_MILLIS / 1000
                + " s more), or, for a rolling change, set " + REFUSE_PROPERTY + "=false on the new instances "
                + "until the old ones are gone.");
        return message.toString();
    }

    /**
     * Stop renewing, and give up this instance's hold: the last instance to stop lets the settings change. Waits
     * {@value #RELEASE_WAIT_MILLIS} ms at most, as a Redis that stalls would hold up the stop for its command
     * timeout; a hold not given up lapses.
     */
    @Override
    public synchronized void stop() {
        ScheduledExecutorService executor = this.renewals;
        this.renewals = null;
        if (executor != null) {
            // on the renewals' thread, after a renewal under way
            Future<?> release = executor.submit(this::release);
            executor.shutdown();
            try {
                release.get(RELEASE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (ExecutionException | TimeoutException ex) {
                logger.debug("Could not give up the hold of the recorded delay-task settings; it lapses in "
                        + KEEP_MILLIS + " ms", ex);
            }
            executor.shutdownNow();
        }
    }

    private void release() {
        this.redis.execute(this.releaseScript, List.of(this.keys.settings(), this.keys.settingsHolders()),
                this.instanceId);
    }

    @Override
    public synchronized boolean isRunning() {
        return this.renewals != null;
    }

    /** Before every other part of the starter: an instance that refuses to start has done nothing yet. */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 3;
    }

    /**
     * A setting whose value differs between this instance and the running ones.
     * @param name its property
     * @param here its value on this instance
     * @param elsewhere its value on the running instances
     */
    public record Difference(String name, @Nullable String here, String elsewhere) {
    }

}
