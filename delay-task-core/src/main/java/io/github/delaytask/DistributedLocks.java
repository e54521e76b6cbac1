package io.github.delaytask;

import java.time.Duration;
import java.util.Optional;

/**
 * Named locks shared by every instance of the application, held in Redis or in the database
 * ({@code delay-task.lock.store}). The starter provides one as a bean and uses it for its own jobs.
 * <p>
 * A lock is taken with a random token and lapses after {@code lockAtMostFor}, so a crashed holder blocks others for
 * at most that long; it is released only by its holder, so an instance never removes a lock that lapsed and was
 * then taken by another.
 */
public interface DistributedLocks {

    /**
     * Take a lock if no instance holds it, without waiting.
     * @param name the lock's name
     * @param lockAtMostFor when the lock lapses if its holder neither releases nor extends it
     * @return the held lock, or empty if another holder has it
     */
    Optional<LockHandle> tryLock(String name, Duration lockAtMostFor);

    /**
     * A lock held by this instance.
     */
    interface LockHandle {

        /** The lock's name. */
        String name();

        /**
         * Release the lock now.
         * @return {@code false} if it had lapsed and this instance no longer held it
         */
        default boolean unlock() {
            return unlock(Duration.ZERO);
        }

        /**
         * Release the lock, keeping it until at least {@code keepFor} after it was taken, so that an instance
         * whose clock is a little behind does not run the same work again.
         * @param lockAtLeastFor least time, from taking the lock, that it is held
         * @return {@code false} if it had lapsed and this instance no longer held it
         */
        boolean unlock(Duration lockAtLeastFor);

        /**
         * Keep the lock for another {@code lockAtMostFor} from now.
         * @param lockAtMostFor new time to live
         * @return {@code false} if it had lapsed and this instance no longer held it
         */
        boolean extend(Duration lockAtMostFor);

    }

}
