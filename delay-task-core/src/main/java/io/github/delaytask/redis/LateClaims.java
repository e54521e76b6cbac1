package io.github.delaytask.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

import io.github.delaytask.core.Claim;
import io.github.delaytask.core.QueueId;
import io.github.delaytask.core.TaskQueues.ClaimNotAnswered;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The claims Redis answered late, by queue, until a round takes their answers ({@link RedisTaskQueues#claimAll}): a
 * server that stalled or failed over, on a Cluster, or one that did not answer within the claim timeout.
 */
final class LateClaims {

    private static final Log logger = LogFactory.getLog(LateClaims.class);

    private final Map<QueueId, LateClaim> claims = new ConcurrentHashMap<>();

    /** Takes ids out of flight while they hold the lease deadline read, making them due ({@code release-orphans}). */
    private final BiConsumer<QueueId, Map<Long, long[]>> release;

    /** Whether a queue has a cluster-wide limit. */
    private final Predicate<QueueId> limited;

    /**
     * Hands back the ids of late claims that no round uses, off the claiming thread: the server that was late may
     * stall again, and the dispatcher must not wait for it. Its thread ends when idle; ids it cannot take wait in
     * flight until their lease runs out.
     */
    private final ThreadPoolExecutor handBacks;

    LateClaims(BiConsumer<QueueId, Map<Long, long[]>> release, Predicate<QueueId> limited) {
        this.release = release;
        this.limited = limited;
        CustomizableThreadFactory threads = new CustomizableThreadFactory("delay-task-hand-back-");
        threads.setDaemon(true);
        this.handBacks = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1000), threads,
                (handBack, executor) -> logger.debug("Too many hand-backs of late claims waiting: the ids of one wait "
                        + "in flight until their lease runs out"));
        this.handBacks.allowCoreThreadTimeOut(true);
    }

    boolean isEmpty() {
        return this.claims.isEmpty();
    }

    /**
     * A claim not answered in its round: a later round takes its answer. A claim of another thread's round (a poll)
     * may be waiting already, whose answer is taken, and this one's ids are handed back once it answers.
     * @param sentAt when it was sent, nanos of {@link System#nanoTime()}
     */
    void add(QueueId queue, CompletableFuture<List<Object>> answer, long sentAt, long leaseMillis) {
        LateClaim pending = new LateClaim(answer, sentAt, leaseMillis);
        if (this.claims.putIfAbsent(queue, pending) != null) {
            answer.thenAccept((second) -> {
                Claim claim = RedisTaskQueues.toClaim(RedisTaskQueues.strings(second));
                handBack(queue, claim.taskIds(), claim.redisTime(), leaseMillis);
            });
        }
    }

    /** Stop handing back: the ids not handed back yet wait until their lease runs out. */
    void close() {
        this.handBacks.shutdownNow();
    }

    /**
     * The claims of earlier rounds that came late. One answered since is this round's claim of its queue, when the
     * queue is claimed, as far as this round's count goes: its ids are in flight under a lease from its own time, and
     * the database's claim fences them as any other; the rest of its ids, or all of them when the queue is not
     * claimed in this round (the database dispatches it meanwhile), go back, due at once, unless taken since. A queue
     * with a cluster-wide limit keeps them for its own rounds instead, for up to half a lease: its limit counted them
     * when Redis claimed them. One that failed is this round's failure of its queue, whether or not the round claims
     * it, so that a server that lost its data is recovered as after any failed claim. A queue whose claim still waits
     * for its server is not claimed again meanwhile.
     */
    void settle(Map<QueueId, Integer> toSend, Map<QueueId, Claim> claimed,
            Map<QueueId, RuntimeException> failed, Set<QueueId> late) {
        for (Map.Entry<QueueId, LateClaim> entry : this.claims.entrySet()) {
            QueueId queue = entry.getKey();
            LateClaim claim = entry.getValue();
            Integer asked = toSend.get(queue);
            if (!claim.answer().isDone()) {
                if (asked != null) {
                    toSend.remove(queue);
                    failed.put(queue, new ClaimNotAnswered(queue, claim.sentAt()));
                }
                continue;
            }
            List<String> answer;
            try {
                answer = RedisTaskQueues.strings(claim.answer().join());
            }
            catch (RuntimeException ex) {
                Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
                // a new master that did not know the script claimed nothing
                if (this.claims.remove(queue, claim) && !RedisTaskQueues.isNoScript(cause)) {
                    toSend.remove(queue);
                    failed.put(queue, (cause instanceof DataAccessException translated) ? translated
                            : new RedisSystemException("Claim of " + queue + " failed: " + cause.getMessage(), cause));
                }
                continue;
            }
            boolean limited = this.limited.test(queue);
            long ageNanos = System.nanoTime() - claim.sentAt();
            if (asked == null && limited && TimeUnit.NANOSECONDS.toMillis(ageNanos) < claim.leaseMillis() / 2) {
                continue;
            }
            if (!this.claims.remove(queue, claim)) {
                // another thread's round took it
                continue;
            }
            Claim answered = RedisTaskQueues.toClaim(answer);
            List<Long> ids = answered.taskIds();
            int kept = (asked != null) ? Math.min(asked, ids.size()) : 0;
            if (kept < ids.size()) {
                if (asked != null && limited) {
                    // the rest for the queue's next rounds, its ids at the head of the answer
                    List<Object> rest = new ArrayList<>(answer.subList(0, 5));
                    ids.subList(kept, ids.size()).forEach((id) -> rest.add(Long.toString(id)));
                    this.claims.putIfAbsent(queue,
                            new LateClaim(CompletableFuture.completedFuture(rest), claim.sentAt(), claim.leaseMillis()));
                }
                else {
                    handBack(queue, ids.subList(kept, ids.size()), answered.redisTime(), claim.leaseMillis());
                }
            }
            if (asked != null) {
                toSend.remove(queue);
                // its next look counts from its answer, which is older than this round by up to its wait
                long age = TimeUnit.NANOSECONDS.toMillis(ageNanos);
                long nextDue = (answered.nextDueInMillis() < 0) ? -1 : Math.max(0, answered.nextDueInMillis() - age);
                claimed.put(queue, new Claim(answered.redisTime(), nextDue, answered.loaded(), answered.paused(),
                        answered.redelivered(), List.copyOf(ids.subList(0, kept))));
                late.add(queue);
            }
        }
    }

    /**
     * Make due again, in one call, the ids a late claim took and no one uses, each only while it holds that claim's
     * lease: one taken since, by a claim after its lease ran out, is left alone.
     */
    private void handBack(QueueId queue, List<Long> taskIds, long claimedAt, long leaseMillis) {
        Map<Long, long[]> tasks = new LinkedHashMap<>();
        taskIds.forEach((taskId) -> tasks.put(taskId, new long[] { claimedAt + leaseMillis, claimedAt }));
        this.handBacks.execute(() -> {
            try {
                this.release.accept(queue, tasks);
            }
            catch (RuntimeException ex) {
                // they wait in flight until their lease runs out, and are handed out then
                logger.debug("Could not hand back the ids of a late claim of " + queue, ex);
            }
        });
    }

    /**
     * A claim of an earlier round whose server had not answered when the other queues' servers had.
     * @param answer the script's answer, or its error
     * @param sentAt when it was sent, nanos of {@link System#nanoTime()}
     * @param leaseMillis the lease it asked for
     */
    private record LateClaim(CompletableFuture<List<Object>> answer, long sentAt, long leaseMillis) {
    }

}
