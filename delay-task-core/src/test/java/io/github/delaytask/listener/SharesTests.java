package io.github.delaytask.listener;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delaytask.core.QueueId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SharesTests {

    private static final QueueId A0 = new QueueId(1, 0);

    private static final QueueId A5 = new QueueId(1, 5);

    private static final QueueId B0 = new QueueId(2, 0);

    private static final QueueId C0 = new QueueId(3, 0);

    private static final QueueId D0 = new QueueId(4, 0);

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

    @Test
    void givesAShortCapacityToAsFewTypesWithABacklogAsCanEachTakeTheMinimumShareFromTheTurnOn() {
        Map<QueueId, Integer> room = room(A0, 100, B0, 100, C0, 100);
        assertThat(Shares.split(room, room, 30, 0, 16)).containsOnly(Map.entry(A0, 15), Map.entry(B0, 15));
        assertThat(Shares.split(room, room, 30, 2, 16)).containsOnly(Map.entry(C0, 15), Map.entry(A0, 15));
        assertThat(Shares.split(room, room, 48, 0, 16)).containsOnly(Map.entry(A0, 16), Map.entry(B0, 16),
                Map.entry(C0, 16));
    }

    @Test
    void countsAQueueThatDrainedAtWhatItIsThoughtToHoldSoThatEveryTypeDueIsServed() {
        Map<QueueId, Integer> room = room(A0, 100, B0, 100, C0, 100);
        Map<QueueId, Integer> demand = room(A0, 1, B0, 2, C0, 100);
        assertThat(Shares.split(room, demand, 30, 0, 16)).containsOnly(Map.entry(A0, 10), Map.entry(B0, 10),
                Map.entry(C0, 10));
    }

    @Test
    void givesEachPriorityOfATypeWhatItIsThoughtToHoldBeforeTheHigherPriorityTakesTheRest() {
        Map<QueueId, Integer> room = room(A0, 100, A5, 100);
        assertThat(Shares.split(room, room(A0, 1, A5, 1), 30, 0, 16)).containsOnly(Map.entry(A5, 29),
                Map.entry(A0, 1));
        assertThat(Shares.split(room, room(A0, 100, A5, 100), 30, 0, 16)).containsOnly(Map.entry(A5, 30));
    }

    @Test
    void theNextTurnIsAfterTheLastTypeServedWhenOneWasLeftOutAndAfterTheFirstWhenNoneWas() {
        Map<QueueId, Integer> room = room(A0, 100, A5, 100, B0, 100, C0, 100);
        assertThat(Shares.nextTurn(room, room(A0, 1, A5, 2, B0, 3), 0)).isEqualTo(2);
        assertThat(Shares.nextTurn(room, room(C0, 1, A0, 2, A5, 3, B0, 4), 2)).isEqualTo(3);
        assertThat(Shares.nextTurn(room, Map.of(), 2)).isEqualTo(2);
    }

    @Test
    void aTypeLeftOutGoesFirstNextEvenWhenATypeServedBeforeItDrainedMeanwhile() {
        Map<QueueId, Integer> room = room(A0, 100, B0, 100, C0, 100, D0, 100);
        Map<QueueId, Integer> first = Shares.split(room, room, 32, Shares.FIRST_TURN, 16);
        assertThat(first).containsOnlyKeys(A0, B0);
        Map<QueueId, Integer> drained = room(A0, 100, C0, 100, D0, 100);
        assertThat(Shares.split(drained, drained, 32, Shares.nextTurn(room, first, Shares.FIRST_TURN), 16))
            .containsOnlyKeys(C0, D0);
    }

    private static Map<QueueId, Integer> room(Object... queuesAndRoom) {
        Map<QueueId, Integer> room = new LinkedHashMap<>();
        for (int i = 0; i < queuesAndRoom.length; i += 2) {
            room.put((QueueId) queuesAndRoom[i], (Integer) queuesAndRoom[i + 1]);
        }
        return room;
    }

}
