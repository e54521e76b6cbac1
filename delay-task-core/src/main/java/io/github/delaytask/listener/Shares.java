package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delaytask.core.QueueId;

/**
 * Splits the free handler capacity over the queues due: fairly between task types, and within a type to the higher
 * priority number first, as long as it may take more: first each queue up to what it is thought to hold, then the
 * rest. When the capacity is short of what the types with a backlog could take, it goes to as few types as can use
 * it, each taking at least a minimum share, and the types take turns in the order of their ids: a claim costs a
 * Redis script per queue whatever it takes, so 64 queues each given one task of a free 64 would cost 64 scripts
 * where 4 queues given 16 cost 4, and over the rounds each type is served as often.
 */
final class Shares {

    private Shares() {
    }

    /** Before any round: the turn begins with the lowest type id. */
    static final long FIRST_TURN = Long.MIN_VALUE;

    /**
     * Split without a minimum share: every type due takes part.
     * @see #split(Map, Map, int, long, int)
     */
    static Map<QueueId, Integer> split(Map<QueueId, Integer> room, int free, long after) {
        return split(room, room, free, after, 1);
    }

    /**
     * @param room how many tasks each due queue may take at most (its batch, or less at its listener's limit)
     * @param demand how many tasks each due queue is thought to hold: its room when its last claim took all it asked
     * for, fewer when it drained the queue
     * @param free the capacity to split
     * @param after whose turn it was: types go first in the order of their ids from the first one above it, so that
     * a type left out is first next time even when other types fell due or drained meanwhile (see
     * {@link #nextTurn})
     * @param minShare the least share of a type whose demand is that large: types are served in turn until their
     * demands (each counted up to {@code minShare}) cover {@code free}
     * @return how many to claim from each queue given any, type by type in the order served; their sum is at most
     * {@code free}
     */
    static Map<QueueId, Integer> split(Map<QueueId, Integer> room, Map<QueueId, Integer> demand, int free, long after,
            int minShare) {
        TreeMap<Integer, List<QueueId>> byType = new TreeMap<>();
        room.keySet().forEach((queue) -> byType.computeIfAbsent(queue.taskType(), (type) -> new ArrayList<>())
            .add(queue));
        List<List<QueueId>> order = new ArrayList<>();
        byType.forEach((type, queues) -> {
            if (type > after) {
                order.add(queues);
            }
        });
        byType.forEach((type, queues) -> {
            if (type <= after) {
                order.add(queues);
            }
        });
        return divide(served(order, demand, free, minShare), room, demand, free);
    }

    /**
     * Whose turn it was after a split: the last type served when some type due was left out, so that the next round
     * begins with it; the first one when every type was served, so that the remainder of an equal split goes round.
     * @param after whose turn it was before the split, kept when it served none
     */
    static long nextTurn(Map<QueueId, Integer> room, Map<QueueId, Integer> shares, long after) {
        List<Integer> served = shares.keySet().stream().map(QueueId::taskType).distinct().toList();
        if (served.isEmpty()) {
            return after;
        }
        boolean allServed = room.keySet().stream().map(QueueId::taskType).distinct().count() == served.size();
        return allServed ? served.get(0) : served.get(served.size() - 1);
    }

    private static Map<QueueId, Integer> divide(List<List<QueueId>> order, Map<QueueId, Integer> room,
            Map<QueueId, Integer> demand, int free) {
        int[] typeRoom = new int[order.size()];
        for (int i = 0; i < order.size(); i++) {
            for (QueueId queue : order.get(i)) {
                typeRoom[i] += room.get(queue);
            }
        }
        int[] given = fill(typeRoom, free);
        Map<QueueId, Integer> shares = new LinkedHashMap<>();
        for (int i = 0; i < order.size(); i++) {
            int left = given[i];
            List<QueueId> queues = new ArrayList<>(order.get(i));
            queues.sort(Comparator.comparingInt(QueueId::priority).reversed());
            // first what each is thought to hold, higher priorities first; then the rest, in the same order: a
            // higher priority that drained its queue must not keep the lower ones of its type waiting for rounds
            for (QueueId queue : queues) {
                left -= give(shares, queue, Math.min(left, demand.getOrDefault(queue, room.get(queue))));
            }
            for (QueueId queue : queues) {
                left -= give(shares, queue, Math.min(left, room.get(queue) - shares.getOrDefault(queue, 0)));
            }
        }
        return shares;
    }

    private static int give(Map<QueueId, Integer> shares, QueueId queue, int count) {
        if (count > 0) {
            shares.merge(queue, count, Integer::sum);
        }
        return Math.max(0, count);
    }

    /** The first types of the order whose demands, each counted up to the minimum share, cover the capacity. */
    private static List<List<QueueId>> served(List<List<QueueId>> order, Map<QueueId, Integer> demand, int free,
            int minShare) {
        long covered = 0;
        for (int i = 0; i < order.size(); i++) {
            long typeDemand = 0;
            for (QueueId queue : order.get(i)) {
                typeDemand += demand.getOrDefault(queue, 1);
            }
            covered += Math.min(typeDemand, minShare);
            if (covered >= free) {
                return order.subList(0, i + 1);
            }
        }
        return order;
    }

    /**
     * Water-filling: each in turn gets an equal part of what is left, no more than its room, until the capacity or
     * every room is used up.
     */
    private static int[] fill(int[] room, int free) {
        int[] given = new int[room.length];
        int left = free;
        boolean progress = true;
        while (left > 0 && progress) {
            progress = false;
            int open = 0;
            for (int i = 0; i < room.length; i++) {
                if (given[i] < room[i]) {
                    open++;
                }
            }
            if (open == 0) {
                break;
            }
            int part = Math.max(1, left / open);
            for (int i = 0; i < room.length && left > 0; i++) {
                int take = Math.min(part, Math.min(room[i] - given[i], left));
                if (take > 0) {
                    given[i] += take;
                    left -= take;
                    progress = true;
                }
            }
        }
        return given;
    }

}
