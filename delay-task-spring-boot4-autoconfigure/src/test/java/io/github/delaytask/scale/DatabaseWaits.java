package io.github.delaytask.scale;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples {@code pg_stat_activity} every 200 ms while it runs: how many of the workers' connections are busy with a
 * statement, and what those wait for. A wait of type {@code Lock} is a statement blocked by a heavyweight lock that
 * another transaction holds (a row, a table, or the extension of a table's file); {@code LWLock} and {@code IO}
 * waits are the server's own short waits, such as for the write-ahead log to be flushed.
 */
final class DatabaseWaits implements AutoCloseable {

    private static final long INTERVAL_MILLIS = 200;

    private static final String ACTIVE = "SELECT COALESCE(wait_event_type || ':' || wait_event, 'none'), "
            + "wait_event_type = 'Lock', left(query, 40) FROM pg_stat_activity "
            + "WHERE application_name LIKE ? AND state = 'active'";

    private final Connection connection;

    private final String applicationNames;

    private final Thread thread;

    private final AtomicLong samples = new AtomicLong();

    private final AtomicLong samplesWithLockWaits = new AtomicLong();

    private final AtomicLong mostLockWaits = new AtomicLong();

    private final Map<String, Long> waits = new ConcurrentHashMap<>();

    private volatile boolean running = true;

    /**
     * @param applicationNames a {@code LIKE} pattern matching the application names of the connections to watch
     */
    DatabaseWaits(String jdbcUrl, String user, String applicationNames) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl, user, "");
        this.applicationNames = applicationNames;
        this.thread = new Thread(this::run, "scale-database-waits");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    long samples() {
        return this.samples.get();
    }

    long samplesWithLockWaits() {
        return this.samplesWithLockWaits.get();
    }

    long mostLockWaits() {
        return this.mostLockWaits.get();
    }

    /** Busy connections seen, summed over the samples, by {@code wait_event_type:wait_event}. */
    Map<String, Long> waits() {
        return new TreeMap<>(this.waits);
    }

    @Override
    public void close() {
        this.running = false;
        try {
            this.thread.join(5000);
            this.connection.close();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (SQLException ex) {
            // the samples are taken; a failing close changes nothing
        }
    }

    private void run() {
        while (this.running) {
            try {
                sample();
            }
            catch (SQLException ex) {
                this.waits.merge("sample failed: " + ex.getMessage(), 1L, Long::sum);
            }
            try {
                Thread.sleep(INTERVAL_MILLIS);
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    private void sample() throws SQLException {
        long lockWaits = 0;
        try (PreparedStatement statement = this.connection.prepareStatement(ACTIVE)) {
            statement.setString(1, this.applicationNames);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String wait = rows.getString(1);
                    if (rows.getBoolean(2)) {
                        // which statement waited, to tell a row lock from, say, a table being extended
                        wait = wait + " (" + rows.getString(3) + "...)";
                        lockWaits++;
                    }
                    this.waits.merge(wait, 1L, Long::sum);
                }
            }
        }
        this.samples.incrementAndGet();
        if (lockWaits > 0) {
            this.samplesWithLockWaits.incrementAndGet();
            this.mostLockWaits.accumulateAndGet(lockWaits, Math::max);
        }
    }

}
