package io.github.delaytask.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delaytask.core.Claim;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * The Redis side of the queues: tasks due within the preload window, by id. Public for wiring.
 * <p>
 * Per queue a future sorted set (due later), a ready sorted set (due now, oldest first) and an in-flight sorted set
 * (claimed, with a lease). Members are task ids, never task bodies: the database holds the task and decides every state change, so
 * an id left behind in Redis is dropped when it is next claimed. A loaded marker per queue, which every claim reads,
 * tells when Redis lost the queue's data.
 */
public class RedisTaskQueues implements TaskQueues {

    private static final Log logger = LogFactory.getLog(RedisTaskQueues.class);


    /** Bounds the work of one script call, so Redis is never blocked for long. */
    private static final int MOVE_LIMIT = 1000;

    private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
            RedisTaskQueues.class.getClassLoader());

    /** Lettuce's own default command timeout. */
    private static final long DEFAULT_COMMAND_TIMEOUT_MILLIS = 60_000;

    private final StringRedisTemplate redis;

    private final RedisKeys keys;

    private final long commandTimeoutMillis;

    /** Whether Redis is a Cluster, whose masters answer apart. */
    private final boolean cluster;

    /** Whether every claim goes out on Lettuce's one shared connection to one server, whose state it can look at. */
    private final boolean oneConnection;

    /**
     * The longest a claim round waits for a Redis server that does not answer, whatever the command timeout
     * ({@link #setClaimTimeout}).
     */
    private volatile long claimTimeoutMillis = Long.MAX_VALUE;


    /**
     * How long a claim of many queues waits for the slowest servers once the first answered, at the least: twice as
     * long as the first took, if that is longer.
     */
    static final long STRAGGLER_MILLIS = 100;

    /**
     * How long a claim round on a Cluster waits for its servers while none has answered: a round whose queues all
     * live on one master that stalls (often a round of one queue) would otherwise hold up the rounds of every other
     * master's queues for the command timeout. A claim not answered by then is taken up by a later round.
     */
    static final long UNANSWERED_MILLIS = 300;

    /**
     * While a claim leaves due tasks behind for want of room under a queue's in-flight limit, the next look it asks
     * for is this far away at the latest: the end of a run on another instance wakes no one.
     */
    static final long LIMITED_LOOK_MILLIS = 100;

    /** The most tasks of each limited queue in flight at once, across every consumer ({@link #limitInFlight}). */
    private final Map<QueueId, Integer> inFlightLimits = new ConcurrentHashMap<>();

    /** Of each queue with a cluster-wide rate, the most tasks claimed within a period, and the period in ms. */
    private final Map<QueueId, long[]> rates = new ConcurrentHashMap<>();

    private static final long[] NO_RATE = { 0, 0 };

    /** Claims whose server had not answered when the others of their round had, by queue. */
    private final LateClaims lateClaims = new LateClaims(this::releaseOrphans,
            (queue) -> this.inFlightLimits.containsKey(queue) || this.rates.containsKey(queue));

    /**
     * Queues whose claim came late lately, until when (nanos of {@link System#nanoTime()}): their claims are waited
     * for {@link #STRAGGLER_MILLIS} at most, even alone in their round.
     */
    private final Map<QueueId, Long> slowUntil = new ConcurrentHashMap<>();

    private static final long SLOW_FOR_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final RedisScript<List<String>> claimScript = Scripts.load("claim", Scripts.STRING_LIST);

    private final RedisScript<Long> scheduleScript = Scripts.load("schedule", Long.class);

    private final RedisScript<Long> deferScript = Scripts.load("defer", Long.class);

    private final RedisScript<Long> settleScript = Scripts.load("settle", Long.class);

    private final RedisScript<Long> releaseOrphansScript = Scripts.load("release-orphans", Long.class);

    private final RedisScript<Long> forgetRunScript = Scripts.load("forget-run", Long.class);

    private final RedisScript<List<String>> extendLeasesScript = Scripts.load("extend-leases", Scripts.STRING_LIST);

    public RedisTaskQueues(StringRedisTemplate redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
        // the claims of many queues wait for their answers themselves: as long as a command may take
        this.commandTimeoutMillis = (LETTUCE
                && redis.getConnectionFactory() instanceof LettuceConnectionFactory lettuce) ? lettuce.getTimeout()
                        : DEFAULT_COMMAND_TIMEOUT_MILLIS;
        this.cluster = LETTUCE && redis.getConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && lettuce.isClusterAware();
        // one connection to one server, which every claim goes out on: a dedicated connection per call is always
        // open, and a master/replica one says it is open whatever its nodes do
        this.oneConnection = LETTUCE && !this.cluster
                && redis.getConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && lettuce.getShareNativeConnection() && lettuce.getClientConfiguration().getReadFrom().isEmpty();
    }

    /**
     * Bound how long a claim round waits for a Redis server that does not answer, whatever the command timeout: such
     * a claim is then {@linkplain ClaimNotAnswered not answered}, and a later round takes its answer.
     * @param claimTimeout how long at most; {@code null} for the command timeout
     */
    public void setClaimTimeout(@Nullable Duration claimTimeout) {
        this.claimTimeoutMillis = (claimTimeout != null) ? claimTimeout.toMillis() : Long.MAX_VALUE;
    }

    /** Stop handing back the ids of late claims: those not handed back yet wait until their lease runs out. */
    public void close() {
        this.lateClaims.close();
    }

    /** How long a claim round on one server waits for it: the claim timeout, if shorter than the command timeout. */
    private long claimWaitMillis() {
        return Math.min(this.commandTimeoutMillis, this.claimTimeoutMillis);
    }

    /**
     * Make a task due at the given time, replacing any earlier time.
     * @param queue the task's queue
     * @param taskId the task
     * @param executeTime when it is due, epoch ms
     */
    @Override
    public void schedule(QueueId queue, long taskId, long executeTime) {
        schedule(queue, Map.of(taskId, executeTime), false);
    }

    /**
     * Make new tasks of one queue due at their times, in one call. A new id can be in no other set of the queue, so
     * a ZADD does what the schedule script would, at a fraction of its cost; NX, as an id there already was put there
     * by a later change (a reschedule on another instance that reached Redis first).
     * @param queue the queue
     * @param executeTimes execute time by task id
     */
    @Override
    public void add(QueueId queue, Map<Long, Long> executeTimes) {
        Set<ZSetOperations.TypedTuple<String>> members = new HashSet<>(executeTimes.size() * 2);
        executeTimes.forEach((id, time) -> members.add(ZSetOperations.TypedTuple.of(Long.toString(id), (double) time)));
        this.redis.opsForZSet().addIfAbsent(this.keys.future(queue), members);
    }

    /**
     * Make new tasks of many queues due at their times, and record the queues in use: a {@code ZADD} per queue and
     * chunk of at most {@code chunk} ids (so that Redis is never blocked for long) and one {@code SADD}, all on the
     * wire at once, where Lettuce is. On a Cluster a master that stalls or failed holds up only its own queues: the
     * others are answered once they are, and its queues come back as not written. The registry's write may fail
     * alone: the next write to the queues, or a pass of the feed that brings tasks of theirs, registers them again.
     * @param executeTimes execute time by task id, by queue
     * @param alsoRegister queues to record in the registry as well (changes of tasks written to them)
     * @param wait how long to wait for the slowest server at most, even when none answers: a server not answered
     * by then is taken as slow, and its queues as not written
     * @return the queues not written, whose server failed or had not answered in time; a write not answered in
     * time may still take effect, which writing it again does not mind
     * @throws RuntimeException when every server of a queue refused (none was slow): Redis is out of reach
     */
    @Override
    public Set<QueueId> addAll(Map<QueueId, Map<Long, Long>> executeTimes, Collection<QueueId> alsoRegister,
            int chunk, Duration wait) {
        Set<QueueId> inUse = new LinkedHashSet<>(executeTimes.keySet());
        inUse.addAll(alsoRegister);
        if (inUse.isEmpty()) {
            return Set.of();
        }
        if (LETTUCE) {
            List<QueueId> order = new ArrayList<>();
            List<byte[]> keys = new ArrayList<>();
            List<List<Object>> members = new ArrayList<>();
            executeTimes.forEach((queue, times) -> {
                List<Object> chunkMembers = new ArrayList<>();
                for (Map.Entry<Long, Long> entry : times.entrySet()) {
                    chunkMembers.add(entry.getValue().doubleValue());
                    chunkMembers.add(Long.toString(entry.getKey()).getBytes(StandardCharsets.UTF_8));
                    if (chunkMembers.size() == 2 * chunk) {
                        order.add(queue);
                        keys.add(this.keys.future(queue).getBytes(StandardCharsets.UTF_8));
                        members.add(chunkMembers);
                        chunkMembers = new ArrayList<>();
                    }
                }
                if (!chunkMembers.isEmpty()) {
                    order.add(queue);
                    keys.add(this.keys.future(queue).getBytes(StandardCharsets.UTF_8));
                    members.add(chunkMembers);
                }
            });
            byte[] registry = this.keys.queues().getBytes(StandardCharsets.UTF_8);
            byte[][] registered = inUse.stream()
                .map((queue) -> queue.toString().getBytes(StandardCharsets.UTF_8))
                .toArray(byte[][]::new);
            long straggler = this.cluster ? STRAGGLER_MILLIS : this.commandTimeoutMillis;
            List<Object> answers = this.redis.execute((RedisCallback<List<Object>>) (connection) -> AsyncScripts
                .addAll(connection, keys, members, registry, registered, this.commandTimeoutMillis, straggler,
                        wait.toMillis()));
            if (answers != null) {
                return unwritten(order, answers);
            }
        }
        register(inUse);
        executeTimes.forEach((queue, times) -> {
            Map<Long, Long> part = new LinkedHashMap<>();
            for (Map.Entry<Long, Long> entry : times.entrySet()) {
                part.put(entry.getKey(), entry.getValue());
                if (part.size() == chunk) {
                    add(queue, part);
                    part = new LinkedHashMap<>();
                }
            }
            if (!part.isEmpty()) {
                add(queue, part);
            }
        });
        return Set.of();
    }

    /**
     * The queues of {@link #addAll} with a chunk whose answer is an error or late; throws when every queue's answer
     * is an error (the registry's answer, which may come from a server of its own, does not count).
     */
    private static Set<QueueId> unwritten(List<QueueId> order, List<Object> answers) {
        Set<QueueId> unwritten = new LinkedHashSet<>();
        RuntimeException refused = null;
        boolean taken = false;
        for (int i = 0; i < order.size(); i++) {
            Object answer = answers.get(i);
            if (answer instanceof AsyncScripts.Late || answer instanceof Exception) {
                unwritten.add(order.get(i));
            }
            if (answer instanceof Exception ex) {
                if (refused == null) {
                    refused = (ex instanceof RuntimeException runtime) ? runtime
                            : new RedisSystemException("Redis refused new tasks: " + ex.getMessage(), ex);
                }
            }
            else {
                taken = true;
            }
        }
        Object registered = answers.get(answers.size() - 1);
        if (registered instanceof AsyncScripts.Late || registered instanceof Exception) {
            logger.debug("Could not record queues in use; their next write records them again: " + registered);
        }
        if (!taken && refused != null) {
            throw refused;
        }
        return unwritten;
    }

    /**
     * Bring tasks read from the database into a queue, leaving alone those a consumer holds.
     * @param queue the queue
     * @param executeTimes execute time by task id
     * @return the earliest execute time of the tasks that Redis did not hold at that time (new to it, or at another
     * time), or -1 if it held them all: only those need telling the consumers of
     */
    @Override
    public long reload(QueueId queue, Map<Long, Long> executeTimes) {
        register(List.of(queue));
        return schedule(queue, executeTimes, true);
    }

    private long schedule(QueueId queue, Map<Long, Long> executeTimes, boolean skipInFlight) {
        List<String> args = new ArrayList<>(executeTimes.size() * 2 + 1);
        args.add(skipInFlight ? "1" : "0");
        executeTimes.forEach((id, time) -> {
            args.add(Long.toString(time));
            args.add(Long.toString(id));
        });
        Long earliest = this.redis.execute(this.scheduleScript,
                List.of(this.keys.future(queue), this.keys.inFlight(queue), this.keys.ready(queue)), args.toArray());
        return (earliest != null) ? earliest : -1;
    }

    /**
     * {@link #claim(QueueId, int, Duration)}, where a queue that holds nothing answers with two commands and without
     * the server's time ({@link Claim#redisTime()} is then -1) unless {@code timed}.
     */
    @Override
    public Claim claim(QueueId queue, int max, Duration lease, boolean timed) {
        failFastWhileDisconnected();
        List<String> result = this.redis.execute(this.claimScript, claimKeys(queue), claimArgs(queue, max, lease, timed));
        return toClaim(result);
    }

    /**
     * Claim from many queues in one round trip: the claim scripts of all of them go out in one pipeline (on a
     * Cluster, Lettuce sends each to the node of its queue's slot), each script still on the keys of one queue.
     * @param counts how many tasks to claim from each queue; 0 only moves due tasks
     * @param lease how long the claimed tasks stay with the caller before they are due again
     * @param timed the queues whose claim must read the server's time even when they hold nothing
     * @return what each queue's claim took, or why it failed
     */
    @Override
    public Claims claimAll(Map<QueueId, Integer> counts, Duration lease, Set<QueueId> timed) {
        failFastWhileDisconnected();
        Map<QueueId, Claim> claimed = new LinkedHashMap<>();
        Map<QueueId, RuntimeException> failed = new LinkedHashMap<>();
        Map<QueueId, Integer> toSend = new LinkedHashMap<>(counts);
        Set<QueueId> late = Set.of();
        if (!this.lateClaims.isEmpty()) {
            late = new HashSet<>();
            this.lateClaims.settle(toSend, claimed, failed, late);
        }
        long now = System.nanoTime();
        Set<QueueId> slow = new HashSet<>();
        if (!this.slowUntil.isEmpty()) {
            this.slowUntil.entrySet().removeIf((entry) -> entry.getValue() - now < 0);
            toSend.keySet().stream().filter(this.slowUntil::containsKey).forEach(slow::add);
        }
        if (toSend.size() == 1 && !this.cluster && this.commandTimeoutMillis <= this.claimTimeoutMillis) {
            // a pipeline costs more than the call for one queue; on a Cluster the call must not wait for a stalled
            // master longer than a round of many queues does, nor on one server longer than the claim timeout
            toSend.forEach((queue, max) -> {
                try {
                    claimed.put(queue, claim(queue, max, lease, timed.contains(queue)));
                }
                catch (RuntimeException ex) {
                    failed.put(queue, ex);
                }
            });
            return new Claims(claimed, failed, late);
        }
        if (toSend.isEmpty()) {
            return new Claims(claimed, failed, late);
        }
        List<QueueId> order = new ArrayList<>(toSend.keySet());
        long sentAt = System.nanoTime();
        List<Object> results = pipelineClaims(order, toSend, lease, timed, slow);
        for (int i = 0; i < order.size(); i++) {
            QueueId queue = order.get(i);
            Object result = (i < results.size()) ? results.get(i) : null;
            try {
                if (result instanceof AsyncScripts.Late unanswered) {
                    // its server has not answered yet: a later round takes its answer, and it is not claimed
                    // meanwhile; a claim of another thread's round (a poll) may be waiting already, whose answer is
                    // taken, and this one's ids are handed back once it answers
                    this.lateClaims.add(queue, unanswered.answer(), sentAt, lease.toMillis());
                    this.slowUntil.put(queue, sentAt + SLOW_FOR_NANOS);
                    failed.put(queue, new ClaimNotAnswered(queue, sentAt));
                    continue;
                }
                if (result instanceof Exception ex && !isNoScript(ex)) {
                    throw (ex instanceof DataAccessException translated) ? translated
                            : new RedisSystemException("Claim of " + queue + " failed: " + ex.getMessage(), ex);
                }
                if (result instanceof List<?>) {
                    claimed.put(queue, toClaim(strings(result)));
                }
                else {
                    // the server did not know the script yet (a restart, a new node), or the connection is not
                    // Lettuce's: this call loads the script
                    claimed.put(queue, claim(queue, toSend.get(queue), lease, timed.contains(queue)));
                }
            }
            catch (RuntimeException ex) {
                failed.put(queue, ex);
            }
        }
        return new Claims(claimed, failed, late);
    }

    /** Whether claims look at the state of the connection: see {@link #failFastWhileDisconnected()}. */
    private boolean watchesConnection() {
        return this.oneConnection && this.claimTimeoutMillis != Long.MAX_VALUE;
    }

    /**
     * Fails at once while the connection to the one server is down (the server's process ended, a Sentinel
     * fail-over): Lettuce holds what is written meanwhile until it has reconnected, so a claim would wait the claim
     * timeout for nothing where the database can take its queues over at once. Only with a claim timeout, which the
     * database's dispatch sets: without it, nothing else can claim, and a claim may as well wait for the reconnection.
     * Only on Lettuce's shared connection to one server (standalone, or a master through Sentinel without reads
     * from replicas): a Cluster's stands while some of its masters are down.
     * @throws RedisConnectionFailureException while the connection is down
     */
    private void failFastWhileDisconnected() {
        if (!watchesConnection()) {
            return;
        }
        Boolean connected = this.redis.execute((RedisCallback<Boolean>) AsyncScripts::connected);
        if (Boolean.FALSE.equals(connected)) {
            throw new RedisConnectionFailureException("The connection to Redis is down; Lettuce is reconnecting");
        }
    }

    /**
     * The claim scripts of all the queues, sent at once and waited for together ({@link AsyncScripts}).
     * @return each queue's answer, or the error of its script; {@code null} for a script to run again alone
     */
    private List<Object> pipelineClaims(List<QueueId> order, Map<QueueId, Integer> counts, Duration lease,
            Set<QueueId> timed, Set<QueueId> slow) {
        List<Object> results = null;
        if (LETTUCE) {
            List<byte[][]> keys = new ArrayList<>(order.size());
            List<byte[][]> args = new ArrayList<>(order.size());
            Set<Integer> capped = new HashSet<>();
            for (int i = 0; i < order.size(); i++) {
                QueueId queue = order.get(i);
                keys.add(bytes(claimKeys(queue).toArray()));
                args.add(bytes(claimArgs(queue, counts.get(queue), lease, timed.contains(queue))));
                if (slow.contains(queue)) {
                    capped.add(i);
                }
            }
            // on one server a slow answer holds up no other (only a Cluster's masters answer apart), but a server
            // that stops answering midway through a round is waited for no longer than the claim timeout
            long straggler = this.cluster ? STRAGGLER_MILLIS : claimWaitMillis();
            long unanswered = this.cluster ? UNANSWERED_MILLIS : claimWaitMillis();
            Set<Integer> cappedHere = this.cluster ? capped : everyCall(order.size());
            results = this.redis.execute((RedisCallback<List<Object>>) (connection) -> AsyncScripts.runAll(connection,
                    this.claimScript.getSha1(), keys, args, this.commandTimeoutMillis, straggler, unanswered,
                    cappedHere, watchesConnection()));
        }
        if (results == null) {
            // not Lettuce: one call per queue
            results = new ArrayList<>(order.size());
            for (int i = 0; i < order.size(); i++) {
                results.add(null);
            }
        }
        return results;
    }

    /**
     * On one server, the calls of a round bounded by the claim timeout from their sending, also once some answered:
     * none waits for the command timeout, nor a round longer than the claim timeout.
     */
    private Set<Integer> everyCall(int calls) {
        if (this.commandTimeoutMillis <= this.claimTimeoutMillis) {
            return Set.of();
        }
        Set<Integer> all = new HashSet<>(calls * 2);
        for (int i = 0; i < calls; i++) {
            all.add(i);
        }
        return all;
    }

    private static byte[][] bytes(Object[] values) {
        byte[][] bytes = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = ((String) values[i]).getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    static boolean isNoScript(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    static List<String> strings(Object result) {
        if (!(result instanceof List<?> values)) {
            throw new RedisSystemException("Unexpected claim result " + result, null);
        }
        List<String> strings = new ArrayList<>(values.size());
        for (Object value : values) {
            strings.add((value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
                    : String.valueOf(value));
        }
        return strings;
    }

    private List<String> claimKeys(QueueId queue) {
        return List.of(this.keys.future(queue), this.keys.ready(queue), this.keys.inFlight(queue),
                this.keys.loaded(queue), this.keys.paused(queue), this.keys.claimedRecently(queue));
    }

    private Object[] claimArgs(QueueId queue, int max, Duration lease, boolean timed) {
        long[] rate = this.rates.getOrDefault(queue, NO_RATE);
        return new Object[] { Integer.toString(max), Long.toString(lease.toMillis()), Integer.toString(MOVE_LIMIT),
                timed ? "1" : "0", Integer.toString(this.inFlightLimits.getOrDefault(queue, 0)),
                Long.toString(LIMITED_LOOK_MILLIS), Long.toString(rate[0]), Long.toString(rate[1]) };
    }

    /**
     * Hand out no more than {@code permits} tasks of the queue within any {@code period}, across every consumer of
     * every instance: its claims take only what the rate leaves (a listener's cluster-wide rate).
     * @param permits the most tasks claimed within a period; 0 for no such rate
     */
    @Override
    public void limitRate(QueueId queue, int permits, Duration period) {
        if (permits > 0) {
            this.rates.put(queue, new long[] { permits, period.toMillis() });
        }
        else {
            this.rates.remove(queue);
        }
    }

    /**
     * Hand out no more than {@code limit} tasks of the queue at once, across every consumer of every instance: its
     * claims take only the room its in-flight set leaves (a listener's cluster-wide concurrency).
     * @param limit the most tasks in flight; 0 for no such limit
     */
    @Override
    public void limitInFlight(QueueId queue, int limit) {
        if (limit > 0) {
            this.inFlightLimits.put(queue, limit);
        }
        else {
            this.inFlightLimits.remove(queue);
        }
    }

    static Claim toClaim(List<String> result) {
        List<Long> ids = new ArrayList<>(result.size() - 5);
        for (int i = 5; i < result.size(); i++) {
            ids.add(Long.parseLong(result.get(i)));
        }
        return new Claim(Long.parseLong(result.get(0)), Long.parseLong(result.get(1)), "1".equals(result.get(2)),
                "1".equals(result.get(3)), Integer.parseInt(result.get(4)), ids);
    }

    /**
     * Extend the leases of tasks in flight whose handlers still run here: each queue's ids in one script, the scripts
     * of all the queues sent at once ({@link AsyncScripts}).
     * @param taskIds the ids of each queue
     * @param lease the new length of their leases, from the servers' time now
     * @return the earliest server time the new leases count from (on a Cluster the servers' clocks differ a little)
     */
    @Override
    public long extendLeases(Map<QueueId, ? extends Collection<Long>> taskIds, Duration lease) {
        List<QueueId> order = new ArrayList<>(taskIds.keySet());
        List<Object> results = null;
        if (order.size() > 1 && LETTUCE) {
            List<byte[][]> keys = new ArrayList<>(order.size());
            List<byte[][]> args = new ArrayList<>(order.size());
            for (QueueId queue : order) {
                keys.add(bytes(new Object[] { this.keys.inFlight(queue) }));
                args.add(bytes(extendArgs(taskIds.get(queue), lease)));
            }
            results = this.redis.execute((RedisCallback<List<Object>>) (connection) -> AsyncScripts
                .runAll(connection, this.extendLeasesScript.getSha1(), keys, args, this.commandTimeoutMillis));
        }
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < order.size(); i++) {
            Object result = (results != null && i < results.size()) ? results.get(i) : null;
            if (result instanceof Exception ex && !isNoScript(ex)) {
                throw (ex instanceof DataAccessException translated) ? translated
                        : new RedisSystemException("Extending leases failed: " + ex.getMessage(), ex);
            }
            List<String> answer;
            if (result instanceof List<?>) {
                answer = strings(result);
            }
            else {
                // one queue, a server that did not know the script yet, or a connection that is not Lettuce's
                QueueId queue = order.get(i);
                answer = this.redis.execute(this.extendLeasesScript, List.of(this.keys.inFlight(queue)),
                        extendArgs(taskIds.get(queue), lease));
            }
            if (answer == null || answer.isEmpty()) {
                throw new RedisSystemException("Unexpected answer " + answer + " when extending leases", null);
            }
            earliest = Math.min(earliest, Long.parseLong(answer.get(0)));
        }
        return earliest;
    }

    private static Object[] extendArgs(Collection<Long> taskIds, Duration lease) {
        Object[] args = new Object[taskIds.size() + 1];
        args[0] = Long.toString(lease.toMillis());
        int i = 1;
        for (Long taskId : taskIds) {
            args[i++] = Long.toString(taskId);
        }
        return args;
    }

    /** Forget a task that a consumer finished: the database no longer needs Redis to remember it. */
    @Override
    public void acknowledge(QueueId queue, long taskId) {
        this.redis.opsForZSet().remove(this.keys.inFlight(queue), Long.toString(taskId));
    }

    /**
     * Forget a finished run of a task, unless a later run holds it: see {@code forget-run.lua}.
     * @param before a lease deadline later than any the finished run held, and earlier than any a later run holds
     */
    @Override
    public void forgetRun(QueueId queue, long taskId, long before) {
        this.redis.execute(this.forgetRunScript, List.of(this.keys.inFlight(queue)), Long.toString(taskId),
                Long.toString(before));
    }

    /**
     * Forget the finished tasks of many queues at once: a {@code ZREM} per queue, all on the wire together, as an
     * acknowledgement of tasks of many queues would otherwise wait for a round trip per queue.
     */
    @Override
    public void acknowledgeAll(Map<QueueId, ? extends Collection<Long>> taskIds) {
        if (taskIds.size() > 1 && LETTUCE) {
            List<byte[]> keys = new ArrayList<>(taskIds.size());
            List<byte[][]> members = new ArrayList<>(taskIds.size());
            taskIds.forEach((queue, ids) -> {
                keys.add(this.keys.inFlight(queue).getBytes(StandardCharsets.UTF_8));
                members.add(bytes(ids.stream().map(String::valueOf).toArray()));
            });
            Boolean sent = this.redis.execute((RedisCallback<Boolean>) (connection) -> AsyncScripts
                .removeAll(connection, keys, members, this.commandTimeoutMillis));
            if (Boolean.TRUE.equals(sent)) {
                return;
            }
        }
        taskIds.forEach(this::acknowledgeAll);
    }

    /** Forget many finished tasks of one queue, in one call. */
    @Override
    public void acknowledgeAll(QueueId queue, Collection<Long> taskIds) {
        this.redis.opsForZSet().remove(this.keys.inFlight(queue), taskIds.stream().map(String::valueOf).toArray());
    }

    /** Take a task out of flight and make it due at the given time. */
    @Override
    public void defer(QueueId queue, long taskId, long executeTime) {
        this.redis.execute(this.deferScript, List.of(this.keys.future(queue), this.keys.inFlight(queue)),
                Long.toString(taskId), Long.toString(executeTime));
    }

    /**
     * Take a task a claim lost to the database out of flight and make it due at the given time, unless the future
     * set holds it due sooner already (a retry recorded meanwhile).
     */
    @Override
    public void settle(QueueId queue, long taskId, long executeTime) {
        this.redis.execute(this.settleScript, List.of(this.keys.future(queue), this.keys.inFlight(queue)),
                Long.toString(taskId), Long.toString(executeTime));
    }

    /**
     * The tasks of a queue in flight whose leases run out after a time, with their lease deadlines, earliest first.
     * @param after epoch ms (Redis time)
     * @param limit at most this many
     */
    @Override
    public Map<Long, Long> inFlightAfter(QueueId queue, long after, int limit) {
        Set<ZSetOperations.TypedTuple<String>> entries = this.redis.opsForZSet()
            .rangeByScoreWithScores(this.keys.inFlight(queue), after + 1, Double.POSITIVE_INFINITY, 0, limit);
        Map<Long, Long> deadlines = new LinkedHashMap<>();
        if (entries != null) {
            entries.forEach((entry) -> deadlines.put(Long.parseLong(entry.getValue()), entry.getScore().longValue()));
        }
        return deadlines;
    }

    /**
     * Take tasks out of flight and make them due, each only while it still has the lease deadline read: see
     * {@code release-orphans.lua}.
     * @param tasks for each task, its lease deadline read and when it is due, epoch ms
     * @return how many were taken out of flight
     */
    @Override
    public long releaseOrphans(QueueId queue, Map<Long, long[]> tasks) {
        if (tasks.isEmpty()) {
            return 0;
        }
        List<String> args = new ArrayList<>(3 * tasks.size());
        tasks.forEach((taskId, times) -> {
            args.add(Long.toString(taskId));
            args.add(Long.toString(times[0]));
            args.add(Long.toString(times[1]));
        });
        Long released = this.redis.execute(this.releaseOrphansScript,
                List.of(this.keys.future(queue), this.keys.inFlight(queue)), args.toArray());
        return (released != null) ? released : 0;
    }

    /** Drop a cancelled (or rescheduled beyond the window) task from the future and ready sets. */
    @Override
    public void remove(QueueId queue, long taskId) {
        this.redis.opsForZSet().remove(this.keys.future(queue), Long.toString(taskId));
        this.redis.opsForZSet().remove(this.keys.ready(queue), Long.toString(taskId));
    }

    /**
     * Make changes of tasks already stored ({@link #schedule(QueueId, long, long)}, {@link #remove}) all at once,
     * where Lettuce is: the changes of one queue take effect in their order, and on a Cluster a master that stalls or
     * failed holds up only its own queues' changes, as {@link #addAll} does for new tasks.
     * @param wait how long to wait for the slowest server at most, even when none answers
     * @return the changes not made, in their order: of each queue, those from the first whose server failed or had
     * not answered in time on. One not answered in time may still take effect, which making it again does not mind;
     * without Lettuce, every change from the first that failed on
     */
    @Override
    public List<Change> changeAll(List<Change> changes, Duration wait) {
        if (changes.isEmpty()) {
            return List.of();
        }
        if (LETTUCE) {
            List<byte[][]> keys = new ArrayList<>(changes.size());
            List<byte[] @Nullable []> args = new ArrayList<>(changes.size());
            List<byte @Nullable []> members = new ArrayList<>(changes.size());
            for (Change change : changes) {
                byte[] id = Long.toString(change.taskId()).getBytes(StandardCharsets.UTF_8);
                if (change.removes()) {
                    keys.add(bytes(new Object[] { this.keys.future(change.queue()), this.keys.ready(change.queue()) }));
                    args.add(null);
                    members.add(id);
                }
                else {
                    keys.add(bytes(new Object[] { this.keys.future(change.queue()), this.keys.inFlight(change.queue()),
                            this.keys.ready(change.queue()) }));
                    args.add(bytes(new Object[] { "0", Long.toString(change.executeTime()),
                            Long.toString(change.taskId()) }));
                    members.add(null);
                }
            }
            long straggler = this.cluster ? STRAGGLER_MILLIS : this.commandTimeoutMillis;
            List<Object> answers = this.redis.execute((RedisCallback<List<Object>>) (connection) -> AsyncScripts
                .changeAll(connection, this.scheduleScript.getSha1(), keys, args, members, this.commandTimeoutMillis,
                        straggler, wait.toMillis()));
            if (answers != null) {
                return unmade(changes, answers);
            }
        }
        for (int i = 0; i < changes.size(); i++) {
            try {
                change(changes.get(i));
            }
            catch (RuntimeException ex) {
                logger.debug("Redis did not take a change of a stored task", ex);
                return changes.subList(i, changes.size());
            }
        }
        return List.of();
    }

    private void change(Change change) {
        if (change.removes()) {
            remove(change.queue(), change.taskId());
        }
        else {
            schedule(change.queue(), change.taskId(), change.executeTime());
        }
    }

    /**
     * The changes of {@link #changeAll} not made, from each queue's first that failed or came late on. A server that
     * did not know the schedule script (a restart, a new node) made none of it: that change and its queue's later
     * ones are made again here one by one, in order, the first call loading the script.
     */
    private List<Change> unmade(List<Change> changes, List<Object> answers) {
        Set<QueueId> stopped = new HashSet<>();
        Set<QueueId> again = new HashSet<>();
        List<Change> unmade = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            Change change = changes.get(i);
            QueueId queue = change.queue();
            Object answer = answers.get(i);
            if (stopped.contains(queue)) {
                unmade.add(change);
                continue;
            }
            if (again.contains(queue) || (answer instanceof Exception ex && isNoScript(ex))) {
                again.add(queue);
                try {
                    change(change);
                    continue;
                }
                catch (RuntimeException ex) {
                    answer = ex;
                }
            }
            if (answer instanceof AsyncScripts.Late || answer instanceof Exception) {
                if (answer instanceof Exception ex) {
                    logger.debug("Redis did not take a change of a task of " + queue, ex);
                }
                stopped.add(queue);
                unmade.add(change);
            }
        }
        return unmade;
    }

    /** Whether the keys are the task store's own, shared with no other application ({@link RedisKeys#ofOneStore()}). */
    @Override
    public boolean keysOfOneStore() {
        return this.keys.ofOneStore();
    }

    /** The prefix of the keys, for messages. */
    @Override
    public String keyPrefix() {
        return this.keys.prefix();
    }

    /**
     * Record that queues are in use, in one call: the writers of tasks do so for every batch they write, as an
     * empty queue leaves the registry ({@link QueueAdministration#unregisterIfEmpty}).
     */
    @Override
    public void register(Collection<QueueId> queues) {
        if (!queues.isEmpty()) {
            this.redis.opsForSet()
                .add(this.keys.queues(), queues.stream().map(QueueId::toString).toArray(String[]::new));
        }
    }

}
