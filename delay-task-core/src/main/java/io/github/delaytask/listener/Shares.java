package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delaytask.redis.QueueId;

/**
 * Splits the free handler capacity over the queues due: fairly between task types, and within a type to the higher
 * priority number first, as long as it may take more. Types take turns at the remainder, so that none is always
 * last when capacity is short.
 */
final class Shares {

    private Shares() {
    }

    /**
     * @param room how many tasks each due queue may take at most (its batch, or less at its listener's limit)
     * @param free the capacity to split
     * @param turn which type goes first at the remainder, counted round by round
     * @return how many to claim from each queue given any; their sum is at most {@code free}
     */
    static Map<QueueId, Integer> split(Map<QueueId, Integer> room, int free, long turn) {
        TreeMap<Integer, List<QueueId>> byType = new TreeMap<>();
        room.keySet().forEach((queue) -> byType.computeIfAbsent(queue.taskType(), (type) -> new ArrayList<>())
            .add(queue));
        List<List<QueueId>> types = new ArrayList<>(byType.values());
        if (types.isEmpty()) {
            return Map.of();
        }
        int first = (int) Math.floorMod(turn, (long) types.size());
        List<List<QueueId>> order = new ArrayList<>(types.subList(first, types.size()));
        order.addAll(types.subList(0, first));
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
            for (QueueId queue : queues) {
                int share = Math.min(left, room.get(queue));
                if (share > 0) {
                    shares.put(queue, share);
                    left -= share;
                }
            }
        }
        return shares;
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
