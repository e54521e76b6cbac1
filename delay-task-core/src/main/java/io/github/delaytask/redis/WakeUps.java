package io.github.delaytask.redis;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.core.QueueId;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Wake-ups between instances over Redis pub/sub: an instance that schedules a task due within the idle poll interval
 * says so on the channel of its key prefix, and the dispatchers of the other instances claim from its queue when it
 * is due, so that a task added elsewhere fires on time, and idle queues need a look only now and then. Public for
 * wiring.
 * <p>
 * A wake-up is a hint, never the only way a task is found: one lost (a reconnect, a subscription not yet made, an
 * instance with another idle poll interval) costs at most an idle poll interval, the longest a dispatcher goes
 * without a look at a queue. Lettuce subscribes again by itself after a reconnect.
 */
public class WakeUps implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(WakeUps.class);

    /** Between tries to subscribe while Redis or the database (the key prefix) cannot be reached at start-up. */
    private static final long RETRY_MILLIS = 1000;

    /** The longest {@link #close()} waits for the wake-ups published before it to go out. */
    private static final long FLUSH_MILLIS = 1000;

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final Clock clock;

    private final long horizonMillis;

    /** Tells this instance's own messages apart, which its dispatcher heard of already. */
    private final String senderId = UUID.randomUUID().toString();

    /** The earliest time of each queue published and not sent yet; guards the fields after it. */
    private final Map<QueueId, Long> toSend = new HashMap<>();

    private @Nullable Thread sender;

    private boolean closed;

    /** Whether the sender has a message on its way. */
    private boolean sending;

    private volatile boolean running;

    private @Nullable Subscription subscription;

    /**
     * @param horizon tasks due within this time from their schedule are announced: the idle poll interval, beyond
     * which every dispatcher finds them by itself before they are due
     * @param clock the clock of execute times
     */
    public WakeUps(StringRedisTemplate redis, RedisKeys keys, Duration horizon, Clock clock) {
        this.redis = redis;
        this.keys = keys;
        this.horizonMillis = horizon.toMillis();
        this.clock = clock;
    }

    /**
     * Tell the other instances of the earliest task scheduled here in each queue, for those due within the horizon.
     * Never blocks and never throws: the message goes from a thread of its own, one for whatever was published
     * while the previous one was on its way, so that a Redis gone slow (on a Cluster, the master of the channel's
     * slot failing) holds up no caller, such as the hand-off of new tasks, and what waits is one time per queue. A
     * wake-up that cannot be sent only costs an idle poll interval.
     * @param earliest the earliest execute time, epoch ms, of each queue
     */
    public void publish(Map<QueueId, Long> earliest) {
        long now = this.clock.millis();
        synchronized (this.toSend) {
            if (this.closed) {
                return;
            }
            int before = this.toSend.size();
            boolean added = false;
            for (Map.Entry<QueueId, Long> entry : earliest.entrySet()) {
                if (entry.getValue() - now < this.horizonMillis) {
                    this.toSend.merge(entry.getKey(), entry.getValue(), Math::min);
                    added = true;
                }
            }
            if (!added) {
                return;
            }
            if (this.sender == null) {
                Thread thread = new Thread(this::sendAll, "delay-task-wake-ups-send");
                thread.setDaemon(true);
                this.sender = thread;
                thread.start();
            }
            if (before == 0) {
                this.toSend.notifyAll();
            }
        }
    }

    private void sendAll() {
        while (true) {
            Map<QueueId, Long> batch;
            synchronized (this.toSend) {
                while (this.toSend.isEmpty() && !this.closed) {
                    try {
                        this.toSend.wait();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (this.toSend.isEmpty()) {
                    // closed, and what was published before has gone out
                    return;
                }
                batch = new LinkedHashMap<>(this.toSend);
                this.toSend.clear();
                this.sending = true;
            }
            try {
                send(batch);
            }
            finally {
                synchronized (this.toSend) {
                    this.sending = false;
                    this.toSend.notifyAll();
                }
            }
        }
    }

    /** Wait until what was published has gone out, or the given time has passed. */
    private void flush(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (this.toSend) {
            while ((this.sending || !this.toSend.isEmpty()) && this.sender != null && this.sender.isAlive()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return;
                }
                try {
                    this.toSend.wait(left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void start() {
        this.running = true;
    }

    /**
     * Send what was published before the application's Redis connections close, which happens in the lifecycle's
     * stop, before {@link #close()}: an application that adds tasks and stops at once (a batch job, a deployment)
     * would otherwise leave them to the other instances' idle looks. Waits {@value #FLUSH_MILLIS} ms at most,
     * which only a Redis that stalls takes.
     */
    @Override
    public void stop() {
        flush(FLUSH_MILLIS);
        this.running = false;
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** After the listeners and the jobs, whose hand-backs may publish, and long before Redis's connections. */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 2;
    }

    /** One message for all the queues, so that a Redis gone slow costs one command timeout at most. */
    private void send(Map<QueueId, Long> earliest) {
        StringBuilder message = new StringBuilder(this.senderId);
        earliest.forEach((queue, executeTime) -> message.append(' ')
            .append(queue.taskType())
            .append(' ')
            .append(queue.priority())
            .append(' ')
            .append(executeTime));
        try {
            this.redis.convertAndSend(this.keys.wakeUps(), message.toString());
        }
        catch (Throwable ex) {
            // an Error too: the thread must live on, or no wake-up would be sent again
            logger.debug("Could not send a wake-up for " + earliest.keySet(), ex);
        }
    }

    /**
     * Take no more wake-ups, and stop hearing them. Those published before still go out, as in {@link #stop()}, for
     * users of this class outside an application context.
     */
    public void close() {
        flush(FLUSH_MILLIS);
        synchronized (this.toSend) {
            this.closed = true;
            this.toSend.notifyAll();
        }
        stopListening();
    }

    /** How many queues' wake-ups wait for the sender; for tests. */
    int unsent() {
        synchronized (this.toSend) {
            return this.toSend.size();
        }
    }

    /**
     * Hear the other instances' wake-ups until {@link #stopListening()}. Subscribes on a thread of its own, so that a
     * Redis out of reach delays no start-up; the listener hears when each subscription (the first, and each after a
     * lost connection) is made, as wake-ups sent before it were not heard.
     */
    public synchronized void listen(Listener listener) {
        stopListening();
        Subscription started = new Subscription(listener);
        this.subscription = started;
        Thread thread = new Thread(started::start, "delay-task-wake-ups-subscribe");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stop hearing wake-ups. */
    public synchronized void stopListening() {
        if (this.subscription != null) {
            this.subscription.stop();
            this.subscription = null;
        }
    }

    /** Whether the subscription is made; for tests that must not race it. */
    public synchronized boolean listening() {
        return this.subscription != null && this.subscription.listening();
    }

    /** Hears that a task of a queue was scheduled elsewhere. */
    @FunctionalInterface
    public interface Listener {

        /**
         * @param queue the task's queue
         * @param executeTime when it is due, epoch ms
         */
        void scheduled(QueueId queue, long executeTime);

        /**
         * The subscription is made, the first time or again after a lost connection: wake-ups sent before were not
         * heard, so every queue needs a look. A task scheduled elsewhere after this look is announced to this one.
         */
        default void subscribed() {
        }

    }

    /** One subscription, from {@link #listen} to {@link #stopListening()}. */
    private final class Subscription {

        private final Listener listener;

        private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

        /**
         * Where the container subscribes and tries again after a lost connection: scheduled, so that each try starts
         * afresh, rather than within the failed one, a frame deeper at each try of a long outage.
         */
        private final ScheduledThreadPoolExecutor retries;

        private volatile boolean stopped;

        Subscription(Listener listener) {
            this.listener = listener;
            CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-wake-ups-");
            threads.setDaemon(true);
            // two: a blocking subscription (a driver other than Lettuce) holds one thread while it lasts
            this.retries = new ScheduledThreadPoolExecutor(2, threads);
            this.retries.setRemoveOnCancelPolicy(true);
        }

        void start() {
            this.container.setConnectionFactory(WakeUps.this.redis.getRequiredConnectionFactory());
            // a message only wakes a sleeping dispatcher: heard on the thread that received it, not on a thread of its
            // own each, which a busy cluster would start by the thousand
            this.container.setTaskExecutor(new SyncTaskExecutor());
            this.container.setSubscriptionExecutor(this.retries);
            // tried again every RETRY_MILLIS while Redis does not answer, until stopped
            this.container.setRecoveryBackoff(() -> () -> this.stopped ? BackOffExecution.STOP : RETRY_MILLIS);
            boolean subscribed = false;
            while (!this.stopped) {
                try {
                    if (!subscribed) {
                        // the channel needs the key prefix, which may need the database
                        this.container.addMessageListener(new Received(),
                                new ChannelTopic(WakeUps.this.keys.wakeUps()));
                        this.container.afterPropertiesSet();
                        subscribed = true;
                    }
                    if (!this.stopped) {
                        // while Redis does not answer, the container's start tries again by itself, within this
                        // call, until it is stopped
                        this.container.start();
                    }
                    if (this.stopped) {
                        // a stop that came while the container started
                        end();
                    }
                    return;
                }
                catch (RuntimeException ex) {
                    if (this.container.isRunning()) {
                        // started but not subscribed in time: the container goes on trying by itself
                        logger.debug("Not subscribed to wake-ups yet; the subscription goes on trying", ex);
                        if (this.stopped) {
                            end();
                        }
                        return;
                    }
                    logger.debug("Could not subscribe to wake-ups yet; trying again", ex);
                    try {
                        TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
                    }
                    catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

        /** Messages, and the confirmation of each subscription, which the container tells a listener that is both. */
        private final class Received implements MessageListener, SubscriptionListener {

            @Override
            public void onMessage(Message message, byte @Nullable [] pattern) {
                received(message);
            }

            @Override
            public void onChannelSubscribed(byte[] channel, long count) {
                try {
                    Subscription.this.listener.subscribed();
                }
                catch (RuntimeException ex) {
                    logger.warn("Could not look at the queues after subscribing to wake-ups", ex);
                }
            }

        }

        private void received(Message message) {
            // the sender, then the type, priority and execute time of each queue
            String[] parts = new String(message.getBody(), StandardCharsets.UTF_8).split(" ");
            if (parts.length < 4 || (parts.length - 1) % 3 != 0 || parts[0].equals(WakeUps.this.senderId)) {
                return;
            }
            try {
                for (int i = 1; i < parts.length; i += 3) {
                    this.listener.scheduled(new QueueId(Integer.parseInt(parts[i]), Integer.parseInt(parts[i + 1])),
                            Long.parseLong(parts[i + 2]));
                }
            }
            catch (RuntimeException ex) {
                logger.debug("Ignored a wake-up that is not one: " + String.join(" ", parts), ex);
            }
        }

        boolean listening() {
            return this.container.isListening();
        }

        /**
         * Stop the container at once, whether or not its start has returned: a start that has not (Redis does not
         * answer) ends once the container is stopped, and a stop that waited for it would wait for Redis.
         */
        void stop() {
            this.stopped = true;
            end();
        }

        /** Safe to repeat, as a start that raced a stop may have started the container after it was stopped. */
        private synchronized void end() {
            if (!this.container.isRunning() && this.container.isListening()) {
                try {
                    // subscribed by a start that raced the stop: running again, so that the stop below unsubscribes
                    // (this start may give up waiting for a registration the stop's unsubscribe wrote off)
                    this.container.start();
                }
                catch (RuntimeException ex) {
                    logger.debug("Restarted the wake-up subscription to end it", ex);
                }
            }
            try {
                this.container.stop();
                this.container.destroy();
            }
            catch (Exception ex) {
                logger.debug("Could not end the wake-up subscription cleanly", ex);
            }
            finally {
                this.retries.shutdownNow();
            }
        }

    }

}
