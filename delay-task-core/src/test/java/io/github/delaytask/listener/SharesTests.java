package io.github.delaytask.listener;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delaytask.redis.QueueId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SharesTests {

    private static final QueueId A0 = new QueueId(1, 0);

    private static final QueueId A5 = new QueueId(1, 5);

    private static final QueueId B0 = new QueueId(2, 0);

    private static final QueueId C0 = new QueueId(3, 0);

    @Test
    void givesEveryQueueItsRoomWhenTheCapacityCoversIt() {
        assertThat(Shares.split(room(A0, 10, B0, 20), 100, 0)).containsOnly(Map.entry(A0, 10), Map.entry(B0, 20));
    }

    @Test
    void splitsAShortCapacityEquallyBetweenTypesAndGivesWhatOneCannotTakeToTheOthers() {
        assertThat(Shares.split(room(A0, 100, B0, 100, C0, 100), 30, 0)).containsOnly(Map.entry(A0, 10),
                Map.entry(B0, 10), Map.entry(C0, 10));
        assertThat(Shares.split(room(A0, 2, B0, 100, C0, 100), 30, 0)).containsOnly(Map.entry(A0, 2),
                Map.entry(B0, 14), Map.entry(C0, 14));
    }

    @Test
    void servesTheHigherPriorityNumberOfATypeFirstWhenCapacityIsShort() {
        assertThat(Shares.split(room(A0, 100, A5, 100), 30, 0)).containsOnly(Map.entry(A5, 30));
        assertThat(Shares.split(room(A0, 100, A5, 20), 30, 0)).containsOnly(Map.entry(A5, 20), Map.entry(A0, 10));
    }

    @Test
    void typesTakeTurnsAtACapacitySmallerThanTheirNumber() {
        Map<QueueId, Integer> room = room(A0, 100, B0, 100, C0, 100);
        assertThat(Shares.split(room, 1, 0)).containsOnlyKeys(A0);
        assertThat(Shares.split(room, 1, 1)).containsOnlyKeys(B0);
        assertThat(Shares.split(room, 1, 2)).containsOnlyKeys(C0);
        assertThat(Shares.split(room, 1, 3)).containsOnlyKeys(A0);
    }

    @Test
    void neverGivesMoreThanTheCapacityNorMoreThanAQueueMayTake() {
        for (int free = 0; free <= 50; free++) {
            Map<QueueId, Integer> room = room(A0, 7, A5, 3, B0, 11, C0, 1);
            Map<QueueId, Integer> shares = Shares.split(room, free, free);
            assertThat(shares.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(Math.min(free, 22));
            shares.forEach((queue, share) -> assertThat(share).isPositive().isLessThanOrEqualTo(room.get(queue)));
        }
    }

    private static Map<QueueId, Integer> room(Object... queuesAndRoom) {
        Map<QueueId, Integer> room = new LinkedHashMap<>();
        for (int i = 0; i < queuesAndRoom.length; i += 2) {
            room.put((QueueId) queuesAndRoom[i], (Integer) queuesAndRoom[i + 1]);
        }
        return room;
    }

}
