package io.github.delaytask.store.mybatis;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Supplier;

import io.github.delaytask.TaskSchedule;
import io.github.delaytask.store.ScheduleStore;
import io.github.delaytask.store.StoredSchedule;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link ScheduleStore} in plain JDBC, the same statements on every database: a handful of rows read and written now
 * and then need no statements of their own per database, and no MyBatis-Plus plugin of the application's (tenant line,
 * data permission) sees them. Public for wiring.
 */
public class JdbcScheduleStore implements ScheduleStore {

    private static final String COLUMNS = "name, task_type, priority, cron, time_zone, interval_ms, parameters, "
            + "catch_up, declaration, paused, next_time, version";

    private final JdbcTemplate jdbc;

    private final TransactionTemplate transactions;

    private final TransactionTemplate savepoints;

    private final TableNames tables;

    private final RowMapper<StoredSchedule> rows = this::row;

    /**
     * @param jdbc on the task store's data source
     * @param transactions on the task store's data source, of which this store takes the manager
     * @param tables the names of the tables
     */
    public JdbcScheduleStore(JdbcTemplate jdbc, TransactionTemplate transactions, TableNames tables) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactions.getTransactionManager());
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.savepoints = new TransactionTemplate(transactions.getTransactionManager());
        this.savepoints.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        this.tables = tables;
    }

    @Override
    public List<StoredSchedule> findAll() {
        return this.jdbc.query(sql("SELECT " + COLUMNS + " FROM taskinfo_schedule ORDER BY name"), this.rows);
    }

    @Override
    public @Nullable StoredSchedule find(String name) {
        List<StoredSchedule> found = this.jdbc
            .query(sql("SELECT " + COLUMNS + " FROM taskinfo_schedule WHERE name = ?"), this.rows, name);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<StoredSchedule> findDue(long until) {
        return this.jdbc.query(sql("SELECT " + COLUMNS + " FROM taskinfo_schedule WHERE paused = 0 AND next_time <= ? "
                + "ORDER BY name"), this.rows, until);
    }

    @Override
    public boolean insert(StoredSchedule row) {
        TaskSchedule schedule = row.schedule();
        try {
            // behind a savepoint: on PostgreSQL a statement that fails ends the transaction it ran in
            return Boolean.TRUE.equals(this.savepoints.execute((status) -> this.jdbc.update(sql(
                    "INSERT INTO taskinfo_schedule (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                    schedule.getName(), schedule.getTaskType(), schedule.getPriority(), schedule.getCron(),
                    zoneId(schedule), intervalMillis(schedule), schedule.getParameters(),
                    schedule.getCatchUp().name(), row.declaration(), row.state().ordinal(), row.nextTime(),
                    row.version()) == 1));
        }
        catch (DuplicateKeyException ex) {
            return false;
        }
    }

    @Override
    public boolean update(StoredSchedule row) {
        TaskSchedule schedule = row.schedule();
        return this.jdbc.update(sql("UPDATE taskinfo_schedule SET task_type = ?, priority = ?, cron = ?, "
                + "time_zone = ?, interval_ms = ?, parameters = ?, catch_up = ?, declaration = ?, paused = ?, "
                + "next_time = ?, version = version + 1 WHERE name = ? AND version = ?"), schedule.getTaskType(),
                schedule.getPriority(), schedule.getCron(), zoneId(schedule), intervalMillis(schedule),
                schedule.getParameters(), schedule.getCatchUp().name(), row.declaration(), row.state().ordinal(),
                row.nextTime(), schedule.getName(), row.version()) == 1;
    }

    @Override
    public boolean delete(String name, int version) {
        return this.jdbc.update(sql("DELETE FROM taskinfo_schedule WHERE name = ? AND version = ?"), name,
                version) == 1;
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return this.transactions.execute((status) -> work.get());
    }

    @Override
    public List<String> missingSchema() {
        try {
            this.jdbc.query(sql("SELECT " + COLUMNS + " FROM taskinfo_schedule WHERE 1 = 0"), this.rows);
            return List.of();
        }
        catch (BadSqlGrammarException ex) {
            return List.of("table " + this.tables.sql("taskinfo_schedule") + " with the columns " + COLUMNS
                    + " (the starter's schema script makes it, and version 8 of its migrations): recurring schedules "
                    + "are stored there");
        }
    }

    private String sql(String statement) {
        return this.tables.sql(statement);
    }

    private StoredSchedule row(ResultSet rs, int row) throws SQLException {
        String name = rs.getString("name");
        String cron = rs.getString("cron");
        TaskSchedule.Builder builder = (cron != null)
                ? TaskSchedule.cron(name, cron, ZoneId.of(rs.getString("time_zone")))
                : TaskSchedule.every(name, Duration.ofMillis(rs.getLong("interval_ms")));
        TaskSchedule schedule = builder.taskType(rs.getInt("task_type"))
            .priority(rs.getInt("priority"))
            .parameters(rs.getBytes("parameters"))
            .catchUp(TaskSchedule.CatchUp.valueOf(rs.getString("catch_up")))
            .build();
        return new StoredSchedule(schedule, StoredSchedule.State.values()[rs.getInt("paused")],
                rs.getString("declaration"), rs.getLong("next_time"), rs.getInt("version"));
    }

    private static @Nullable String zoneId(TaskSchedule schedule) {
        return (schedule.getZone() != null) ? schedule.getZone().getId() : null;
    }

    private static @Nullable Long intervalMillis(TaskSchedule schedule) {
        return (schedule.getInterval() != null) ? schedule.getInterval().toMillis() : null;
    }

}
