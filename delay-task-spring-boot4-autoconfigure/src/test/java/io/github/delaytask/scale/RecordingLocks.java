package io.github.delaytask.scale;

import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

import io.github.delaytask.DistributedLocks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Records, as rows of {@code lock_tries}, every lock a worker tries: whether it got it, how long the try took and,
 * for a lock it got, how long it held it before unlocking (the job's run). A failure to record is logged and
 * otherwise ignored, so the jobs run as they would without it.
 */
final class RecordingLocks implements DistributedLocks {

    private static final Log logger = LogFactory.getLog(RecordingLocks.class);

    private static final String INSERT = "INSERT INTO lock_tries (worker, name, taken, tried_at, try_micros, held_ms) "
            + "VALUES (?, ?, ?, ?, ?, ?)";

    private final DistributedLocks locks;

    private final ObjectProvider<DataSource> dataSource;

    private final String workerId;

    private volatile JdbcTemplate jdbc;

    RecordingLocks(DistributedLocks locks, ObjectProvider<DataSource> dataSource, String workerId) {
        this.locks = locks;
        this.dataSource = dataSource;
        this.workerId = workerId;
    }

    @Override
    public Optional<LockHandle> tryLock(String name, Duration lockAtMostFor) {
        long triedAt = System.currentTimeMillis();
        long start = System.nanoTime();
        Optional<LockHandle> lock = this.locks.tryLock(name, lockAtMostFor);
        long tryMicros = (System.nanoTime() - start) / 1000;
        if (lock.isEmpty()) {
            record(name, false, triedAt, tryMicros, null);
        }
        return lock.map((handle) -> new RecordedHandle(handle, triedAt, tryMicros));
    }

    private void record(String name, boolean taken, long triedAt, long tryMicros, Long heldMillis) {
        try {
            jdbc().update(INSERT, this.workerId, name, taken, triedAt, tryMicros, heldMillis);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not record a try of lock " + name, ex);
        }
    }

    private JdbcTemplate jdbc() {
        JdbcTemplate jdbc = this.jdbc;
        if (jdbc == null) {
            jdbc = new JdbcTemplate(this.dataSource.getObject());
            this.jdbc = jdbc;
        }
        return jdbc;
    }

    private final class RecordedHandle implements LockHandle {

        private final LockHandle handle;

        private final long triedAt;

        private final long tryMicros;

        RecordedHandle(LockHandle handle, long triedAt, long tryMicros) {
            this.handle = handle;
            this.triedAt = triedAt;
            this.tryMicros = tryMicros;
        }

        @Override
        public String name() {
            return this.handle.name();
        }

        @Override
        public boolean unlock(Duration lockAtLeastFor) {
            record(name(), true, this.triedAt, this.tryMicros, System.currentTimeMillis() - this.triedAt);
            return this.handle.unlock(lockAtLeastFor);
        }

        @Override
        public boolean extend(Duration lockAtMostFor) {
            return this.handle.extend(lockAtMostFor);
        }

    }

}
