package io.github.delaytask.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisSetAsyncCommands;
import io.lettuce.core.api.async.RedisSortedSetAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * Many calls of one script, or many additions or removals, at once on Lettuce's asynchronous API, on the connection Spring hands out (the shared one
 * by default): Lettuce writes each command without waiting for the answers of the earlier ones, so all of them cost
 * one round trip, where Spring's pipelining would open a dedicated connection for every call. On a Cluster each
 * call goes to the node of its first key's slot. Loaded only where Lettuce is.
 */
final class AsyncScripts {

    /** How often a wait for a claim's answer looks at whether the connection went down. */
    private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private AsyncScripts() {
    }

    /**
     * Whether the connection to one server is up: {@code false} while Lettuce reconnects, holding what is written
     * meanwhile until it has; {@code null} if the connection is not Lettuce's to one server.
     */
    static @Nullable Boolean connected(RedisConnection connection) {
        return (connection.getNativeConnection() instanceof RedisAsyncCommands<?, ?> commands)
                ? commands.getStatefulConnection().isOpen() : null;
    }

    /**
     * @param sha the script's SHA-1, which the servers may not know yet
     * @param keys the keys of each call
     * @param args the arguments of each call
     * @return each call's answer, or its error (a {@code NOSCRIPT} error among them when a server did not know the
     * script); {@code null} if the connection is not Lettuce's
     */
    static @Nullable List<Object> runAll(RedisConnection connection, String sha, List<byte[][]> keys,
            List<byte[][]> args, long timeoutMillis) {
        return runAll(connection, sha, keys, args, timeoutMillis, timeoutMillis, timeoutMillis, Set.of(), false);
    }

    /**
     * {@link #runAll(RedisConnection, String, List, List, long)}, waiting for the slowest calls only a while: on a
     * Cluster a master that stalls or failed must not hold up the answers of the others for the whole command
     * timeout. Once the first call answered, the others are waited for {@code stragglerMillis} more at the least
     * (twice as long as the first took, if that is longer); while none has, all are waited for {@code
     * unansweredMillis} from their sending at most, so that calls all bound for one stalled server (a round of one
     * queue) hold up no later round; the calls in {@code capped} (whose server was slow lately) are waited for
     * {@code stragglerMillis} from their sending at most, even when nothing answers. A call not answered by then is a
     * {@link Late} in the answers, whose future completes when its server answers or its command times out.
     * @param failWhenDisconnected whether to stop waiting once the connection to the one server is down: Lettuce
     * would send what was unanswered again once it has reconnected, which a claim need not wait for, as the database
     * can take its queue over; such a call is cancelled, and its answer is a {@link RedisConnectionFailureException}
     */
    static @Nullable List<Object> runAll(RedisConnection connection, String sha, List<byte[][]> keys,
            List<byte[][]> args, long timeoutMillis, long stragglerMillis, long unansweredMillis,
            Set<Integer> capped, boolean failWhenDisconnected) {
        if (!(connection.getNativeConnection() instanceof RedisScriptingAsyncCommands<?, ?> commands)) {
            return null;
        }
        BooleanSupplier down = (failWhenDisconnected && commands instanceof RedisAsyncCommands<?, ?> oneServer)
                ? () -> !oneServer.getStatefulConnection().isOpen() : null;
        @SuppressWarnings("unchecked")
        RedisScriptingAsyncCommands<byte[], byte[]> scripting = (RedisScriptingAsyncCommands<byte[], byte[]>) commands;
        List<RedisFuture<List<Object>>> futures = new ArrayList<>(keys.size());
        long start = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            futures.add(scripting.evalsha(sha, ScriptOutputType.MULTI, keys.get(i), args.get(i)));
        }
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long capAt = Math.min(deadline, start + TimeUnit.MILLISECONDS.toNanos(stragglerMillis));
        long cutOff = deadline;
        if (stragglerMillis < timeoutMillis || unansweredMillis < timeoutMillis) {
            long unansweredUntil = Math.min(deadline, start + TimeUnit.MILLISECONDS.toNanos(unansweredMillis));
            cutOff = cutOff(futures, start, unansweredUntil, deadline, stragglerMillis, down);
        }
        List<Object> answers = new ArrayList<>(futures.size());
        for (int i = 0; i < futures.size(); i++) {
            RedisFuture<List<Object>> future = futures.get(i);
            long until = capped.contains(i) ? Math.min(capAt, cutOff) : cutOff;
            if ((until - deadline < 0 || down != null) && !awaitUntil(future, until, down)) {
                if (down != null && down.getAsBoolean()) {
                    // not sent again once Lettuce has reconnected: the database has taken the queue over, and ids
                    // nobody settles would wait out a lease in flight, counted by any cluster-wide limit
                    future.cancel(true);
                    answers.add(new RedisConnectionFailureException("The connection to Redis went down before it "
                            + "answered"));
                }
                else if (until - deadline < 0) {
                    answers.add(new Late(future.toCompletableFuture()));
                }
                else {
                    answers.add(await(future, deadline, timeoutMillis));
                }
            }
            else {
                answers.add(await(future, deadline, timeoutMillis));
            }
        }
        return answers;
    }

    /**
     * When to stop waiting for the slowest calls: a while after the first answered, but by the deadline; or, if none
     * answered by {@code unansweredUntil}, then.
     */
    private static long cutOff(List<? extends CompletionStage<?>> futures, long start, long unansweredUntil,
            long deadline, long stragglerMillis, @Nullable BooleanSupplier down) {
        CompletableFuture<?>[] all = futures.stream()
            .map((future) -> future.toCompletableFuture().handle((answer, error) -> answer))
            .toArray(CompletableFuture<?>[]::new);
        if (!awaitUntil(CompletableFuture.anyOf(all), unansweredUntil, down)) {
            return Math.min(unansweredUntil, System.nanoTime());
        }
        long now = System.nanoTime();
        long wait = Math.max(TimeUnit.MILLISECONDS.toNanos(stragglerMillis), 2 * (now - start));
        return (now + wait - deadline < 0) ? now + wait : deadline;
    }

    /**
     * @param down whether the connection is down, looked at every {@link #WATCH_NANOS} while waiting; null for not
     * at all
     * @return whether the future is done by then, and before the connection went down
     */
    private static boolean awaitUntil(CompletionStage<?> future, long until, @Nullable BooleanSupplier down) {
        CompletableFuture<?> completable = future.toCompletableFuture();
        while (true) {
            long left = until - System.nanoTime();
            try {
                completable.get(Math.max(0, (down != null) ? Math.min(left, WATCH_NANOS) : left),
                        TimeUnit.NANOSECONDS);
                return true;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return completable.isDone();
            }
            catch (ExecutionException ex) {
                return true;
            }
            catch (TimeoutException ex) {
                if (down == null || until - System.nanoTime() <= 0 || down.getAsBoolean()) {
                    return false;
                }
            }
        }
    }

    /**
     * A call whose server had not answered when the others had: its answer, or its error, comes later.
     * @param answer the script's answer
     */
    record Late(CompletableFuture<List<Object>> answer) {
    }

    /**
     * Remove members from many sorted sets at once, one {@code ZREM} each, all on the wire together.
     * @return whether the connection is Lettuce's, so that they were sent
     * @throws RedisSystemException for the first that failed
     */
    static boolean removeAll(RedisConnection connection, List<byte[]> keys, List<byte[][]> members,
            long timeoutMillis) {
        if (!(connection.getNativeConnection() instanceof RedisSortedSetAsyncCommands<?, ?> commands)) {
            return false;
        }
        @SuppressWarnings("unchecked")
        RedisSortedSetAsyncCommands<byte[], byte[]> sortedSets = (RedisSortedSetAsyncCommands<byte[], byte[]>) commands;
        List<RedisFuture<Long>> futures = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            futures.add(sortedSets.zrem(keys.get(i), members.get(i)));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (RedisFuture<Long> future : futures) {
            Object answer = await(future, deadline, timeoutMillis);
            if (answer instanceof Exception ex) {
                throw new RedisSystemException("Could not remove ids from a sorted set: " + ex.getMessage(), ex);
            }
        }
        return true;
    }

    /**
     * {@code NX}: a member there already was put there by a later change (on another instance, a reschedule that
     * reached Redis before the hand-off of the add), whose time must stand.
     */
    private static final ZAddArgs ADD_NEW = ZAddArgs.Builder.nx();

    /**
     * Add members to many sorted sets at once, one {@code ZADD NX} each, and members to one set, all on the wire
     * together, waiting for the slowest servers as {@link #runAll(RedisConnection, String, List, List, long, long,
     * Set)} does, and for {@code capMillis} at most: on a Cluster a master that stalls or failed holds up only its own
     * sets, and a writer that must not wait long (the hand-off of new tasks) does not wait for it.
     * @param keys the sorted sets
     * @param members each sorted set's members, score then member, in turn
     * @param setKey the set, or null for none
     * @param setMembers the set's members
     * @return for each sorted set, then the set, its answer, an exception, or a {@link Late}; {@code null} if the
     * connection is not Lettuce's
     */
    static @Nullable List<Object> addAll(RedisConnection connection, List<byte[]> keys, List<List<Object>> members,
            byte @Nullable [] setKey, byte[][] setMembers, long timeoutMillis, long stragglerMillis, long capMillis) {
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisSortedSetAsyncCommands<?, ?> sorted)
                || !(nativeConnection instanceof RedisSetAsyncCommands<?, ?> plain)) {
            return null;
        }
        @SuppressWarnings("unchecked")
        RedisSortedSetAsyncCommands<byte[], byte[]> sortedSets = (RedisSortedSetAsyncCommands<byte[], byte[]>) sorted;
        @SuppressWarnings("unchecked")
        RedisSetAsyncCommands<byte[], byte[]> sets = (RedisSetAsyncCommands<byte[], byte[]>) plain;
        List<RedisFuture<?>> futures = new ArrayList<>(keys.size() + 1);
        long start = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            futures.add(sortedSets.zadd(keys.get(i), ADD_NEW, members.get(i).toArray()));
        }
        if (setKey != null) {
            futures.add(sets.sadd(setKey, setMembers));
        }
        return capped(futures.stream().<CompletableFuture<?>>map(RedisFuture::toCompletableFuture).toList(), start,
                timeoutMillis, stragglerMillis, capMillis);
    }

    /**
     * Changes of tasks already in their queues, all on the wire at once and waited for as {@link #addAll} waits for
     * its writes: each is the script of the given SHA-1 on its keys and arguments, or, without arguments, a
     * {@code ZREM} of the member from each of its keys (which share a slot). Lettuce sends the calls of one slot down
     * one connection, in their order, so the changes of one queue take effect in order.
     * @param members the member each removal takes out; null for a script
     * @return for each call its answer, an exception (a {@code NOSCRIPT} error among them when a server did not know
     * the script), or a {@link Late}; {@code null} if the connection is not Lettuce's
     */
    static @Nullable List<Object> changeAll(RedisConnection connection, String sha, List<byte[][]> keys,
            List<byte[] @Nullable []> args, List<byte @Nullable []> members, long timeoutMillis,
            long stragglerMillis, long capMillis) {
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisSortedSetAsyncCommands<?, ?> sorted)
                || !(nativeConnection instanceof RedisScriptingAsyncCommands<?, ?> scripts)) {
            return null;
        }
        @SuppressWarnings("unchecked")
        RedisSortedSetAsyncCommands<byte[], byte[]> sortedSets = (RedisSortedSetAsyncCommands<byte[], byte[]>) sorted;
        @SuppressWarnings("unchecked")
        RedisScriptingAsyncCommands<byte[], byte[]> scripting = (RedisScriptingAsyncCommands<byte[], byte[]>) scripts;
        List<CompletableFuture<?>> futures = new ArrayList<>(keys.size());
        long start = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            byte[][] callKeys = keys.get(i);
            byte[][] callArgs = args.get(i);
            if (callArgs != null) {
                futures.add(scripting.evalsha(sha, ScriptOutputType.INTEGER, callKeys, callArgs)
                    .toCompletableFuture());
            }
            else {
                CompletableFuture<?>[] removals = new CompletableFuture<?>[callKeys.length];
                for (int k = 0; k < callKeys.length; k++) {
                    removals[k] = sortedSets.zrem(callKeys[k], members.get(i)).toCompletableFuture();
                }
                futures.add(CompletableFuture.allOf(removals));
            }
        }
        return capped(futures, start, timeoutMillis, stragglerMillis, capMillis);
    }

    /**
     * The answers of calls sent at {@code start}: each waited for no longer than {@code capMillis} from then, and a
     * while once the first answered ({@link #cutOff}).
     */
    private static List<Object> capped(List<CompletableFuture<?>> futures, long start, long timeoutMillis,
            long stragglerMillis, long capMillis) {
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long capAt = start + TimeUnit.MILLISECONDS.toNanos(Math.min(capMillis, timeoutMillis));
        long cutOff = (stragglerMillis < timeoutMillis && futures.size() > 1)
                ? cutOff(futures, start, capAt, capAt, stragglerMillis, null) : capAt;
        List<Object> answers = new ArrayList<>(futures.size());
        for (CompletableFuture<?> future : futures) {
            if (!awaitUntil(future, cutOff, null)) {
                answers.add(new Late(future.thenApply((answer) -> List.of())));
            }
            else {
                answers.add(await(future, deadline, timeoutMillis));
            }
        }
        return answers;
    }

    private static Object await(Future<?> future, long deadline, long timeoutMillis) {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new RedisSystemException("Interrupted while waiting for a script", ex);
        }
        catch (ExecutionException ex) {
            return (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
        catch (TimeoutException ex) {
            future.cancel(true);
            return new QueryTimeoutException("No answer from Redis for " + timeoutMillis + " ms", ex);
        }
    }

}
