package io.github.delaytask.store;

import java.util.List;

/**
 * What a batch of executed tasks came to: those finished, and those whose rows another transaction holds (a cancel
 * in a business transaction that has not committed yet, say), left for a finish that waits for it, so that one
 * caller's open transaction holds up no other task's outcome.
 *
 * @param finished the tasks finished; claimed tasks in neither list had lost their claim meanwhile
 * @param held the tasks still claimed whose rows another transaction holds
 */
public record Finishes(List<StoredTask> finished, List<StoredTask> held) {

    public Finishes {
        finished = List.copyOf(finished);
        held = List.copyOf(held);
    }

}
