package io.github.delaytask.autoconfigure;

import java.util.List;
import java.util.function.BooleanSupplier;

import io.github.delaytask.store.mybatis.JdbcDistributedLocks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

/**
 * Fails the start of an application whose locks are kept in the database but whose schema lacks their table, rather
 * than let every locked job fail at its first trigger: when the database was chosen for them, or when the
 * application has {@code @DistributedLock} methods; otherwise, a table nobody uses is no reason to fail.
 */
final class LockTableCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(LockTableCheck.class);

    private final JdbcDistributedLocks locks;

    private final boolean chosen;

    private final BooleanSupplier lockedMethods;

    /**
     * @param chosen whether {@code delay-task.lock.store} is {@code database}, rather than the database taken for
     * want of Redis
     * @param lockedMethods whether the application has {@code @DistributedLock} methods
     */
    LockTableCheck(JdbcDistributedLocks locks, boolean chosen, BooleanSupplier lockedMethods) {
        this.locks = locks;
        this.chosen = chosen;
        this.lockedMethods = lockedMethods;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> missing;
        try {
            missing = this.locks.missingSchema();
        }
        catch (DataAccessException ex) {
            logger.warn("Could not check the delay-task lock table; a lock taken without it fails then", ex);
            return;
        }
        if (missing.isEmpty()) {
            return;
        }
        String why = this.chosen ? "delay-task.lock.store is database"
                : "the application has no Redis, so the locks of @DistributedLock are kept in the database";
        if (this.chosen || this.lockedMethods.getAsBoolean()) {
            throw new IllegalStateException(why + ", but the delay-task schema lacks the " + missing.get(0));
        }
        logger.debug(why + ", whose schema lacks the " + missing.get(0) + "; no method has @DistributedLock");
    }

}
